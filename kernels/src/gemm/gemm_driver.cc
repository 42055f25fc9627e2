// The GEMM driver. Loop nest of one task (an mc x nc block of C), Goto-style with B prepacked:
//   for each K block (kc):       pack the task's A rows for this K block into MR panels (or read
//                                A in place); the packed block (mc x kc) stays in L2
//     for each NR panel of B:    the panel's K block (kc x nr) stays in L1 ...
//       for each MR panel of A:  ... while the microkernel walks every M panel over it
// K blocks after the first accumulate through an int32 partial buffer (per task); the epilogue
// runs on the last K block. With separate requantization the last block writes int32 C into a dense
// buffer and the standalone requantize kernel turns the task's block into u8/s8.
//
// Threads: tasks are (M block, N block) pairs run by the persistent pool, each thread a contiguous
// run of them before it helps the others. On several threads they are numbered N-major, so that
// where the blocking splits both sides each thread takes its own N blocks (its part of the packed
// weights, which a tuned nc < N says are worth splitting) over every M block, not each thread over
// whole M blocks and all of the packed weights (docs/measurements.md, "GEMM driver"). On one thread
// M-major: an A block is reused across the N blocks. Where the blocking leaves fewer tasks than
// threads, the split takes the longer side: M (every thread then reads the same shared, read-only
// packed B and packs only its own A rows), or N at NR-panel granularity where N is longer or M has
// too few rows for every thread (every thread then reads all of A, the smaller operand, instead of
// all of B), unless N's panels share out less evenly among the threads than M's tiles.
#include "gemm/gemm_driver.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "gemm/gemm_pack.h"
#include "gemm/row_term_scaling.h"
#include "dispatch/isa_table.h"
#include "platform/strided_rows.h"
#include "platform/thread_pool.h"
#include "quant/requant_plan.h"
#include "requantize/requantize_internal.h"

namespace qtune::detail {

// Outside the anonymous namespace: GemmEngine::State, which has external linkage, holds one.
struct AlignedFree {
  void operator()(std::uint8_t* p) const { std::free(p); }
};

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
std::size_t round_up(std::size_t a, std::size_t b) { return ceil_div(a, b) * b; }

// Per-thread scratch, reused across calls (GemmEngine::run is const and may run concurrently).
struct Scratch {
  std::vector<std::uint8_t> a_panels;
  std::vector<std::uint8_t> staging;  // indirect A rows gathered for one panel
  std::vector<std::int32_t> partial;
  std::vector<std::int32_t> result;  // separate requantization: the block's int32 C, dense columns
  std::vector<std::int32_t> row_terms;
  std::vector<const std::uint8_t*> rows;
  std::vector<const std::uint8_t*> panel_rows;  // in place: one M panel's row pointers at a K block
  std::vector<const std::uint8_t*> segment_rows;  // segmented A: the task's rows at one segment
  // Segmented A with live segments: each M panel's span of them, and its rows at the span's start.
  std::vector<GemmASource::SegmentRange> panel_spans;
  std::vector<const std::uint8_t*> live_rows;
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The requantization parameters of channels [first, first + count).
RequantParams slice_channels(const RequantParams& p, std::size_t first, std::size_t count) {
  RequantParams out = p;
  auto slice = [&](auto& v) { v.assign(v.begin() + static_cast<long>(first), v.begin() + static_cast<long>(first + count)); };
  slice(out.scales);
  slice(out.fixed);
  slice(out.scales_f32);
  return out;
}

// The largest |accumulator| the problem can produce: K * max|a - za| * max|w - zb| + max|bias|
// (the zero points' terms in the sums only move them back to this).
double max_abs_accumulator(const GemmProblem& problem, const std::int32_t* bias) {
  double w_span = 0, bias_max = 0;
  for (const std::int32_t zb : problem.b_zero_points) w_span = std::max(w_span, max_abs_offset(DType::s8, zb));
  if (bias != nullptr) {
    for (std::int64_t c = 0; c < problem.n; ++c) bias_max = std::max(bias_max, std::abs(static_cast<double>(bias[c])));
  }
  return static_cast<double>(problem.k) * max_abs_offset(problem.a_type, problem.a_zero_point) * w_span + bias_max;
}

}  // namespace

struct GemmEngine::State {
  GemmProblem problem;
  GemmConfig config;
  const GemmUkernel* uk = nullptr;
  std::size_t m = 0, n = 0, k = 0;
  std::size_t mr = 0, nr = 0, kr = 0, nr_stride = 0;
  std::size_t k_groups_total = 0, kc_groups = 0, k_blocks = 0;
  std::size_t mc = 0, nc = 0, tasks_m = 0, tasks_n = 0;
  std::size_t panel_bytes = 0, packed_bytes = 0;
  std::unique_ptr<std::uint8_t, AlignedFree> packed_b;
  bool zb_nonzero = false;
  // One weight zero point for every column (per-tensor weights): the row terms handed to the
  // microkernels are then already multiplied by it (GemmUkernelArgs::zb_uniform).
  bool zb_uniform = false;
  std::int32_t zb_all = 0;
  bool fold_centred_origin = false;  // the column terms hold X0 less (centred_origin_foldable)
  bool separate = false;  // u8/s8 output through the int32 buffer and the requantize kernel
  std::uint8_t flip = 0;
  UkernelOutput output = UkernelOutput::s32;
  std::optional<RequantPlan> plan;
  RequantConstants plan_constants;        // what the microkernels read of `plan`
  std::vector<RequantPlan> block_plans;  // separate + per-channel: the plan of each N block

