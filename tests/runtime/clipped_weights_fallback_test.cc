// Tuned configurations of the families that clip weight pairs (avx2ubsw, avx512ubsw) meet the
// layer's own weights only when it is prepared: where those clip more pairs than any trained
// network's (kMaxClippedWeightPairShare: the tuner timed the families on trained-like weights), the
// layer runs its default, says why in its selection and warns once; where they clip few, the tuned
// configuration runs. Bit-exact both ways.
#include <gtest/gtest.h>

#include <algorithm>

#include "qtune/kernels/gemm.h"
#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

// The first family that clips pairs this CPU runs, or nothing.
std::optional<Isa> clipping_isa() {
  for (const Isa isa : {Isa::avx512ubsw, Isa::avx2ubsw}) {
    if (cpu_features().usable(isa)) return isa;
  }
  return std::nullopt;
}

Config clipping_config(Isa isa) {
  GemmConfig c;
  c.isa = isa;
  c.mr = 4;
  c.nr = 16;
  c.pack_a = false;
  return from_gemm_config(c);
}

// Weights no pair of which clips: |w| <= 64.
std::vector<std::int8_t> small_weights(std::vector<std::int8_t> w) {
  for (auto& v : w) v = static_cast<std::int8_t>(std::clamp<int>(v / 2, -64, 64));
  return w;
}

TEST(ClippedWeightsFallback, GemmWeightsThatClipTooManyPairsRunTheDefault) {
  const auto isa = clipping_isa();
  if (!isa) GTEST_SKIP() << "no family that clips weight pairs is usable here";
  WarningCollector warnings;
  const Workload w = gemm_workload(49, 96, 320);
  const Runtime rt = Runtime::from_entries({{w.key(), current_target_key(), clipping_config(*isa).key(), 1.0}},
                                           warnings.options());

  GemmCase uniform(w);  // uniform int8 weights: about a quarter of the pairs clip
  ASSERT_GT(clipped_weight_pair_share(uniform.b.data(), 320, 96, 96), kMaxClippedWeightPairShare);
  const PreparedGemm fallen = uniform.prepare(rt, 1);
  EXPECT_EQ(fallen.selection().source, ConfigSource::heuristic);
  EXPECT_FALSE(isa_clips_weight_pairs(fallen.config().isa));
  EXPECT_NE(fallen.selection().reason.find("clip"), std::string::npos) << fallen.selection().reason;
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find(to_string(*isa)), std::string::npos) << warnings.messages[0];
  EXPECT_EQ(uniform.run(fallen), uniform.reference());

  GemmCase small(w);
  small.b = small_weights(small.b);
  const PreparedGemm tuned = small.prepare(rt, 1);
  EXPECT_EQ(tuned.selection().source, ConfigSource::tuned);
  EXPECT_EQ(tuned.config().isa, *isa);
  EXPECT_EQ(small.run(tuned), small.reference());
}

TEST(ClippedWeightsFallback, ConvolutionWeightsAreJudgedAsTheirGemm) {
  const auto isa = clipping_isa();
  if (!isa) GTEST_SKIP() << "no family that clips weight pairs is usable here";
  WarningCollector warnings;
  const Workload w = conv_workload(14, 32, 48, 3, 1, 1);
  Conv2dConfig c;
  c.algo = ConvAlgo::implicit;
  c.gemm = to_gemm_config(clipping_config(*isa));
  const Runtime rt =
      Runtime::from_entries({{w.key(), current_target_key(), from_conv2d_config(c).key(), 1.0}}, warnings.options());

  ConvCase uniform(w);
  const PreparedConv2d fallen = uniform.prepare(rt, 1);
  EXPECT_EQ(fallen.selection().source, ConfigSource::heuristic);
  EXPECT_EQ(uniform.run(fallen), uniform.reference());

  ConvCase small(w);
  small.weights = small_weights(small.weights);
  const PreparedConv2d tuned = small.prepare(rt, 1);
  EXPECT_EQ(tuned.selection().source, ConfigSource::tuned) << tuned.selection().reason;
  EXPECT_EQ(tuned.config().gemm.isa, *isa);
  EXPECT_EQ(small.run(tuned), small.reference());
}

}  // namespace
}  // namespace qtune::runtime
