// The instruction peak loops behind `qtune bench`'s "of peak" column: one per usable vector
// family, each counting its operations exactly (no timing here: speed is the benchmark's job).
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"

namespace qtune {
namespace {

TEST(GemmPeakLoop, EveryListedFamilyIsUsableAndCountsItsOperations) {
  std::set<Isa> listed;
  for (const GemmPeakLoop& peak : gemm_peak_loops()) {
    EXPECT_TRUE(cpu_features().usable(peak.isa)) << to_string(peak.isa);
    EXPECT_FALSE(peak.instruction.empty());
    EXPECT_TRUE(listed.insert(peak.isa).second) << "listed twice: " << to_string(peak.isa);
    const std::uint64_t one = run_gemm_peak_loop(peak.isa, 1);
    EXPECT_GT(one, 0u);
    EXPECT_EQ(run_gemm_peak_loop(peak.isa, 1000), 1000 * one) << to_string(peak.isa);
    EXPECT_EQ(run_gemm_peak_loop(peak.isa, 0), 0u);
  }
#if defined(__x86_64__)
  // vpdpbusd zmm: 16 chains x 16 lanes x 4 products x 2 operations per round.
  if (cpu_features().usable(Isa::avx512vnni)) {
    EXPECT_EQ(run_gemm_peak_loop(Isa::avx512vnni, 1), 16u * 16 * 4 * 2);
  }
  // vpmaddwd ymm: 12 chains (16 registers less A, B, the product and one more) x 8 lanes x 2
  // products x 2 operations per round.
  if (cpu_features().usable(Isa::avx2)) {
    EXPECT_TRUE(listed.count(Isa::avx2));
    EXPECT_EQ(run_gemm_peak_loop(Isa::avx2, 1), 12u * 8 * 2 * 2);
  }
  // vpmaddwd zmm: 16 chains x 16 lanes x 2 products x 2 operations per round.
  if (cpu_features().usable(Isa::avx512bw)) {
    EXPECT_EQ(run_gemm_peak_loop(Isa::avx512bw, 1), 16u * 16 * 2 * 2);
  }
#endif
}

TEST(GemmPeakLoop, FamiliesWithoutALoopAreAnError) {
  EXPECT_THROW(run_gemm_peak_loop(Isa::scalar, 1), std::invalid_argument);
  EXPECT_THROW(run_gemm_peak_loop(Isa::amx, 1), std::invalid_argument);
}

}  // namespace
}  // namespace qtune
