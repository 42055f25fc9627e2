#include "gemm/gemm_task_plan.h"

#include <algorithm>

#include "gemm/gemm_driver.h"

namespace qtune::detail {

GemmTaskPlan plan_gemm_task(const GemmUkernel& uk, const GemmProblem& problem, const GemmConfig& config,
                            std::size_t kc_groups, std::size_t nc, bool segmented) {
  using APanels = GemmTaskPlan::APanels;
  using RowTerms = GemmTaskPlan::RowTerms;
  const auto whole = [](std::size_t a, std::size_t b) { return (a + b - 1) / b; };
  const auto k = static_cast<std::size_t>(problem.k), n = static_cast<std::size_t>(problem.n);
  const auto mr = static_cast<std::size_t>(uk.mr), nr = static_cast<std::size_t>(uk.nr);
  const std::size_t k_groups = whole(k, static_cast<std::size_t>(uk.kr));
  GemmTaskPlan plan;
  plan.a_panels = config.pack_a                ? APanels::packed
                  : !segmented                 ? APanels::rows_in_place
                  : uk.fn_segments != nullptr  ? APanels::segments_in_kernel
                                               : APanels::segments_in_place;
  const bool segments_in_kernel = plan.a_panels == APanels::segments_in_kernel;
  plan.k_blocks = segments_in_kernel ? 1 : whole(k_groups, kc_groups);
  plan.block_groups = segments_in_kernel ? k_groups : kc_groups;
  plan.kernel = segments_in_kernel ? uk.fn_segments : uk.fn;
  plan.epilogue = problem.out_type != DType::s32 && !config.fuse_requant ? GemmTaskPlan::Epilogue::separate
                                                                          : GemmTaskPlan::Epilogue::fused;
  if (problem.b_zero_point_nonzero()) {
    plan.row_terms = plan.a_panels == APanels::packed ? RowTerms::while_packing
                     : plan.k_blocks > 1              ? RowTerms::before_tiles
                                                      : RowTerms::ahead_of_groups;
  }
  plan.group_panels = whole(std::clamp<std::size_t>(8192 / std::max<std::size_t>(k, 1), 16, 256), mr);
  plan.panels_per_call = plan.k_blocks == 1 ? plan.group_panels : 1;
  if (plan.a_panels == APanels::rows_in_place && plan.row_terms == RowTerms::ahead_of_groups &&
      uk.fn_row_sums != nullptr) {
    const std::size_t last_block_cols = n - (whole(n, nc) - 1) * nc;
    plan.tile_sums_rows = tile_row_sums_pay(k, whole(nc, nr));
    plan.last_block_tile_sums_rows = tile_row_sums_pay(k, whole(last_block_cols, nr));
  }
  return plan;
}

}  // namespace qtune::detail
