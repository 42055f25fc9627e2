// Transfer between shapes: similar workloads first, foreign configurations adapted to the space.
#include <gtest/gtest.h>

#include "qtune/tuner/shape_features.h"
#include "qtune/tuner/transfer.h"
#include "tuner/synthetic.h"

namespace qtune {
namespace {

Workload gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  Workload w;
  w.op = OpKind::gemm;
  w.m = m;
  w.n = n;
  w.k = k;
  return w;
}

TEST(Transfer, AdaptKeepsAValidConfigurationAsIs) {
  const auto space = testing::synthetic_space();
  const Config c = space.parse("tile=8;block=128;order=ikj;pack=1;prefetch=128");
  EXPECT_EQ(adapt_config(space, c), c);
}

TEST(Transfer, AdaptMovesToTheNearestValidConfiguration) {
  const auto space = testing::synthetic_space();
  // block=2048 is not in this space, and tile 32 needs block >= 128: the nearest valid keeps
  // every other knob and takes the largest block.
  const Config foreign({{"tile", "32"}, {"block", "2048"}, {"order", "ikj"}, {"pack", "1"}, {"prefetch", "128"}});
  const auto adapted = adapt_config(space, foreign);
  ASSERT_TRUE(adapted.has_value());
  EXPECT_EQ(adapted->key(), "tile=32;block=1024;order=ikj;pack=1;prefetch=128");
  // A violated constraint (tile 32 needs block >= 128): one knob moves one step, the rest stays.
  const Config tight({{"tile", "32"}, {"block", "64"}, {"order", "ijk"}, {"pack", "0"}});
  ASSERT_NE(space.check(tight), "");
  const auto fixed = adapt_config(space, tight);
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(space.check(*fixed), "");
  EXPECT_TRUE(fixed->key() == "tile=16;block=64;order=ijk;pack=0" || fixed->key() == "tile=32;block=128;order=ijk;pack=0")
      << fixed->key();
}

TEST(Transfer, SimilarWorkloadsAreSameOpNearestFirstWithoutItself) {
  const Workload target = gemm(256, 256, 256);
  Workload conv;
  conv.op = OpKind::conv2d;
  conv.in_h = conv.in_w = 16;
  conv.in_c = conv.out_c = 16;
  const auto space = testing::synthetic_space();
  const Config c = space.enumerate().front();
  std::vector<PriorMeasurement> prior = {
      {gemm(4096, 64, 32), c, 10.0}, {gemm(256, 256, 512), c, 20.0}, {target, c, 30.0},
      {conv, c, 40.0},               {gemm(300, 256, 256), c, std::nullopt},  // never succeeded
  };
  const auto similar = similar_workloads(target, prior, 5);
  ASSERT_EQ(similar.size(), 2u);
  EXPECT_EQ(similar[0].workload, gemm(256, 256, 512));
  EXPECT_EQ(similar[1].workload, gemm(4096, 64, 32));
  EXPECT_LT(similar[0].distance, similar[1].distance);
  EXPECT_EQ(similar_workloads(target, prior, 1).size(), 1u);
}

TEST(Transfer, CandidatesAreTheBestOfEachSimilarWorkloadAdapted) {
  const auto space = testing::synthetic_space();
  const Config best({{"tile", "8"}, {"block", "4096"}, {"order", "ikj"}, {"pack", "0"}});
  const Config worse = space.parse("tile=1;block=16;order=ijk;pack=0");
  SimilarWorkload near{gemm(256, 256, 512), 1.0, {{worse, 5.0}, {best, 50.0}, {worse, std::nullopt}}};
  const auto candidates = transfer_candidates(space, {near});
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].key(), "tile=8;block=1024;order=ikj;pack=0");
}

TEST(Transfer, PriorsWarmStartTheModel) {
  const auto space = testing::synthetic_space();
  std::vector<Observation> observations;
  for (const auto& c : space.enumerate()) observations.push_back({c, testing::synthetic_gops(c)});
  CostModel model(space);
  add_transfer_priors(model, {SimilarWorkload{gemm(256, 256, 512), 0.5, observations}});
  EXPECT_EQ(model.prior_samples(), observations.size());
  // With no measurement of its own, the model already prefers the prior's optimum to its worst.
  const auto shape = shape_features(gemm(256, 256, 256));
  model.fit(shape, {});
  const Config good = space.parse("tile=8;block=128;order=ikj;pack=1;prefetch=128");
  const Config bad = space.parse("tile=1;block=1024;order=jik;pack=1;prefetch=0");
  EXPECT_GT(model.predict(good, shape), model.predict(bad, shape));
}

TEST(ShapeFeatures, ConvolutionIsDescribedAsItsGemm) {
  Workload conv;
  conv.op = OpKind::conv2d;
  conv.in_h = conv.in_w = 10;
  conv.in_c = 8;
  conv.out_c = 16;
  conv.kernel_h = conv.kernel_w = 3;
  const auto f = shape_features(conv);
  ASSERT_EQ(f.size(), shape_feature_names().size());
  EXPECT_DOUBLE_EQ(f[0], std::log2(64.0));  // M = 8x8 outputs
  EXPECT_DOUBLE_EQ(f[1], 4.0);              // N = 16
  EXPECT_DOUBLE_EQ(f[2], std::log2(72.0));  // K = 3x3x8
  EXPECT_TRUE(std::isinf(shape_distance(conv, gemm(64, 16, 72))));
}

}  // namespace
}  // namespace qtune
