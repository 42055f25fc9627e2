// The workload of a concrete problem, its normalized lookup key, its family, and the documented
// shape distance with its deterministic tie-break.
#include <gtest/gtest.h>

#include "qtune/runtime/shape_distance.h"
#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

TEST(WorkloadOf, RoundTripsTheWorkloadsOwnProblems) {
  for (const Workload& base : {gemm_workload(49, 128, 576, 4), conv_workload(28, 32, 64, 3, 2, 1),
                               conv_workload(14, 64, 64, 3, 1, 1, 64)}) {
    for (bool azp : {false, true})
      for (bool bzp : {false, true})
        for (bool channel : {false, true})
          for (DType out : {DType::s8, DType::u8})
            for (bool relu : {false, true}) {
              Workload w = base;
              w.quant.a_zero_point_nonzero = azp;
              w.quant.b_zero_point_nonzero = bzp;
              w.quant.per_channel = channel;
              w.quant.out_type = out;
              w.quant.rounding = RoundingMode::upward;
              w.quant.relu = relu;
              const Workload derived = w.op == OpKind::gemm ? workload_of(w.gemm_problem(3), w.threads)
                                                            : workload_of(w.conv2d_problem(3), w.threads);
              EXPECT_EQ(derived.key(), w.key());
              EXPECT_EQ(lookup_key(derived), w.key());
            }
  }
}

// A problem whose output range starts at its zero point is a fused ReLU's, whatever produced it;
// its family is the plain layer's, so that a database tuned without the field (an earlier qtune's)
// still serves it through the nearest configuration.
TEST(WorkloadOf, AZeroPointAtTheBottomOfTheRangeIsAFusedRelu) {
  Workload plain = conv_workload(28, 32, 64, 3, 1, 1);
  plain.quant.out_type = DType::u8;
  Conv2dProblem p = plain.conv2d_problem();
  ASSERT_LT(p.requant.qmin, p.requant.output_zero_point);
  EXPECT_FALSE(workload_of(p, 1).quant.relu);
  p.requant.output_zero_point = p.requant.qmin;
  const Workload relu = workload_of(p, 1);
  EXPECT_TRUE(relu.quant.relu);
  EXPECT_NE(lookup_key(relu), lookup_key(plain));
  EXPECT_EQ(family_key(relu), family_key(plain));
  p.out_type = DType::s32;
  EXPECT_FALSE(workload_of(p, 1).quant.relu) << "no requantization, no range";
}

TEST(WorkloadOf, Int32OutputsIgnoreRoundingAndUnusedPerChannel) {
  Workload a = gemm_workload(8, 8, 8);
  a.quant.out_type = DType::s32;
  a.quant.b_zero_point_nonzero = false;
  a.quant.per_channel = false;
  a.quant.rounding = RoundingMode::fp32;
  Workload b = a;
  b.quant.per_channel = true;
  b.quant.rounding = RoundingMode::tflite;
  EXPECT_NE(a.key(), b.key());
  EXPECT_EQ(lookup_key(a), lookup_key(b));
  EXPECT_EQ(lookup_key(workload_of(a.gemm_problem(), 1)), lookup_key(b));
  // With nonzero weight zero points per-channel-ness matters again.
  a.quant.b_zero_point_nonzero = b.quant.b_zero_point_nonzero = true;
  EXPECT_NE(lookup_key(a), lookup_key(b));
}

TEST(WorkloadOf, RejectsBadProblemsAndBudgets) {
  GemmProblem p = gemm_workload(4, 4, 4).gemm_problem();
  EXPECT_THROW(workload_of(p, 0), std::invalid_argument);
  p.k = 0;
  EXPECT_THROW(workload_of(p, 1), std::invalid_argument);
}

TEST(FamilyKey, SeparatesOperatorsQuantKindsAndConvStructure) {
  EXPECT_EQ(family_key(gemm_workload(1, 2, 3, 1)), family_key(gemm_workload(100, 200, 300, 8)));
  Workload u8 = gemm_workload(1, 2, 3);
  u8.quant.out_type = DType::u8;
  EXPECT_NE(family_key(u8), family_key(gemm_workload(1, 2, 3)));
  const Workload dense = conv_workload(14, 32, 32, 3, 1, 1);
  const Workload depthwise = conv_workload(14, 32, 32, 3, 1, 1, 32);
  const Workload grouped = conv_workload(14, 32, 32, 3, 1, 1, 4);
  EXPECT_NE(family_key(dense), family_key(depthwise));
  EXPECT_NE(family_key(dense), family_key(grouped));
  EXPECT_NE(family_key(depthwise), family_key(grouped));
  EXPECT_EQ(family_key(dense), family_key(conv_workload(56, 64, 128, 1, 1, 0)));
}

TEST(ShapeDistance, SumsAbsoluteLog2Ratios) {
  EXPECT_DOUBLE_EQ(shape_distance(gemm_workload(64, 64, 64), gemm_workload(64, 64, 64)), 0.0);
  EXPECT_DOUBLE_EQ(shape_distance(gemm_workload(64, 64, 64), gemm_workload(128, 32, 64)), 2.0);
  EXPECT_DOUBLE_EQ(shape_distance(gemm_workload(64, 64, 64), gemm_workload(64, 64, 512)), 3.0);
  // conv: 14x14 -> 7x7 output (M / 4: 2), stride 1 -> 2 (stride product 1 -> 4: 2).
  EXPECT_DOUBLE_EQ(shape_distance(conv_workload(14, 32, 48, 3, 1, 1), conv_workload(14, 32, 48, 3, 2, 1)), 4.0);
  // Kernel 3x3 -> 1x1: K / 9 and window / 9.
  EXPECT_NEAR(shape_distance(conv_workload(14, 32, 48, 3, 1, 1), conv_workload(14, 32, 48, 1, 1, 0)),
              2 * std::log2(9.0), 1e-12);
  EXPECT_THROW(shape_distance(gemm_workload(1, 1, 1), conv_workload(4, 1, 1, 1, 1, 0)), std::invalid_argument);
}

TEST(ShapeDistance, TiesBreakByThreadsThenKey) {
  const Workload query = gemm_workload(64, 64, 64, 4);
  const Workload bigger_m = gemm_workload(128, 64, 64, 4), bigger_n = gemm_workload(64, 128, 64, 4);
  // Equal distance and threads: the smaller key wins, whatever the argument order.
  const bool m_first = bigger_m.key() < bigger_n.key();
  EXPECT_EQ(nearer(query, bigger_m, bigger_n), m_first);
  EXPECT_EQ(nearer(query, bigger_n, bigger_m), !m_first);
  // Equal distance, closer thread budget wins.
  EXPECT_TRUE(nearer(query, gemm_workload(64, 64, 128, 4), gemm_workload(64, 64, 128, 1)));
  // Distance first.
  EXPECT_TRUE(nearer(query, gemm_workload(64, 64, 128, 1), gemm_workload(64, 64, 512, 4)));
}

}  // namespace
}  // namespace qtune::runtime
