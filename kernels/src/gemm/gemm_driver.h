// The GEMM driver: packs B once, then runs the problem with cache blocking (KC/MC/NC) around the
// selected microkernel on the thread pool. GemmOp is a thin wrapper around GemmEngine; the conv2d
// operator drives the same engine with A given as an indirection table (or im2col / dense rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gemm/gemm_ukernel.h"
#include "qtune/kernels/gemm.h"

namespace qtune::detail {

// Where the driver reads A (M rows of K = problem.k bytes, u8 or s8 per problem.a_type).
struct GemmASource {
  // Dense: row m starts at a + m*lda bytes (lda >= k).
  const void* a = nullptr;
  std::size_t lda = 0;

  // Indirect (convolution without im2col): row m is the concatenation along K of `ks` segments of
  // `channels` contiguous bytes, segment s at indirection[m*ks + s] + a_offset, except that a
  // pointer equal to `zero` is used as is (the shared zero-point row for padding, which must hold
  // at least `channels` bytes equal to the activation zero point). K = ks * channels.
  // `a_offset` selects the group's channels in grouped convolutions.
  const void* const* indirection = nullptr;
  std::size_t ks = 0, channels = 0, a_offset = 0;
  const void* zero = nullptr;

  static GemmASource dense(const void* a, std::size_t lda) {
    GemmASource s;
    s.a = a;
    s.lda = lda;
    return s;
  }
  // Rows in place (convolution without im2col, ConvAlgo::implicit): row m starts at
  // a + row_offsets[m] and is the concatenation along K of k_blocks segments of kc bytes (the
  // engine's K blocks), segment s at a + row_offsets[m] + s * segment_stride. Read in place only.
  const std::size_t* row_offsets = nullptr;
  std::size_t segment_stride = 0;

  static GemmASource dense_segments(const void* a, const std::size_t* row_offsets, std::size_t segment_stride) {
    GemmASource s;
    s.a = a;
    s.row_offsets = row_offsets;
    s.segment_stride = segment_stride;
    return s;
  }
  static GemmASource indirect(const void* const* indirection, std::size_t ks, std::size_t channels,
                              std::size_t a_offset, const void* zero) {
    GemmASource s;
    s.indirection = indirection;
    s.ks = ks;
    s.channels = channels;
    s.a_offset = a_offset;
    s.zero = zero;
    return s;
  }
  // The row terms of every row, precomputed by the caller (GemmEngine::row_terms_of): row m's is
  // row_terms[m]. Read-in-place runs with a weight zero point copy them instead of summing each
  // row's K bytes: a convolution's rows overlap, and its caller sums each input pixel once and
  // adds the window (conv2d_window_terms.h). Ignored where A is packed (the packing sums the rows).
  const std::int32_t* row_terms = nullptr;

  GemmASource with_row_terms(const std::int32_t* terms) const {
    GemmASource s = *this;
    s.row_terms = terms;
    return s;
  }

  // Segmented A only, optional: the segments each row needs. Row m's segments outside
  // [live_segments[m].first, live_segments[m].end) hold nothing but `dead_byte` (a convolution's
  // kernel rows in its padding: the activation zero point); first >= end where none is live. Where
  // the microkernel sees that byte as 0 (it reads A XOR its flip) those segments add nothing to the
  // dot products nor to the row terms, and a tile runs only the span of its rows' live segments:
  // a 7x1 kernel over 17 output rows with 3 rows of padding on each side then does a tenth less.
  struct SegmentRange {
    std::uint16_t first = 0, end = 0;
  };
  const SegmentRange* live_segments = nullptr;
  std::uint8_t dead_byte = 0;
  // Optional beside them: each M panel's span (panel_live_spans over panels of `live_panel_rows`
  // rows), made once by the caller. A run then reads one span per panel, not every row's range:
  // that loop over the rows, as long as the layer's M (21609 rows for InceptionV3's 147x147x32 3x3
  // layer), ran on every call (docs/measurements.md, "GEMM driver"). An engine whose tiles are of
  // another height works the spans out itself.
  const SegmentRange* live_panels = nullptr;
  std::size_t live_panel_rows = 0;

  GemmASource with_live_segments(const SegmentRange* ranges, std::uint8_t byte, const SegmentRange* panels = nullptr,
                                 std::size_t panel_rows = 0) const {
    GemmASource s = *this;
    s.live_segments = ranges;
    s.dead_byte = byte;
    s.live_panels = panels;
    s.live_panel_rows = panels != nullptr ? panel_rows : 0;
    return s;
  }
  // Task hooks, optional, each given `task_context`; they let a caller do its own steps before
  // and after the GEMM inside the GEMM's tasks, on the thread that runs each, instead of in passes
  // with fork-joins of their own. (A convolution's padded input: padded in a pass of its own, the
  // copy and its terms cost a fork-join and sent half of the copy across cores:
  // docs/measurements.md, "GEMM driver".)
  // prepare_task, segmented A only: run before the task's first tile, for the task's rows
  // [m_begin, m_end). Returns the base the task reads its rows from (in place of `a`; the row
  // offsets are unchanged) and the array it takes the row terms from (in place of `row_terms`,
  // valid over the task's rows), or null where the rows are summed as without the hook.
  struct TaskRows {
    const void* base = nullptr;
    const std::int32_t* row_terms = nullptr;
  };
  using PrepareTask = TaskRows (*)(const void* context, std::size_t m_begin, std::size_t m_end);
  // finish_task: run after the task has written its block of C, rows [m_begin, m_end) x columns
  // [n_begin, n_end).
  using FinishTask = void (*)(const void* context, std::size_t m_begin, std::size_t m_end, std::size_t n_begin,
                              std::size_t n_end);
  PrepareTask prepare_task = nullptr;
  FinishTask finish_task = nullptr;
  const void* task_context = nullptr;

