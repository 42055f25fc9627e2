// GemmProblem validation, the configuration checks and default, the public microkernel list, and
// GemmOp (a thin wrapper around the driver's GemmEngine).
#include "qtune/kernels/gemm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gemm/gemm_driver.h"
#include "dispatch/isa_table.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/limits.h"

namespace qtune {
namespace {

constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;
constexpr int kMaxThreads = 256;

void fail(const std::string& message) { throw std::invalid_argument("gemm problem: " + message); }

std::pair<std::int32_t, std::int32_t> range_of(DType type) {
  return type == DType::u8 ? std::pair{0, 255} : std::pair{-128, 127};
}

std::string tile_name(int mr, int nr) { return std::to_string(mr) + "x" + std::to_string(nr); }

}  // namespace

bool GemmProblem::b_zero_point_nonzero() const {
  return std::any_of(b_zero_points.begin(), b_zero_points.end(), [](std::int32_t z) { return z != 0; });
}

void GemmProblem::validate() const {
  if (m < 1 || m >= kMaxDim) fail("m must be in [1, 2^31), got " + std::to_string(m));
  if (n < 1 || n >= kMaxDim) fail("n must be in [1, 2^31), got " + std::to_string(n));
  if (k < 1 || k >= kMaxDim) fail("k must be in [1, 2^31), got " + std::to_string(k));
  if (const std::string problem = size_problem(*this); !problem.empty()) fail(problem);
  if (a_type != DType::u8 && a_type != DType::s8) fail("a_type must be u8 or s8, got " + std::string(to_string(a_type)));
  const auto [a_lo, a_hi] = range_of(a_type);
  if (a_zero_point < a_lo || a_zero_point > a_hi) {
    fail("a_zero_point " + std::to_string(a_zero_point) + " is outside the range of " +
         std::string(to_string(a_type)) + " [" + std::to_string(a_lo) + ", " + std::to_string(a_hi) + "]");
  }
  if (b_zero_points.size() != 1 && b_zero_points.size() != static_cast<std::size_t>(n)) {
    fail("b_zero_points must have 1 or n = " + std::to_string(n) + " entries, got " +
         std::to_string(b_zero_points.size()));
  }
  for (std::size_t i = 0; i < b_zero_points.size(); ++i) {
    if (b_zero_points[i] < -128 || b_zero_points[i] > 127) {
      fail("b_zero_points[" + std::to_string(i) + "] = " + std::to_string(b_zero_points[i]) +
           " is outside [-128, 127]");
    }
  }
  if (out_type == DType::s32) return;
  if (out_type != DType::u8 && out_type != DType::s8) fail("out_type must be s32, u8 or s8");
  const std::size_t channels = requant.scales.size();
  if (channels != 1 && channels != static_cast<std::size_t>(n)) {
    fail("requant must have 1 or n = " + std::to_string(n) + " scales, got " + std::to_string(channels));
  }
  if (const std::string problem = requant.check(out_type); !problem.empty()) fail(problem);
}

const std::vector<GemmMicrokernelInfo>& gemm_microkernels() {
  static const std::vector<GemmMicrokernelInfo> list = [] {
    std::vector<GemmMicrokernelInfo> out;
    for (const auto& uk : detail::gemm_ukernel_registry()) out.push_back({uk.isa, uk.mr, uk.nr, uk.kr, uk.name});
    return out;
  }();
  return list;
}

std::vector<GemmPeakLoop> gemm_peak_loops() {
  std::vector<GemmPeakLoop> out;
  for (const detail::GemmDotPeak& peak : detail::gemm_dot_peak_registry()) {
    if (cpu_features().usable(peak.isa)) out.push_back({peak.isa, peak.instruction});
  }
  return out;
}

std::uint64_t run_gemm_peak_loop(Isa isa, std::size_t iterations) {
  for (const detail::GemmDotPeak& peak : detail::gemm_dot_peak_registry()) {
    if (peak.isa == isa && cpu_features().usable(isa)) return peak.loop(iterations);
  }
  throw std::invalid_argument("no peak loop for isa " + std::string(to_string(isa)) + " on this CPU");
}

std::string gemm_check_config(const GemmProblem& problem, const GemmConfig& config) {
  try {
    problem.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  const std::string isa(to_string(config.isa));
  std::vector<const detail::GemmUkernel*> family;
  for (const auto& uk : detail::gemm_ukernel_registry()) {
    if (uk.isa == config.isa) family.push_back(&uk);
  }
  if (family.empty()) return "no gemm microkernels for isa " + isa + " in this build";
  if (!cpu_features().usable(config.isa)) return "isa " + isa + " is not usable on this CPU";
  const detail::GemmUkernel* uk = detail::find_gemm_ukernel(config.isa, config.mr, config.nr);
  if (uk == nullptr) {
    std::string tiles;
    for (const auto* f : family) tiles.append(" ").append(tile_name(f->mr, f->nr));
    return "no " + tile_name(config.mr, config.nr) + " tile for " + isa + "; tiles:" + tiles;
  }
  if (config.kc < 0 || config.kc % uk->kr != 0) {
    return "kc=" + std::to_string(config.kc) + " is not a multiple of the k group " + std::to_string(uk->kr) +
           " (0 = whole K)";
  }
  if (config.mc < 0) return "mc=" + std::to_string(config.mc) + " is negative (0 = whole M)";
  if (config.nc < 0) return "nc=" + std::to_string(config.nc) + " is negative (0 = whole N)";
  if (!config.pack_a && !uk->a_in_place) {
    return "pack_a=0 is not supported by " + isa + ": A must be widened to int16";
  }
  if (config.threads < 1 || config.threads > kMaxThreads) {
    return "threads=" + std::to_string(config.threads) + " must be in [1, " + std::to_string(kMaxThreads) + "]";
  }
  return "";
}

// Best usable ISA (never scalar when a vector family runs), its workhorse tile, and cache blocking
// from the cache sizes. K is only blocked when one B panel's K block would exceed a quarter of L2:
// splitting K costs a round trip of the accumulators through memory per block, which measured
// slower than streaming a B panel larger than L1 from L2 (the panel is read sequentially and
// prefetched). The A block (mc x kc) takes another quarter of L2 and is reused across the N panels.
//
// A is read in place where the family can: broadcasting A groups straight from the rows measured
// faster than packing them on every shape of the x86 benchmark set (packing is a full extra pass
// over A per call). Among a family's workhorse tiles the one that computes the fewest padded
// outputs (rows and columns of the last tiles) wins: N = 144 takes 8x48, not 12x32 with a
// half-empty last panel; ties go to the earlier, wider tile (fewer broadcasts per vpdpbusd).
// M = 1 takes the family's single-row tile where it has one (AVX-512: 1x64): a 4x64 tile computes
// its other three rows as repeats of the one (docs/measurements.md, "Default GEMM configuration").
// (The single-row tile is not among the workhorses: it pads no row of any M, and would win them all.)
GemmConfig gemm_default_config(const GemmProblem& problem) {
  const CpuFeatures& cpu = cpu_features();
  GemmConfig config;
  const detail::GemmUkernel* uk = nullptr;
  auto padding = [&](const detail::GemmUkernel& k) {
    return (problem.m + k.mr - 1) / k.mr * k.mr * ((problem.n + k.nr - 1) / k.nr * k.nr) - problem.m * problem.n;
  };
  // The first usable instruction set of the table, with its tile that pads M and N least.
  for (const detail::IsaRow& row : detail::isa_table()) {
    if (!cpu.usable(row.isa)) continue;
    if (problem.m < row.default_min_m || problem.n < row.default_min_n || problem.k < row.default_min_k) continue;
    for (detail::GemmTile tile : row.gemm_tiles) {
      if (problem.n <= row.narrow_n) tile = row.narrow_tile;
      if (problem.m == 1 && row.single_row_tile.mr != 0) tile = row.single_row_tile;
      const detail::GemmUkernel* candidate = detail::find_gemm_ukernel(row.isa, tile.mr, tile.nr);
      if (candidate != nullptr && (uk == nullptr || padding(*candidate) < padding(*uk))) uk = candidate;
    }
    if (uk != nullptr) break;
  }
  if (uk == nullptr) uk = &detail::gemm_ukernel_registry().front();
  config.isa = uk->isa;
  config.mr = uk->mr;
  config.nr = uk->nr;
  const std::int64_t l2 = cpu.l2_bytes > 0 ? cpu.l2_bytes : 512 * 1024;
  const std::int64_t b_bytes_per_k = uk->nr_stride * static_cast<std::int64_t>(detail::packed_b_elem_bytes(uk->b_format));
  const std::int64_t a_bytes_per_k = static_cast<std::int64_t>(detail::packed_a_elem_bytes(uk->a_format));
  std::int64_t kc = std::max<std::int64_t>(uk->kr, (l2 / 4) / b_bytes_per_k / uk->kr * uk->kr);
  const std::int64_t k_rounded = (problem.k + uk->kr - 1) / uk->kr * uk->kr;
  if (kc >= k_rounded) {
    kc = 0;
  } else {
    // Equal K blocks rather than a short last one.
    const std::int64_t blocks = (k_rounded + kc - 1) / kc;
    kc = ((k_rounded + blocks - 1) / blocks + uk->kr - 1) / uk->kr * uk->kr;
  }
  const std::int64_t kc_eff = kc == 0 ? k_rounded : kc;
  std::int64_t mc = std::max<std::int64_t>(uk->mr, (l2 / 4) / (kc_eff * a_bytes_per_k) / uk->mr * uk->mr);
  // When a row of C outweighs its row of A (small K: pointwise convolutions), the block's A rows
  // and C rows should stay in L1 while every N panel passes over them: half of L1 for both
  // (docs/measurements.md, "Default GEMM configuration").
  const std::int64_t out_bytes = problem.out_type == DType::s32 ? 4 : 1;
  if (kc_eff * a_bytes_per_k < problem.n * out_bytes) {
    const std::int64_t l1 = cpu.l1d_bytes > 0 ? cpu.l1d_bytes : 32 * 1024;
    const std::int64_t rows = (l1 / 2) / (kc_eff * a_bytes_per_k + problem.n * out_bytes);
    mc = std::min(mc, std::max<std::int64_t>(uk->mr, rows / uk->mr * uk->mr));
  }
  if (mc >= problem.m) {
    mc = 0;
  } else {
    // Equal M blocks rather than a short last one (256 rows: 132 + 124, not 252 + 4).
    const std::int64_t blocks = (problem.m + mc - 1) / mc;
    mc = ((problem.m + blocks - 1) / blocks + uk->mr - 1) / uk->mr * uk->mr;
  }
  config.kc = static_cast<int>(kc);
  config.mc = static_cast<int>(std::min<std::int64_t>(mc, std::numeric_limits<int>::max() / 2 / uk->mr * uk->mr));
  config.nc = 0;
  config.pack_a = !uk->a_in_place;
  config.fuse_requant = true;
  config.threads = 1;
  return config;
}

struct GemmOp::Impl {
  detail::GemmEngine engine;
  Impl(const GemmProblem& problem, const GemmConfig& config, const std::int8_t* b, std::size_t ldb,
       const std::int32_t* bias)
      : engine(problem, config, b, ldb, bias) {}
};

GemmOp GemmOp::prepare(const GemmProblem& problem, const GemmConfig& config, const std::int8_t* b, std::size_t ldb,
                       const std::int32_t* bias) {
  return GemmOp(std::make_unique<Impl>(problem, config, b, ldb, bias));
}

void GemmOp::run(const void* a, std::size_t lda, void* c, std::size_t ldc) const {
  impl_->engine.run(detail::GemmASource::dense(a, lda), c, ldc);
}

const GemmProblem& GemmOp::problem() const { return impl_->engine.problem(); }
const GemmConfig& GemmOp::config() const { return impl_->engine.config(); }
std::size_t GemmOp::packed_weight_bytes() const { return impl_->engine.packed_weight_bytes(); }

GemmOp::GemmOp(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GemmOp::GemmOp(GemmOp&&) noexcept = default;
GemmOp& GemmOp::operator=(GemmOp&&) noexcept = default;
GemmOp::~GemmOp() = default;

}  // namespace qtune
