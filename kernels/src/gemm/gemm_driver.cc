// The GEMM driver. Loop nest of one task (an mc x nc block of C), Goto-style with B prepacked:
//   for each K block (kc):       pack the task's A rows for this K block into MR panels (or read
//                                A in place); the packed block (mc x kc) stays in L2
//     for each NR panel of B:    the panel's K block (kc x nr) stays in L1 ...
//       for each MR panel of A:  ... while the microkernel walks every M panel over it
// K blocks after the first accumulate through an int32 partial buffer (per task); the epilogue
// runs on the last K block. With separate requantization the last block writes int32 C into a dense
// buffer and the standalone requantize kernel turns the task's block into u8/s8.
//
// A task (run_task) is a short sequence of steps, chosen by the engine's plan (gemm_task_plan.h:
// made once, per layout of A) and by what only the task knows (its rows, start_task):
//   start_task               its block of C, its rows (GemmASource::prepare_task), its scratch
//   point_at_rows_in_place   A in place: a row pointer per row of the task
//   make_row_terms           a weight zero point, A in place over several K blocks: every row's
//                            term before the tiles (in one K block run_tiles makes them by groups)
//   start_rows_at_live_spans live segments: each M panel's rows at its span's first segment
//   per K block: a_at_k_block  the task's A at the block: packed (pack_a_block) or rows in place
//                run_tiles     the loops over the NR panels of B and the MR panels of A
//   requantize_task_block    separate requantization; then GemmASource::finish_task
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
#include <span>
#include <stdexcept>
#include <vector>

#include "gemm/gemm_pack.h"
#include "gemm/gemm_task_plan.h"
#include "gemm/pair_clipping.h"
#include "gemm/pair_order.h"
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
  std::vector<const std::uint8_t*> block_rows;  // in place: the task's row pointers at a later K block
  std::vector<const std::uint8_t*> segment_rows;  // segmented A: the task's rows at one segment
  // Segmented A with live segments: each M panel's span of them, and its rows at the span's start.
  std::vector<GemmASource::SegmentRange> panel_spans;
  std::vector<const std::uint8_t*> live_rows;
  std::vector<std::int32_t> corrections;  // clipped weight pairs: one call's (GemmUkernelArgs)
  std::vector<std::int32_t> corrections_by_column;  // their sums by column (ClippedProductsArgs)
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

// One task: its block of C, rows [m0, m0 + rows) x columns [n0, n0 + cols), and what its steps
// share, decided when it starts (GemmEngine::State::start_task).
struct Task {
  const GemmTaskPlan* plan = nullptr;
  GemmASource a;  // with the task's own rows where the source makes them (prepare_task)
  std::size_t tn = 0;  // the N block (its requantization plan where the requantization is separate)
  std::size_t m0 = 0, rows = 0, n0 = 0, cols = 0, m_panels = 0, n_panels = 0;
  // Row terms given by the source (A in place) are copied over every row that is read (the
  // microkernels read only the valid rows of a panel); summed ones accumulate from 0.
  bool row_terms_given = false;
  bool sums_rows_ahead = false;        // the tiles of the first column panel make each group's terms
  std::int32_t* row_terms = nullptr;   // what the tiles add: null without, or where the tiles sum rows
  GemmUkernelFn kernel = nullptr;
  // Live segments (GemmASource::live_segments): each M panel's span, or null where every panel
  // runs every segment.
  const GemmASource::SegmentRange* panel_spans = nullptr;
  std::int32_t* partial = nullptr;  // several K blocks: the accumulators between them
  std::size_t partial_stride = 0;
  // Where the tiles write, tile (mp, np) at out + (mp * mr * out_ld + np * nr) * out_elem: C, or the
  // int32 buffer of separate requantization.
  std::uint8_t* out = nullptr;
  std::size_t out_ld = 0, out_elem = 0;
};

// The task's A at one K block, as its microkernels read it: row pointers (in place, m_panels * mr
// of them) or packed panels (of a_panel_bytes each).
struct KBlock {
  std::size_t g0 = 0, groups = 0, k_bytes = 0;
  bool first = true, last = true;
  const std::uint8_t* const* a_rows = nullptr;
  const std::uint8_t* a_packed = nullptr;
  std::size_t a_panel_bytes = 0;
};