  GemmASource with_task_hooks(PrepareTask prepare, FinishTask finish, const void* context) const {
    GemmASource s = *this;
    s.prepare_task = prepare;
    s.finish_task = finish;
    s.task_context = context;
    return s;
  }
  bool is_indirect() const { return indirection != nullptr; }
  bool is_segmented() const { return row_offsets != nullptr; }
};

// The span of live segments of each panel of `panel_rows` consecutive rows of `ranges` (m rows;
// the last panel may be short) into spans[0, ceil(m / panel_rows)): from the least first to the
// greatest end over the panel's rows that have any live, {0, 1} where none has (one dead segment
// adds nothing). The ranges of GemmASource::live_segments, the spans of its live_panels.
void panel_live_spans(const GemmASource::SegmentRange* ranges, std::size_t m, std::size_t panel_rows,
                      GemmASource::SegmentRange* spans);
std::vector<GemmASource::SegmentRange> panel_live_spans(const GemmASource::SegmentRange* ranges, std::size_t m,
                                                        std::size_t panel_rows);

// Whether a microkernel's own row sums (GemmUkernel::fn_row_sums) beat the pass over the rows
// before the tiles, for rows of k bytes under n_panels column panels. The tiles sum every row
// again in each column panel (about k/64 cycles a row, and 6 for the horizontal sum), the pass
// once (about k/12 cycles a row with the rows in L1): tiles when k/(12 n_panels) > k/64 + 6,
// i.e. k (16 - 3 n_panels) > 1152 n_panels. It held where it was checked: the tiles won with one
// panel (MobileNetV2's projections, InceptionV3's 35x35x256 -> 64), the pass with six at K = 64
// (14x14x64 -> 384) (docs/measurements.md, "GEMM driver").
bool tile_row_sums_pay(std::size_t k, std::size_t n_panels);

class GemmEngine {
 public:
  // Validates the problem and the config (std::invalid_argument with gemm_check_config's message),
  // packs B (K x N int8, row stride ldb >= n) and bias (null iff !problem.has_bias).
  GemmEngine(const GemmProblem& problem, const GemmConfig& config, const std::int8_t* b,
             std::size_t ldb, const std::int32_t* bias);
  ~GemmEngine();
  GemmEngine(const GemmEngine&) = delete;
  GemmEngine& operator=(const GemmEngine&) = delete;

  // C: M rows of N out_type elements, row stride ldc >= n elements. Thread-safe (const, per-thread
  // scratch); uses config.threads threads from the shared persistent pool.
  // An indirect A source is always packed into A panels, so it needs config.pack_a (checked:
  // std::invalid_argument, see check_indirect).
  void run(const GemmASource& a, void* c, std::size_t ldc) const;

  // "" when `config` can read an indirect A source, else why not.
  static std::string check_indirect(const GemmConfig& config);
  // "" when `config` can read a segmented A source whose segments are `segment_bytes` long, else
  // why not. The engine's K blocks must then be the segments: config.kc = segment_bytes.
  static std::string check_segmented(const GemmConfig& config, std::size_t segment_bytes);

  // Whether run() skips the dead segments of a segmented A source whose dead byte is `dead_byte`
  // (GemmASource::live_segments) with `config` on `problem`: the microkernel walks the segments and
  // reads that byte as 0.
  static bool skips_dead_segments(const GemmProblem& problem, const GemmConfig& config, std::uint8_t dead_byte);

  // Whether run() with A read in place uses row terms (a weight zero point) and takes them
  // precomputed from GemmASource::row_terms.
  bool takes_row_terms() const;
  // terms[i] += the row term of the `count` runs of k_bytes bytes at rows[i], as this engine's
  // microkernel counts them (its packed A format): additive over the bytes of a row, so the term
  // of a row is the sum of the terms of its pieces (wrapping int32).
  void row_terms_of(const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                    std::int32_t* terms) const;
  // The same for `count` rows of row_bytes stored back to back from `first`, where a vector kernel
  // takes rows of that length (accumulate_dense_row_terms); false (nothing done) where none does.
  bool dense_row_terms_of(const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                          std::int32_t* terms) const;

  const GemmProblem& problem() const;
  const GemmConfig& config() const;
  const GemmUkernel& ukernel() const;
  std::size_t packed_weight_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace qtune::detail