  void run_task(const GemmASource& a, std::size_t task, std::uint8_t* c, std::size_t ldc) const;
  void gather_rows(const GemmASource& a, std::size_t m0, std::size_t row_count, std::size_t k0,
                   std::size_t k_bytes, Scratch& s) const;
  void requantize_block(const RequantPlan& block_plan, const std::int32_t* acc, std::size_t rows,
                        std::size_t cols, std::size_t acc_stride, void* out, std::size_t ldc) const;
};

GemmEngine::GemmEngine(const GemmProblem& problem, const GemmConfig& config, const std::int8_t* b, std::size_t ldb,
                       const std::int32_t* bias)
    : state_(std::make_unique<State>()) {
  const std::string why = gemm_check_config(problem, config);
  if (!why.empty()) throw std::invalid_argument(why);
  State& s = *state_;
  s.problem = problem;
  s.config = config;
  s.uk = find_gemm_ukernel(config.isa, config.mr, config.nr);
  s.m = static_cast<std::size_t>(problem.m);
  s.n = static_cast<std::size_t>(problem.n);
  s.k = static_cast<std::size_t>(problem.k);
  if (b == nullptr) throw std::invalid_argument("gemm: b is null");
  if (ldb < s.n) throw std::invalid_argument("gemm: ldb " + std::to_string(ldb) + " < n " + std::to_string(s.n));
  if (problem.has_bias != (bias != nullptr)) {
    throw std::invalid_argument(problem.has_bias ? "gemm: has_bias is set but bias is null"
                                                 : "gemm: bias given but has_bias is false");
  }
  s.mr = static_cast<std::size_t>(s.uk->mr);
  s.nr = static_cast<std::size_t>(s.uk->nr);
  s.kr = static_cast<std::size_t>(s.uk->kr);
  s.nr_stride = static_cast<std::size_t>(s.uk->nr_stride);
  s.k_groups_total = ceil_div(s.k, s.kr);
  s.kc_groups = config.kc == 0 ? s.k_groups_total
                               : std::min(s.k_groups_total, static_cast<std::size_t>(config.kc) / s.kr);
  s.k_blocks = ceil_div(s.k_groups_total, s.kc_groups);

  // Blocking and the thread split (see the top of this file).
  // A block of `block` rows (columns) becomes whole tiles, then the blocks are evened out: 256 rows
  // in blocks of "256" with 6-row tiles are 132 + 124, not 252 + a 4-row straggler.
  auto whole_tiles = [](int block, std::size_t dim, std::size_t tile) {
    const std::size_t all = round_up(dim, tile);
    if (block == 0) return all;
    const std::size_t size = std::min(all, std::max(tile, static_cast<std::size_t>(block) / tile * tile));
    return round_up(ceil_div(dim, ceil_div(dim, size)), tile);
  };
  s.mc = whole_tiles(config.mc, s.m, s.mr);
  s.nc = whole_tiles(config.nc, s.n, s.nr);
  const auto threads = static_cast<std::size_t>(config.threads);
  if (threads > 1 && ceil_div(s.m, s.mc) * ceil_div(s.n, s.nc) < threads) {
    // Each thread reads the whole of the operand the split does not divide: packed B when M is
    // split, A when N is. N goes first where it is the longer side (the 7x7 and 14x14 layers of
    // MobileNetV2 and ResNet-50: 49 rows against 1280 columns) unless its tiles share out less
    // evenly than M's, and wherever M is too short. Shares of whole tiles: InceptionV3's
    // 17x17x192 3x3/2 -> 320 has 5 panels of 64 columns (3 and 2 on two threads, 83% of the time
    // in use) and 16 tiles of 4 rows (8 and 8); split along M it ran faster although each thread
    // then reads all of its 550 KB of packed weights (docs/measurements.md, "GEMM driver").
    const auto evenness = [&](std::size_t tiles) {
      return static_cast<double>(tiles) / static_cast<double>(threads * ceil_div(tiles, threads));
    };
    const bool split_m = s.m >= threads * s.mr && (s.m >= s.n || s.n < threads * s.nr ||
                                                   evenness(ceil_div(s.m, s.mr)) > evenness(ceil_div(s.n, s.nr)));
    if (split_m) {
      s.mc = std::min(s.mc, round_up(ceil_div(s.m, threads), s.mr));
    } else {
      const std::size_t n_parts = ceil_div(threads, ceil_div(s.m, s.mc));
      s.nc = std::min(s.nc, std::max(s.nr, round_up(ceil_div(s.n, n_parts), s.nr)));
    }
  }
  if (threads > 1 && s.m >= threads * s.mr) {
    // Equal shares: a task count that is a multiple of the thread count (3 blocks on 2 threads
    // would leave one thread idle a third of the time), in blocks of whole tiles. Of the two
    // nearest such counts (at or above the blocking's, one step below) the one whose busiest
    // thread has the fewest tiles: InceptionV3's 17x17 layers (58 tiles of 5 rows, mc 128) in
    // 4 blocks of 15 tiles left one thread 30 tiles and the other 28, in 2 blocks of 29 none
    // idle (docs/measurements.md, "GEMM driver").
    const std::size_t blocks = ceil_div(s.m, s.mc) * ceil_div(s.n, s.nc);
    if (blocks % threads != 0) {
      const std::size_t n_blocks = ceil_div(s.n, s.nc);
      const std::size_t step = threads / std::gcd(threads, n_blocks);
      const std::size_t tiles = ceil_div(s.m, s.mr);
      const auto busiest = [&](std::size_t m_blocks) {
        const std::size_t block_tiles = ceil_div(tiles, m_blocks);
        return ceil_div(ceil_div(tiles, block_tiles) * n_blocks, threads) * block_tiles;
      };
      std::size_t m_blocks = round_up(ceil_div(s.m, s.mc), step);
      if (m_blocks > step && busiest(m_blocks - step) < busiest(m_blocks)) m_blocks -= step;
      s.mc = std::max(s.mr, ceil_div(tiles, m_blocks) * s.mr);
    }
  }
  s.tasks_m = ceil_div(s.m, s.mc);
  s.tasks_n = ceil_div(s.n, s.nc);

  s.zb_nonzero = problem.b_zero_point_nonzero();
  s.zb_uniform = problem.b_zero_points.size() == 1;
  s.zb_all = problem.b_zero_points.front();
  s.flip = packed_a_flip(*s.uk, problem);
  s.separate = problem.out_type != DType::s32 && !config.fuse_requant;
  s.output = problem.out_type == DType::s32 || s.separate ? UkernelOutput::s32
             : problem.out_type == DType::u8              ? UkernelOutput::u8
                                                          : UkernelOutput::s8;
  if (problem.out_type != DType::s32) {
    const FloatForms forms = float_forms(config.isa);
    s.plan = RequantPlan::make(problem.requant, forms);
    if (s.plan->mode == kFp32Centred && !s.separate && s.uk->folds_centred_origin) {
      s.fold_centred_origin = centred_origin_foldable(*s.plan, max_abs_accumulator(problem, bias));
      // Where folding is not exact, no centred form: the microkernel has no other.
      if (!s.fold_centred_origin) s.plan = RequantPlan::make(problem.requant, FloatForms::round_to_nearest);
    }
    s.plan_constants = s.plan->constants();
    if (s.separate && problem.requant.per_channel()) {
      for (std::size_t t = 0; t < s.tasks_n; ++t) {
        const std::size_t first = t * s.nc;
        s.block_plans.push_back(
            RequantPlan::make(slice_channels(problem.requant, first, std::min(s.nc, s.n - first)), forms));
      }
    }
  }

  s.panel_bytes = gemm_b_panel_bytes(*s.uk, s.k_groups_total);
  s.packed_bytes = ceil_div(s.n, s.nr) * s.panel_bytes;
  s.packed_b.reset(static_cast<std::uint8_t*>(std::aligned_alloc(64, s.packed_bytes)));
  if (!s.packed_b) throw std::bad_alloc();
  pack_b(*s.uk, problem, b, ldb, bias, s.packed_b.get());
  if (s.fold_centred_origin) {
    // The accumulators start from the column terms: less X0, they end at acc - X0.
    for (std::size_t col = 0; col < s.n; ++col) {
      auto* col_terms = reinterpret_cast<std::int32_t*>(s.packed_b.get() + col / s.nr * s.panel_bytes);
      const auto origin = static_cast<std::int32_t>(s.plan->fp32_origin[s.plan->index(col)]);
      col_terms[col % s.nr] = static_cast<std::int32_t>(static_cast<std::uint32_t>(col_terms[col % s.nr]) -
                                                        static_cast<std::uint32_t>(origin));
    }
  }
}

GemmEngine::~GemmEngine() = default;

const GemmProblem& GemmEngine::problem() const { return state_->problem; }
const GemmConfig& GemmEngine::config() const { return state_->config; }
const GemmUkernel& GemmEngine::ukernel() const { return *state_->uk; }
std::size_t GemmEngine::packed_weight_bytes() const { return state_->packed_bytes; }

bool GemmEngine::takes_row_terms() const { return state_->zb_nonzero && !state_->config.pack_a; }

void GemmEngine::row_terms_of(const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                              std::int32_t* terms) const {
  accumulate_a_row_terms(state_->uk->a_format, state_->flip, rows, count, k_bytes, terms);
}

bool GemmEngine::dense_row_terms_of(const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                                    std::int32_t* terms) const {
  return accumulate_dense_row_terms(state_->uk->a_format, state_->flip, first, count, row_bytes, terms);
}

std::string GemmEngine::check_indirect(const GemmConfig& config) {
  if (!config.pack_a) return "pack_a=0 cannot read an indirection table: indirect A is always packed";
  return "";
}

bool GemmEngine::skips_dead_segments(const GemmProblem& problem, const GemmConfig& config, std::uint8_t dead_byte) {
  const GemmUkernel* uk = find_gemm_ukernel(config.isa, config.mr, config.nr);
  return uk != nullptr && uk->fn_segments != nullptr && !config.pack_a &&
         (dead_byte ^ packed_a_flip(*uk, problem)) == 0;
}

std::string GemmEngine::check_segmented(const GemmConfig& config, std::size_t segment_bytes) {
  if (config.pack_a) return "pack_a=1: rows read in place (kernel-row segments) are never packed";
  const GemmUkernel* uk = find_gemm_ukernel(config.isa, config.mr, config.nr);
  if (uk == nullptr) return "no microkernel " + std::to_string(config.mr) + "x" + std::to_string(config.nr);
  if (!uk->a_in_place) return "the microkernel cannot read A rows in place";
  if (segment_bytes % static_cast<std::size_t>(uk->kr) != 0) {
    return "a kernel row of " + std::to_string(segment_bytes) + " bytes is not a whole number of the microkernel's " +
           std::to_string(uk->kr) + "-byte k groups";
  }
  return "";
}

void GemmEngine::run(const GemmASource& a, void* c, std::size_t ldc) const {
  const State& s = *state_;
  if (c == nullptr) throw std::invalid_argument("gemm: c is null");
  if (ldc < s.n) throw std::invalid_argument("gemm: ldc " + std::to_string(ldc) + " < n " + std::to_string(s.n));
  if (a.is_indirect()) {
    if (const std::string why = check_indirect(s.config); !why.empty()) throw std::invalid_argument(why);
    if (a.ks * a.channels != s.k) {
      throw std::invalid_argument("gemm: indirect A has ks*channels = " + std::to_string(a.ks * a.channels) +
                                  " but k = " + std::to_string(s.k));
    }
  } else if (a.is_segmented()) {
    if (a.a == nullptr) throw std::invalid_argument("gemm: a is null");
    if (s.config.pack_a || s.k % (s.kc_groups * s.kr) != 0) {
      throw std::invalid_argument("gemm: segmented A needs pack_a=0 and K blocks (kc) that divide k");
    }
  } else {
    if (a.a == nullptr) throw std::invalid_argument("gemm: a is null");
    if (a.lda < s.k) throw std::invalid_argument("gemm: lda " + std::to_string(a.lda) + " < k " + std::to_string(s.k));
  }
  auto* c_bytes = static_cast<std::uint8_t*>(c);
  ThreadPool::global().parallel_for(s.tasks_m * s.tasks_n, s.config.threads,
                                    [&](std::size_t task, int) { s.run_task(a, task, c_bytes, ldc); });
}

bool tile_row_sums_pay(std::size_t k, std::size_t n_panels) {
  return n_panels < 6 && k * (16 - 3 * n_panels) > 1152 * n_panels;
}

void panel_live_spans(const GemmASource::SegmentRange* ranges, std::size_t m, std::size_t panel_rows,
                      GemmASource::SegmentRange* spans) {
  for (std::size_t first_row = 0, p = 0; first_row < m; first_row += panel_rows, ++p) {
    std::uint16_t first = std::numeric_limits<std::uint16_t>::max(), end = 0;
    for (std::size_t i = first_row; i < std::min(m, first_row + panel_rows); ++i) {
      if (ranges[i].first >= ranges[i].end) continue;
      first = std::min(first, ranges[i].first);
      end = std::max(end, ranges[i].end);
    }
    spans[p] = first < end ? GemmASource::SegmentRange{first, end} : GemmASource::SegmentRange{0, 1};
  }
}

std::vector<GemmASource::SegmentRange> panel_live_spans(const GemmASource::SegmentRange* ranges, std::size_t m,
                                                        std::size_t panel_rows) {
  std::vector<GemmASource::SegmentRange> spans(ceil_div(m, panel_rows));
  panel_live_spans(ranges, m, panel_rows, spans.data());
  return spans;
}

// Row pointers (s.rows[0..row_count)) to bytes [k0, k0 + k_bytes) of rows m0...: straight into a
// dense A, or gathered from the indirection table into s.staging.
void GemmEngine::State::gather_rows(const GemmASource& a, std::size_t m0, std::size_t row_count, std::size_t k0,
                                    std::size_t k_bytes, Scratch& s) const {
  if (!a.is_indirect()) {
    const auto* base = static_cast<const std::uint8_t*>(a.a);
    for (std::size_t i = 0; i < row_count; ++i) s.rows[i] = base + (m0 + i) * a.lda + k0;
    return;
  }
  s.staging.resize(mr * k_bytes);
  for (std::size_t i = 0; i < row_count; ++i) {
    std::uint8_t* dst = s.staging.data() + i * k_bytes;
    const void* const* table = a.indirection + (m0 + i) * a.ks;
    for (std::size_t kk = k0; kk < k0 + k_bytes;) {
      const std::size_t segment = kk / a.channels, offset = kk % a.channels;
      const std::size_t len = std::min(a.channels - offset, k0 + k_bytes - kk);
      const auto* src = static_cast<const std::uint8_t*>(table[segment]);
      if (table[segment] != a.zero) src += a.a_offset;
      std::memcpy(dst + (kk - k0), src + offset, len);
      kk += len;
    }
    s.rows[i] = dst;
  }
}

void GemmEngine::State::requantize_block(const RequantPlan& block_plan, const std::int32_t* acc, std::size_t rows,
                                         std::size_t cols, std::size_t acc_stride, void* out, std::size_t ldc) const {
  const DType out_type = problem.out_type;
  const RequantConstants constants = block_plan.constants();
  const IsaRow* row = find_isa_row(config.isa);
  if (row != nullptr && row->separate_requantize != nullptr) {
    return row->separate_requantize(row->separate_requantize_unroll, constants, out_type, acc, rows, cols,
                                    acc_stride, out, ldc);
  }
  requantize_rows_scalar(constants, out_type, acc, rows, cols, acc_stride, out, ldc);
}

void GemmEngine::State::run_task(const GemmASource& source, std::size_t task, std::uint8_t* c, std::size_t ldc) const {
  Scratch& s = thread_scratch();
  // On several threads the tasks are N-major (see the top of this file); on one, M-major.
  const bool n_major = config.threads > 1;
  const std::size_t tm = n_major ? task % tasks_m : task / tasks_n, tn = n_major ? task / tasks_m : task % tasks_n;
  const std::size_t m0 = tm * mc, rows_m = std::min(mc, m - m0);
  // The task's own layout of its rows where the source makes one (GemmASource::prepare_task).
  GemmASource prepared;
  if (source.prepare_task != nullptr) {
    const GemmASource::TaskRows rows = source.prepare_task(source.task_context, m0, m0 + rows_m);
    prepared = source;
    prepared.a = rows.base;
    if (rows.row_terms != nullptr) prepared.row_terms = rows.row_terms;
  }
  const GemmASource& a = source.prepare_task != nullptr ? prepared : source;
  const std::size_t n0 = tn * nc, cols_n = std::min(nc, n - n0);
  const std::size_t m_panels = ceil_div(rows_m, mr), n_panels = ceil_div(cols_n, nr);
  const std::size_t out_elem = problem.out_type == DType::s32 ? 4 : 1;
  // Segmented A (kernel rows read in place) whose microkernel walks the segments itself: one call
  // covers every K block (segment), so the accumulators never leave the registers.
  const bool segments_in_kernel = a.is_segmented() && uk->fn_segments != nullptr;
  const std::size_t blocks = segments_in_kernel ? 1 : k_blocks;
  const std::size_t block_groups = segments_in_kernel ? k_groups_total : kc_groups;
  const std::size_t segment_bytes = kc_groups * kr;
  const bool use_partial = blocks > 1;
  const std::size_t partial_stride = n_panels * nr_stride;
  if (use_partial) s.partial.resize(m_panels * mr * partial_stride);
  if (separate) s.result.resize(rows_m * cols_n);
  const bool in_place = !config.pack_a;
  // Row terms given by the caller are copied over every row that is read (the microkernels read
  // only the valid rows of a panel); summed ones accumulate from 0.
  const bool copies_row_terms = in_place && a.row_terms != nullptr;
  // Dense rows of one K block whose microkernel sums them as it reads them (fn_row_sums), where
  // that pays (tile_row_sums_pay).
  const bool tile_sums_rows = in_place && zb_nonzero && blocks == 1 && !a.is_segmented() && !copies_row_terms &&
                              uk->fn_row_sums != nullptr && tile_row_sums_pay(k, n_panels);
  const bool row_terms_apart = zb_nonzero && !tile_sums_rows;
  if (row_terms_apart && copies_row_terms) s.row_terms.resize(m_panels * mr);
  if (row_terms_apart && !copies_row_terms) s.row_terms.assign(m_panels * mr, 0);
  s.rows.resize(std::max(mr, m_panels * mr));

  if (in_place) {
    // Row pointers for every M panel at k = 0; rows past M repeat the last valid row.
    // (Two loops without a min per row: this table is as long as the layer's M, 12544 rows for
    // MobileNetV2's first 1x1 layers, where the loop with the min took a visible share of the
    // layer: docs/measurements.md, "GEMM driver".)
    if (a.is_segmented()) {
      fill_offset_rows(s.rows.data(), static_cast<const std::uint8_t*>(a.a), a.row_offsets + m0, rows_m);
    } else {
      fill_strided_rows(s.rows.data(), static_cast<const std::uint8_t*>(a.a) + m0 * a.lda, a.lda, rows_m);
    }
    for (std::size_t i = rows_m; i < m_panels * mr; ++i) s.rows[i] = s.rows[rows_m - 1];
  }
  // Per-tensor weights (GemmUkernelArgs::zb_uniform): the microkernels take each row's whole term,
  // -rowsum(A') * zb, once the row's sums are complete.
  const auto scale_terms = [&](std::size_t first, std::size_t count) {
    if (zb_uniform) scale_row_terms(s.row_terms.data() + first, s.row_terms.data() + first, count, zb_all);
  };
  // The row terms of rows [first, first + count) of the task, segment by segment where A is.
  const auto sum_rows = [&](std::size_t first, std::size_t count) {
    if (copies_row_terms) {
      const std::int32_t* given = a.row_terms + m0 + first;
      std::int32_t* terms = s.row_terms.data() + first;
      if (zb_uniform) {
        scale_row_terms(terms, given, count, zb_all);
      } else {
        std::copy_n(given, count, terms);
      }
      return;
    }
    if (!a.is_segmented()) {
      // Dense A (lda = K): rows back to back, summed by the dense kernels where one takes them.
      const bool dense = a.lda == k && accumulate_dense_row_terms(uk->a_format, flip, s.rows[first], count, k,
                                                                  s.row_terms.data() + first);
      if (!dense) {
        accumulate_a_row_terms(uk->a_format, flip, s.rows.data() + first, count, k, s.row_terms.data() + first);
      }
      return scale_terms(first, count);
    }
    s.segment_rows.resize(count);
    for (std::size_t kb = 0; kb < k_blocks; ++kb) {
      for (std::size_t i = 0; i < count; ++i) s.segment_rows[i] = s.rows[first + i] + kb * a.segment_stride;
      accumulate_a_row_terms(uk->a_format, flip, s.segment_rows.data(), count, segment_bytes, s.row_terms.data() + first);
    }
    scale_terms(first, count);
  };
  // With several K blocks per tile the row terms need every block's bytes: one pass over the rows
  // first. With one, the row terms of a group of panels of at least 16 rows (the vector row-sum
  // kernels' block) are summed right before the group's first tile, so that its rows come into L1
  // once for both; summed up front for the whole of M they were read from L2 twice.
  if (in_place && zb_nonzero && blocks > 1) sum_rows(0, rows_m);
  // Live segments (GemmASource::live_segments): each M panel runs the span of its rows' live
  // segments, from rows and B advanced to the span's first segment.
  // (m0 is a multiple of mr: the task's panels are panels m0 / mr... of the whole of M.)
  const bool spans = segments_in_kernel && a.live_segments != nullptr && (a.dead_byte ^ flip) == 0;
  const GemmASource::SegmentRange* panel_spans = nullptr;
  if (spans) {
    if (a.live_panels != nullptr && a.live_panel_rows == mr) {
      panel_spans = a.live_panels + m0 / mr;
    } else {
      s.panel_spans.resize(m_panels);
      panel_live_spans(a.live_segments + m0, rows_m, mr, s.panel_spans.data());
      panel_spans = s.panel_spans.data();
    }
    s.live_rows.resize(m_panels * mr);
    for (std::size_t mp = 0; mp < m_panels; ++mp) {
      const std::size_t offset = panel_spans[mp].first * a.segment_stride;
      for (std::size_t i = mp * mr; i < (mp + 1) * mr; ++i) s.live_rows[i] = s.rows[i] + offset;
    }
  }
  const bool sums_rows_ahead = in_place && row_terms_apart && blocks == 1;
  // Groups of M panels of about 8 KiB of A (at least 16 rows, the vector row-sum kernels' block):
  // a group's row sums are summed right before its first tile and are still in L1 for its tiles.
  // Where one K block covers K, up to a group's panels are one microkernel call
  // (GemmUkernelArgs::panels), those with the same span of live segments where panels have spans.
  const std::size_t group_panels = ceil_div(std::clamp<std::size_t>(8192 / std::max<std::size_t>(k, 1), 16, 256), mr);
  const std::size_t panels_per_call = blocks == 1 ? group_panels : 1;
  const auto panels_of_call = [&](std::size_t mp) {
    const std::size_t limit = std::min(panels_per_call, m_panels - mp);
    if (!spans) return limit;
    const GemmASource::SegmentRange span = panel_spans[mp];
    std::size_t panels = 1;
    while (panels < limit && panel_spans[mp + panels].first == span.first && panel_spans[mp + panels].end == span.end) {
      ++panels;
    }
    return panels;
  };
  const std::size_t a_elem = packed_a_elem_bytes(uk->a_format), b_elem = packed_b_elem_bytes(uk->b_format);
  s.panel_rows.resize(mr);

  for (std::size_t kb = 0; kb < blocks; ++kb) {
    const std::size_t g0 = kb * block_groups, groups = std::min(block_groups, k_groups_total - g0);
    const std::size_t k0 = g0 * kr, k_bytes = segments_in_kernel ? segment_bytes : std::min(k - k0, groups * kr);
    const std::size_t a_panel_bytes = groups * mr * kr * a_elem;
    if (!in_place) {
      s.a_panels.resize(m_panels * a_panel_bytes);
      for (std::size_t mp = 0; mp < m_panels; ++mp) {
        const std::size_t count = std::min(mr, rows_m - mp * mr);
        gather_rows(a, m0 + mp * mr, count, k0, k_bytes, s);
        pack_a_panel(*uk, problem.a_type, s.rows.data(), count, k_bytes, groups, s.a_panels.data() + mp * a_panel_bytes,
                     zb_nonzero ? s.row_terms.data() + mp * mr : nullptr);
      }
      if (zb_nonzero && kb + 1 == blocks) scale_terms(0, rows_m);
    }
    for (std::size_t np = 0; np < n_panels; ++np) {
      const std::uint8_t* panel = packed_b.get() + (n0 / nr + np) * panel_bytes;
      const auto* col_terms = reinterpret_cast<const std::int32_t*>(panel);
      GemmUkernelArgs args;
      args.cols = std::min(nr, cols_n - np * nr);
      args.k_groups = groups;
      const std::uint8_t* b_block = panel + 2 * sizeof(std::int32_t) * nr_stride + g0 * nr_stride * kr * b_elem;
      args.b_packed = b_block;
      args.first = kb == 0;
      args.last = kb + 1 == blocks;
      args.partial_stride = partial_stride;
      args.col_terms = col_terms;
      args.col_zb = zb_nonzero ? col_terms + nr_stride : nullptr;
      args.zb_uniform = zb_uniform;
      args.output = output;
      args.plan = plan ? &plan_constants : nullptr;
      args.channel = n0 + np * nr;
      args.a_k_bytes = k_bytes;
      args.a_flip = flip;
      if (segments_in_kernel) {
        args.a_segments = k_blocks;
        args.a_segment_stride = a.segment_stride;
      }
      std::size_t summed_panels = 0;  // (np == 0) panels whose row terms are summed
      for (std::size_t mp = 0; mp < m_panels; mp += args.panels) {
        args.panels = panels_of_call(mp);
        args.rows = std::min(mr, rows_m - (mp + args.panels - 1) * mr);
        for (; sums_rows_ahead && np == 0 && summed_panels < mp + args.panels; summed_panels += group_panels) {
          const std::size_t first = summed_panels * mr, count = std::min(group_panels * mr, rows_m - first);
          sum_rows(first, count);
        }
        if (spans) {
          const GemmASource::SegmentRange span = panel_spans[mp];
          args.a_rows = s.live_rows.data() + mp * mr;
          args.a_segments = span.end - span.first;
          args.k_groups = args.a_segments * kc_groups;
          args.b_packed = b_block + span.first * kc_groups * nr_stride * kr * b_elem;
        } else if (in_place) {
          if (k0 == 0) {
            args.a_rows = s.rows.data() + mp * mr;  // the rows themselves (first or only K block)
          } else {
            const std::size_t offset = a.is_segmented() ? kb * a.segment_stride : k0;
            for (std::size_t i = 0; i < mr; ++i) s.panel_rows[i] = s.rows[mp * mr + i] + offset;
            args.a_rows = s.panel_rows.data();
          }
        } else {
          args.a_packed = s.a_panels.data() + mp * a_panel_bytes;
        }
        args.partial = use_partial ? s.partial.data() + mp * mr * partial_stride + np * nr_stride : nullptr;
        args.row_terms = row_terms_apart ? s.row_terms.data() + mp * mr : nullptr;
        if (separate) {
          args.c = s.result.data() + mp * mr * cols_n + np * nr;
          args.ldc = cols_n;
        } else {
          args.c = c + ((m0 + mp * mr) * ldc + n0 + np * nr) * out_elem;
          args.ldc = ldc;
        }
        (segments_in_kernel ? uk->fn_segments : tile_sums_rows ? uk->fn_row_sums : uk->fn)(args);
      }
    }
  }
  if (separate) {
    const RequantPlan& block_plan = block_plans.empty() ? *plan : block_plans[tn];
    requantize_block(block_plan, s.result.data(), rows_m, cols_n, cols_n, c + (m0 * ldc + n0), ldc);
  }
  if (a.finish_task != nullptr) a.finish_task(a.task_context, m0, m0 + rows_m, n0, n0 + cols_n);
}

}  // namespace qtune::detail