// The M panels one microkernel call at panel mp runs: up to panels_per_call, those with mp's span of
// live segments where panels have spans.
std::size_t panels_in_call(const Task& t, std::size_t mp) {
  const std::size_t limit = std::min(t.plan->panels_per_call, t.m_panels - mp);
  if (t.panel_spans == nullptr) return limit;
  const GemmASource::SegmentRange span = t.panel_spans[mp];
  std::size_t panels = 1;
  while (panels < limit && t.panel_spans[mp + panels].first == span.first &&
         t.panel_spans[mp + panels].end == span.end) {
    ++panels;
  }
  return panels;
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
  PairClipping clipping;  // what a family that clips weight pairs (GemmUkernel::clips_pairs) removed
  bool zb_nonzero = false;
  // One weight zero point for every column (per-tensor weights): the row terms handed to the
  // microkernels are then already multiplied by it (GemmUkernelArgs::zb_uniform).
  bool zb_uniform = false;
  std::int32_t zb_all = 0;
  bool fold_centred_origin = false;  // the column terms hold X0 less (centred_origin_foldable)
  std::uint8_t flip = 0;
  UkernelOutput output = UkernelOutput::s32;
  std::optional<RequantPlan> plan;
  RequantConstants plan_constants;        // what the microkernels read of `plan`
  std::vector<RequantPlan> block_plans;  // separate + per-channel: the plan of each N block
  // How a task runs (gemm_task_plan.h), for A given as rows (dense or an indirection table) and
  // for A given as segmented rows.
  GemmTaskPlan rows_plan, segments_plan;

  // One task, in the steps below (see the top of this file).
  void run_task(const GemmTaskPlan& task_plan, const GemmASource& a, std::size_t task, std::uint8_t* c,
                std::size_t ldc) const;
  Task start_task(const GemmTaskPlan& task_plan, const GemmASource& source, std::size_t task, std::uint8_t* c,
                  std::size_t ldc, Scratch& s) const;
  const GemmASource::SegmentRange* live_panel_spans(const Task& t, Scratch& s) const;
  void point_at_rows_in_place(const Task& t, Scratch& s) const;
  void make_row_terms(const Task& t, std::size_t first, std::size_t count, Scratch& s) const;
  void start_rows_at_live_spans(const Task& t, Scratch& s) const;
  KBlock a_at_k_block(const Task& t, std::size_t kb, Scratch& s) const;
  const std::uint8_t* const* rows_in_place_at(const Task& t, const KBlock& b, std::size_t offset, Scratch& s) const;
  const std::uint8_t* pack_a_block(const Task& t, const KBlock& b, std::size_t k0, Scratch& s) const;
  void run_tiles(const Task& t, const KBlock& b, Scratch& s) const;
  const std::int32_t* clipped_products(const Task& t, const KBlock& b, std::span<const ClippedWeight> clipped,
                                       std::size_t mp, std::size_t panels, Scratch& s) const;
  void requantize_task_block(const Task& t, std::uint8_t* c, std::size_t ldc, const Scratch& s) const;

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

  s.rows_plan = plan_gemm_task(*s.uk, problem, config, s.kc_groups, s.nc, /*segmented=*/false);
  s.segments_plan = plan_gemm_task(*s.uk, problem, config, s.kc_groups, s.nc, /*segmented=*/true);

  s.zb_nonzero = problem.b_zero_point_nonzero();
  s.zb_uniform = problem.b_zero_points.size() == 1;
  s.zb_all = problem.b_zero_points.front();
  s.flip = packed_a_flip(*s.uk, problem);
  // u8/s8 output through the task's int32 buffer and the requantize kernel.
  const bool separate = s.rows_plan.epilogue == GemmTaskPlan::Epilogue::separate;
  s.output = problem.out_type == DType::s32 || separate ? UkernelOutput::s32
             : problem.out_type == DType::u8              ? UkernelOutput::u8
                                                          : UkernelOutput::s8;
  if (problem.out_type != DType::s32) {
    const FloatForms forms = float_forms(config.isa);
    const bool folds = !separate && s.uk->folds_centred_origin;
    s.plan = RequantPlan::make(problem.requant, folds ? forms : unfolded_forms(forms));
    if (s.plan->mode == kFp32Centred && folds) {
      s.fold_centred_origin = centred_origin_foldable(*s.plan, max_abs_accumulator(problem, bias));
      // Where folding is not exact, no centred form: the microkernel has no other.
      if (!s.fold_centred_origin) s.plan = RequantPlan::make(problem.requant, FloatForms::round_to_nearest);
    }
    s.plan_constants = s.plan->constants();
    if (separate && problem.requant.per_channel()) {
      for (std::size_t t = 0; t < s.tasks_n; ++t) {
        const std::size_t first = t * s.nc;
        s.block_plans.push_back(
            RequantPlan::make(slice_channels(problem.requant, first, std::min(s.nc, s.n - first)),
                              unfolded_forms(forms)));
      }
    }
  }

  s.panel_bytes = gemm_b_panel_bytes(*s.uk, s.k_groups_total);
  s.packed_bytes = ceil_div(s.n, s.nr) * s.panel_bytes;
  s.packed_b.reset(static_cast<std::uint8_t*>(std::aligned_alloc(64, s.packed_bytes)));
  if (!s.packed_b) throw std::bad_alloc();
  pack_b(*s.uk, problem, b, ldb, bias, s.packed_b.get());
  if (s.uk->clips_pairs) {
    // The pairs are chosen per window of 16 k where the packer takes that order: A packed, in K
    // blocks that start on a window.
    const bool reorder_k = config.pack_a && s.uk->a_format == PackedA::u8 &&
                           (s.rows_plan.k_blocks == 1 || s.kc_groups * s.kr % kPairWindowBytes == 0);
    s.clipping = PairClipping(*s.uk, s.packed_b.get(), s.k, s.n, reorder_k);
  }
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
  const GemmTaskPlan& task_plan = a.is_segmented() ? s.segments_plan : s.rows_plan;
  ThreadPool::global().parallel_for(s.tasks_m * s.tasks_n, s.config.threads, [&](std::size_t task, int) {
    s.run_task(task_plan, a, task, c_bytes, ldc);
  });
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

void GemmEngine::State::run_task(const GemmTaskPlan& task_plan, const GemmASource& source, std::size_t task,
                                 std::uint8_t* c, std::size_t ldc) const {
  Scratch& s = thread_scratch();
  const Task t = start_task(task_plan, source, task, c, ldc, s);
  if (task_plan.a_panels != GemmTaskPlan::APanels::packed) point_at_rows_in_place(t, s);
  if (task_plan.row_terms == GemmTaskPlan::RowTerms::before_tiles) make_row_terms(t, 0, t.rows, s);
  if (t.panel_spans != nullptr) start_rows_at_live_spans(t, s);
  for (std::size_t kb = 0; kb < task_plan.k_blocks; ++kb) run_tiles(t, a_at_k_block(t, kb, s), s);
  if (task_plan.epilogue == GemmTaskPlan::Epilogue::separate) requantize_task_block(t, c, ldc, s);
  if (t.a.finish_task != nullptr) t.a.finish_task(t.a.task_context, t.m0, t.m0 + t.rows, t.n0, t.n0 + t.cols);
}

// The task's block of C, its rows, how it makes their row terms, and where its tiles write.
Task GemmEngine::State::start_task(const GemmTaskPlan& task_plan, const GemmASource& source, std::size_t task,
                                   std::uint8_t* c, std::size_t ldc, Scratch& s) const {
  Task t;
  t.plan = &task_plan;
  // Its block. On several threads the tasks are N-major (see the top of this file); on one, M-major.
  const bool n_major = config.threads > 1;
  const std::size_t tm = n_major ? task % tasks_m : task / tasks_n;
  t.tn = n_major ? task / tasks_m : task % tasks_n;
  t.m0 = tm * mc;
  t.rows = std::min(mc, m - t.m0);
  t.n0 = t.tn * nc;
  t.cols = std::min(nc, n - t.n0);
  t.m_panels = ceil_div(t.rows, mr);
  t.n_panels = ceil_div(t.cols, nr);
  // Its rows: the source's, or the task's own layout of them where the source makes one.
  t.a = source;
  if (source.prepare_task != nullptr) {
    const GemmASource::TaskRows rows = source.prepare_task(source.task_context, t.m0, t.m0 + t.rows);
    t.a.a = rows.base;
    if (rows.row_terms != nullptr) t.a.row_terms = rows.row_terms;
  }

  // Its row terms: given by the source, summed by the tiles where that pays at the block's width,
  // else made apart from the tiles as the plan says.
  using RowTerms = GemmTaskPlan::RowTerms;
  t.row_terms_given = task_plan.a_panels != GemmTaskPlan::APanels::packed && t.a.row_terms != nullptr;
  const bool tile_sums_rows =
      !t.row_terms_given && (t.tn + 1 == tasks_n ? task_plan.last_block_tile_sums_rows : task_plan.tile_sums_rows);
  const bool row_terms_apart = task_plan.row_terms != RowTerms::none && !tile_sums_rows;
  t.sums_rows_ahead = task_plan.row_terms == RowTerms::ahead_of_groups && !tile_sums_rows;
  t.kernel = tile_sums_rows ? uk->fn_row_sums : task_plan.kernel;
  if (row_terms_apart && t.row_terms_given) s.row_terms.resize(t.m_panels * mr);
  if (row_terms_apart && !t.row_terms_given) s.row_terms.assign(t.m_panels * mr, 0);
  if (row_terms_apart) t.row_terms = s.row_terms.data();

  t.panel_spans = live_panel_spans(t, s);
  s.rows.resize(std::max(mr, t.m_panels * mr));
  // Where its tiles write: the accumulators between K blocks, and C or separate requantization's
  // int32 buffer.
  if (task_plan.accumulates_partial()) {
    t.partial_stride = t.n_panels * nr_stride;
    s.partial.resize(t.m_panels * mr * t.partial_stride);
    t.partial = s.partial.data();
  }
  if (task_plan.epilogue == GemmTaskPlan::Epilogue::separate) {
    s.result.resize(t.rows * t.cols);
    t.out = reinterpret_cast<std::uint8_t*>(s.result.data());
    t.out_ld = t.cols;
    t.out_elem = sizeof(std::int32_t);
  } else {
    t.out_elem = problem.out_type == DType::s32 ? sizeof(std::int32_t) : 1;
    t.out = c + (t.m0 * ldc + t.n0) * t.out_elem;
    t.out_ld = ldc;
  }
  return t;
}

// Live segments (GemmASource::live_segments): each M panel of the task runs the span of its rows'
// live segments where the microkernel walks the segments and reads the dead byte as 0; null
// elsewhere. (m0 is a multiple of mr: the task's panels are panels m0 / mr... of the whole of M.)
const GemmASource::SegmentRange* GemmEngine::State::live_panel_spans(const Task& t, Scratch& s) const {
  const GemmASource& a = t.a;
  if (t.plan->a_panels != GemmTaskPlan::APanels::segments_in_kernel || a.live_segments == nullptr ||
      (a.dead_byte ^ flip) != 0) {
    return nullptr;
  }
  if (a.live_panels != nullptr && a.live_panel_rows == mr) return a.live_panels + t.m0 / mr;
  s.panel_spans.resize(t.m_panels);
  panel_live_spans(a.live_segments + t.m0, t.rows, mr, s.panel_spans.data());
  return s.panel_spans.data();
}

// A in place: pointers to the task's rows at k = 0, for every M panel; rows past M repeat the last
// valid row. (Two loops without a min per row: this table is as long as the layer's M, 12544 rows
// for MobileNetV2's first 1x1 layers, where the loop with the min took a visible share of the
// layer: docs/measurements.md, "GEMM driver".)
void GemmEngine::State::point_at_rows_in_place(const Task& t, Scratch& s) const {
  const auto* base = static_cast<const std::uint8_t*>(t.a.a);
  if (t.a.is_segmented()) {
    fill_offset_rows(s.rows.data(), base, t.a.row_offsets + t.m0, t.rows);
  } else {
    fill_strided_rows(s.rows.data(), base + t.m0 * t.a.lda, t.a.lda, t.rows);
  }
  for (std::size_t i = t.rows; i < t.m_panels * mr; ++i) s.rows[i] = s.rows[t.rows - 1];
}

// A in place: the row terms of rows [first, first + count) of the task, copied where the source
// gives them, else summed from the rows (segment by segment where A is segmented). Per-tensor
// weights (GemmUkernelArgs::zb_uniform): the microkernels take each row's whole term,
// -rowsum(A') * zb, once the row's sums are complete.
void GemmEngine::State::make_row_terms(const Task& t, std::size_t first, std::size_t count, Scratch& s) const {
  std::int32_t* terms = s.row_terms.data() + first;
  if (t.row_terms_given) {
    const std::int32_t* given = t.a.row_terms + t.m0 + first;
    if (zb_uniform) {
      scale_row_terms(terms, given, count, zb_all);
    } else {
      std::copy_n(given, count, terms);
    }
    return;
  }
  if (t.plan->a_panels == GemmTaskPlan::APanels::rows_in_place) {
    // Dense A (lda = K): rows back to back, summed by the dense kernels where one takes them.
    const bool dense = t.a.lda == k && accumulate_dense_row_terms(uk->a_format, flip, s.rows[first], count, k, terms);
    if (!dense) accumulate_a_row_terms(uk->a_format, flip, s.rows.data() + first, count, k, terms);
  } else {
    const std::size_t segment_bytes = kc_groups * kr;
    s.segment_rows.resize(count);
    for (std::size_t kb = 0; kb < k_blocks; ++kb) {
      for (std::size_t i = 0; i < count; ++i) s.segment_rows[i] = s.rows[first + i] + kb * t.a.segment_stride;
      accumulate_a_row_terms(uk->a_format, flip, s.segment_rows.data(), count, segment_bytes, terms);
    }
  }
  if (zb_uniform) scale_row_terms(terms, terms, count, zb_all);
}

// Live segments: each M panel's rows advanced to its span's first segment (B moves with them in
// run_tiles).
void GemmEngine::State::start_rows_at_live_spans(const Task& t, Scratch& s) const {
  s.live_rows.resize(t.m_panels * mr);
  for (std::size_t mp = 0; mp < t.m_panels; ++mp) {
    const std::size_t offset = t.panel_spans[mp].first * t.a.segment_stride;
    for (std::size_t i = mp * mr; i < (mp + 1) * mr; ++i) s.live_rows[i] = s.rows[i] + offset;
  }
}

// The task's A at K block kb: packed, or its rows in place moved to the block's first k.
KBlock GemmEngine::State::a_at_k_block(const Task& t, std::size_t kb, Scratch& s) const {
  using APanels = GemmTaskPlan::APanels;
  const GemmTaskPlan& task_plan = *t.plan;
  KBlock b;
  b.first = kb == 0;
  b.last = kb + 1 == task_plan.k_blocks;
  b.g0 = kb * task_plan.block_groups;
  b.groups = std::min(task_plan.block_groups, k_groups_total - b.g0);
  const std::size_t k0 = b.g0 * kr;
  // Segments in the kernel: the bytes of one segment, which the microkernel reads k_blocks times.
  b.k_bytes = task_plan.a_panels == APanels::segments_in_kernel ? kc_groups * kr : std::min(k - k0, b.groups * kr);
  b.a_panel_bytes = b.groups * mr * kr * packed_a_elem_bytes(uk->a_format);
  switch (task_plan.a_panels) {
    case APanels::packed: b.a_packed = pack_a_block(t, b, k0, s); break;
    case APanels::rows_in_place: b.a_rows = rows_in_place_at(t, b, k0, s); break;
    case APanels::segments_in_place: b.a_rows = rows_in_place_at(t, b, kb * t.a.segment_stride, s); break;
    case APanels::segments_in_kernel: b.a_rows = t.panel_spans != nullptr ? s.live_rows.data() : s.rows.data(); break;
  }
  return b;
}

// A in place at a K block: the rows themselves at the first, else the task's row pointers moved
// `offset` bytes on.
const std::uint8_t* const* GemmEngine::State::rows_in_place_at(const Task& t, const KBlock& b, std::size_t offset,
                                                                Scratch& s) const {
  if (b.first) return s.rows.data();
  const std::size_t count = t.m_panels * mr;
  s.block_rows.resize(count);
  for (std::size_t i = 0; i < count; ++i) s.block_rows[i] = s.rows[i] + offset;
  return s.block_rows.data();
}

// Packed A at a K block: the task's rows, gathered and packed panel by panel, their row terms
// summed as they are packed.
const std::uint8_t* GemmEngine::State::pack_a_block(const Task& t, const KBlock& b, std::size_t k0, Scratch& s) const {
  const bool sums_rows = t.plan->row_terms == GemmTaskPlan::RowTerms::while_packing;
  const std::uint8_t* k_order = clipping.k_order();  // B's pair order, where it has one
  s.a_panels.resize(t.m_panels * b.a_panel_bytes);
  for (std::size_t mp = 0; mp < t.m_panels; ++mp) {
    const std::size_t count = std::min(mr, t.rows - mp * mr);
    gather_rows(t.a, t.m0 + mp * mr, count, k0, b.k_bytes, s);
    pack_a_panel(*uk, problem.a_type, s.rows.data(), count, b.k_bytes, b.groups,
                 s.a_panels.data() + mp * b.a_panel_bytes, sums_rows ? s.row_terms.data() + mp * mr : nullptr,
                 k_order != nullptr ? k_order + k0 : nullptr);
  }
  // Per-tensor weights: each row's whole term once its sums are complete (make_row_terms).
  if (sums_rows && b.last && zb_uniform) scale_row_terms(s.row_terms.data(), s.row_terms.data(), t.rows, zb_all);
  return s.a_panels.data();
}

// The task's tiles at one K block: each NR panel of B (its K block stays in L1) over every M panel
// of A, up to panels_per_call M panels a call.
void GemmEngine::State::run_tiles(const Task& t, const KBlock& b, Scratch& s) const {
  const GemmTaskPlan& task_plan = *t.plan;
  const std::size_t b_elem = packed_b_elem_bytes(uk->b_format);
  const bool segments_in_kernel = task_plan.a_panels == GemmTaskPlan::APanels::segments_in_kernel;
  const std::size_t group_panels = task_plan.group_panels;  // of the row terms ahead of groups
  for (std::size_t np = 0; np < t.n_panels; ++np) {
    const std::uint8_t* panel = packed_b.get() + (t.n0 / nr + np) * panel_bytes;
    const auto* col_terms = reinterpret_cast<const std::int32_t*>(panel);
    GemmUkernelArgs args;
    args.cols = std::min(nr, t.cols - np * nr);
    args.k_groups = b.groups;
    const std::uint8_t* b_block = panel + gemm_b_panel_weights_offset(*uk) + b.g0 * nr_stride * kr * b_elem;
    args.b_packed = b_block;
    args.first = b.first;
    args.last = b.last;
    args.partial_stride = t.partial_stride;
    args.col_terms = col_terms;
    args.col_zb = zb_nonzero ? col_terms + nr_stride : nullptr;
    args.zb_uniform = zb_uniform;
    args.output = output;
    args.plan = plan ? &plan_constants : nullptr;
    args.channel = t.n0 + np * nr;
    args.a_k_bytes = b.k_bytes;
    args.a_flip = flip;
    if (segments_in_kernel) {
      args.a_segments = k_blocks;
      args.a_segment_stride = t.a.segment_stride;
    }
    // Clipped weight pairs of this panel within the block (all of K where the kernel walks the
    // segments): the excess panel at the block, or the excesses one by one.
    const std::size_t b_panel = t.n0 / nr + np;
    const std::int8_t* excess_block =
        clipping.dense() ? clipping.excess_panel(b_panel) + b.g0 * nr_stride * kr : nullptr;
    const std::span<const ClippedWeight> clipped =
        clipping.dense() ? std::span<const ClippedWeight>{} : clipping.in_panel(b_panel, b.g0 * kr, (b.g0 + b.groups) * kr);
    args.b_excess = excess_block;
    args.corrections_stride = nr_stride;
    std::size_t summed_panels = 0;  // (np == 0) panels whose row terms are made
    for (std::size_t mp = 0; mp < t.m_panels; mp += args.panels) {
      args.panels = panels_in_call(t, mp);
      args.rows = std::min(mr, t.rows - (mp + args.panels - 1) * mr);
      for (; t.sums_rows_ahead && np == 0 && summed_panels < mp + args.panels; summed_panels += group_panels) {
        const std::size_t first = summed_panels * mr, count = std::min(group_panels * mr, t.rows - first);
        make_row_terms(t, first, count, s);
      }
      if (b.a_rows != nullptr) {
        args.a_rows = b.a_rows + mp * mr;
      } else {
        args.a_packed = b.a_packed + mp * b.a_panel_bytes;
      }
      if (t.panel_spans != nullptr) {
        // From rows and B at the span's first segment (start_rows_at_live_spans).
        const GemmASource::SegmentRange span = t.panel_spans[mp];
        args.a_segments = span.end - span.first;
        args.k_groups = args.a_segments * kc_groups;
        args.b_packed = b_block + span.first * kc_groups * nr_stride * kr * b_elem;
        if (excess_block != nullptr) args.b_excess = excess_block + span.first * kc_groups * nr_stride * kr;
      }
      args.partial = t.partial != nullptr ? t.partial + mp * mr * t.partial_stride + np * nr_stride : nullptr;
      args.row_terms = t.row_terms != nullptr ? t.row_terms + mp * mr : nullptr;
      args.corrections = clipped.empty() ? nullptr : clipped_products(t, b, clipped, mp, args.panels, s);
      args.c = t.out + (mp * mr * t.out_ld + np * nr) * t.out_elem;
      args.ldc = t.out_ld;
      t.kernel(args);
    }
  }
}

// Clipped weight pairs (gemm/pair_clipping.h): the products the clipped weights of one B panel
// leave out of K block b, for the `panels` M panels from mp, each excess times the activation byte
// the microkernel multiplies it with (A' = A ^ flip, u8), into the call's corrections (rows x
// nr_stride). The byte is read where the microkernel reads it: the packed panel (in vectors where
// the family has them, GemmUkernel::clipped_products), the rows at the block, or (segments walked
// in the kernel) the task's rows at segment k / segment_bytes; a dead segment's bytes read as 0
// there, as in the kernel.
const std::int32_t* GemmEngine::State::clipped_products(const Task& t, const KBlock& b,
                                                         std::span<const ClippedWeight> clipped, std::size_t mp,
                                                         std::size_t panels, Scratch& s) const {
  const std::size_t rows = panels * mr, k0 = b.g0 * kr;
  if (t.plan->a_panels == GemmTaskPlan::APanels::packed && uk->clipped_products != nullptr) {
    s.corrections.resize(clipped_products_rows(panels, mr) * nr_stride);
    s.corrections_by_column.resize(panels * round_up(mr, 8) * nr_stride);
    ClippedProductsArgs args;
    args.a_packed = b.a_packed + mp * b.a_panel_bytes;
    args.a_panel_bytes = b.a_panel_bytes;
    args.panels = panels;
    args.mr = mr;
    args.nr_stride = nr_stride;
    args.k0 = k0;
    args.clipped = clipped.data();
    args.clipped_count = clipped.size();
    args.by_column = s.corrections_by_column.data();
    args.corrections = s.corrections.data();
    uk->clipped_products(args);
    return s.corrections.data();
  }
  s.corrections.assign(rows * nr_stride, 0);
  const std::size_t segment_bytes = kc_groups * kr;
  for (const ClippedWeight& w : clipped) {
    std::int32_t* column = s.corrections.data() + w.column;
    const std::int32_t excess = w.excess;
    const std::size_t kk = w.k - k0;
    switch (t.plan->a_panels) {
      case GemmTaskPlan::APanels::packed: {
        const std::uint8_t* a = b.a_packed + mp * b.a_panel_bytes + (kk / kr * mr) * kr + kk % kr;
        for (std::size_t p = 0; p < panels; ++p, a += b.a_panel_bytes) {
          for (std::size_t i = 0; i < mr; ++i) column[(p * mr + i) * nr_stride] += a[i * kr] * excess;
        }
        break;
      }
      case GemmTaskPlan::APanels::segments_in_kernel: {
        const std::size_t offset = w.k / segment_bytes * t.a.segment_stride + w.k % segment_bytes;
        const std::uint8_t* const* a_rows = s.rows.data() + mp * mr;
        for (std::size_t r = 0; r < rows; ++r) column[r * nr_stride] += (a_rows[r][offset] ^ flip) * excess;
        break;
      }
      case GemmTaskPlan::APanels::rows_in_place:
      case GemmTaskPlan::APanels::segments_in_place: {
        const std::uint8_t* const* a_rows = b.a_rows + mp * mr;
        for (std::size_t r = 0; r < rows; ++r) column[r * nr_stride] += (a_rows[r][kk] ^ flip) * excess;
        break;
      }
    }
  }
  return s.corrections.data();
}

// Separate requantization: the task's int32 block into C's u8/s8.
void GemmEngine::State::requantize_task_block(const Task& t, std::uint8_t* c, std::size_t ldc, const Scratch& s) const {
  const RequantPlan& block_plan = block_plans.empty() ? *plan : block_plans[t.tn];
  requantize_block(block_plan, s.result.data(), t.rows, t.cols, t.cols, c + (t.m0 * ldc + t.n0), ldc);
}

}  // namespace qtune::detail
