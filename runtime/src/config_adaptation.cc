// Adapting a neighbour's tuned configuration to a new shape (see config_adaptation.h).
#include "config_adaptation.h"

#include <algorithm>
#include <vector>

namespace qtune::runtime::detail {
namespace {

void fit_blocking(GemmConfig& c, std::int64_t m, std::int64_t n, std::int64_t k, int threads) {
  if (c.kc >= k) c.kc = 0;
  if (c.mc >= m) c.mc = 0;
  if (c.nc >= n) c.nc = 0;
  c.threads = std::clamp(c.threads, 1, threads);
}

void reset_blocking(GemmConfig& c) { c.kc = c.mc = c.nc = 0; }

// Returns the first candidate the check accepts, else the last one with the last message.
template <typename KernelConfig, typename Check>
Adapted<KernelConfig> first_valid(const std::vector<KernelConfig>& candidates, Check check) {
  Adapted<KernelConfig> result{candidates.front(), ""};
  for (const KernelConfig& c : candidates) {
    result = {c, check(c)};
    if (result.problem.empty()) break;
  }
  return result;
}

}  // namespace

Adapted<GemmConfig> adapt_gemm_config(GemmConfig tuned, const GemmProblem& problem, int threads) {
  fit_blocking(tuned, problem.m, problem.n, problem.k, threads);
  GemmConfig unblocked = tuned;
  reset_blocking(unblocked);
  return first_valid<GemmConfig>({tuned, unblocked},
                                 [&](const GemmConfig& c) { return gemm_check_config(problem, c); });
}

Adapted<Conv2dConfig> adapt_conv2d_config(Conv2dConfig tuned, const Conv2dProblem& problem, int threads) {
  const std::int64_t m = problem.batch * problem.out_h() * problem.out_w();
  const std::int64_t groups = problem.groups < 1 ? 1 : problem.groups;
  fit_blocking(tuned.gemm, m, problem.out_c / groups, problem.kernel_h * problem.kernel_w * (problem.in_c / groups),
               threads);
  std::vector<Conv2dConfig> candidates{tuned};
  Conv2dConfig unblocked = tuned;
  reset_blocking(unblocked.gemm);
  candidates.push_back(unblocked);
  if (tuned.algo == ConvAlgo::gemm_1x1) {
    Conv2dConfig indirect = unblocked;
    indirect.algo = ConvAlgo::indirect;
    indirect.gemm.pack_a = true;
    candidates.push_back(indirect);
    Conv2dConfig im2col = unblocked;
    im2col.algo = ConvAlgo::im2col;
    candidates.push_back(im2col);
  }
  if (tuned.algo == ConvAlgo::depthwise) {
    const Conv2dConfig heuristic = conv2d_default_config(problem);
    if (heuristic.algo == ConvAlgo::depthwise && heuristic.gemm.isa == tuned.gemm.isa) {
      Conv2dConfig tiles = tuned;
      tiles.dw_channel_tile = heuristic.dw_channel_tile;
      tiles.dw_width_tile = heuristic.dw_width_tile;
      candidates.push_back(tiles);
    }
  }
  return first_valid<Conv2dConfig>(candidates,
                                   [&](const Conv2dConfig& c) { return conv2d_check_config(problem, c); });
}

}  // namespace qtune::runtime::detail
