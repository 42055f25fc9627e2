// The registry of GEMM microkernels compiled into this build: the lists of the instruction-set
// table's rows (dispatch/isa_table.cc), in its order.
#include <vector>

#include "gemm/gemm_ukernel.h"
#include "dispatch/isa_table.h"

namespace qtune::detail {

std::span<const GemmUkernel> gemm_ukernel_registry() {
  static const std::vector<GemmUkernel> all = [] {
    std::vector<GemmUkernel> out;
    for (const IsaRow& row : isa_table()) {
      if (row.gemm == nullptr) continue;
      const std::span<const GemmUkernel> family = row.gemm();
      out.insert(out.end(), family.begin(), family.end());
    }
    return out;
  }();
  return all;
}

std::span<const GemmDotPeak> gemm_dot_peak_registry() {
  static const std::vector<GemmDotPeak> all = [] {
    std::vector<GemmDotPeak> out;
    for (const IsaRow& row : isa_table()) {
      if (row.dot_peak != nullptr) out.push_back(row.dot_peak());
    }
    return out;
  }();
  return all;
}

const GemmUkernel* find_gemm_ukernel(Isa isa, int mr, int nr) {
  for (const GemmUkernel& uk : gemm_ukernel_registry()) {
    if (uk.isa == isa && uk.mr == mr && uk.nr == nr) return &uk;
  }
  return nullptr;
}

}  // namespace qtune::detail
