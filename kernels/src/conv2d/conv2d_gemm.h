// The GEMM-based algorithms of Conv2dOp (im2col, indirect, gemm_1x1, implicit): one GemmEngine per
// group, fed with A as im2col rows, an indirection table, the NHWC input itself, or (implicit) the
// input read in place kernel row by kernel row.
//
// Group g is the GEMM  C[:, g*Nc + j] = sum_k A_g[m][k] * B_g[k][j]  with M = N*OH*OW,
// Nc = C_out/groups, K = KH*KW*Cg (Cg = C_in/groups, k = (kh*KW + kw)*Cg + ci): B_g is the HWIO
// weight tensor seen from column g*Nc with row stride C_out, so no weight reordering is needed
// before the engine packs it, and C_g is the output seen from channel g*Nc with row stride C_out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conv2d/conv2d_window_terms.h"
#include "gemm/gemm_driver.h"
#include "qtune/kernels/conv2d.h"

namespace qtune::detail {

// The GEMM problem of group g (per-channel parameters sliced to the group's columns), with M rows.
GemmProblem conv_group_gemm(const Conv2dProblem& problem, std::int64_t group, std::int64_t m);

// The im2col blocks: rows per block, bounded so that the patch buffer stays in the outer caches
// and balanced so that the last block is not much smaller than the others; with several threads,
// a block count that is a multiple of the threads, each block copied and multiplied by one thread.
struct Im2colBlocking {
  std::int64_t rows = 0;
  int block_threads = 1;  // > 1: blocks run in parallel, each GEMM on one thread
};
Im2colBlocking im2col_blocking(const Conv2dProblem& problem, int threads);

// algo=implicit reads a segment per kernel row (KW pixels of C_in channels), and a tile runs only
// the kernel rows its output rows reach inside the image where the padding reads as zero bytes
// (GemmASource::live_segments). A 1xK kernel padded left and right would skip nothing that way:
// the taps in the padding differ between neighbouring output pixels of a tile. Columns first, its
// GEMM rows go down the output columns (n, ow, oh) and every tap is a segment of C_in bytes, so a
// tile within one column skips that column's taps in the padding (InceptionV3's 1x7 layers on
// 17 columns: a tenth of their work); the output is written in that order to a scratch and its rows
// copied to NHWC. Chosen where it skips: taps of whole k groups, the padding read as zero.
bool implicit_columns_first(const Conv2dProblem& p, const GemmConfig& config);

// algo=implicit: the bytes of one segment, the engine's K block and the run its microkernels read
// per kernel row (or, columns first, per tap).
inline std::size_t implicit_segment_bytes(const Conv2dProblem& p, bool columns_first) {
  return static_cast<std::size_t>(columns_first ? p.in_c : p.kernel_w * p.in_c);
}

// algo=implicit on a kernel row of KW*C_in bytes that is not whole k groups of `group_bytes`
// (the microkernel's kr; 3-channel first layers: 9 bytes for 3x3, 21 for 7x7), which the
// microkernels cannot read in place: the same convolution with the kernel widened to the next KW'
// whose rows are whole groups, the extra taps' weights at the weight zero point (a real weight of
// 0: (a - za) * (zb - zb) adds nothing, whatever pixel the tap reads) and as many more padding
// columns on the right (the output shape is unchanged). nullopt where no widening is needed or
// none is exact (a zero point outside int8, which no weight byte can hold).
std::optional<Conv2dProblem> implicit_widened(const Conv2dProblem& problem, std::int64_t group_bytes);

// The k group implicit_widened widens to for `config`'s microkernel (4 where it has none).
std::int64_t implicit_group_bytes(const GemmConfig& config);

// `weights` (K x out_c, k = (kh * KW + kw) * C_in + c) of `problem` laid out for `widened`.
std::vector<std::int8_t> widen_weights(const Conv2dProblem& problem, const Conv2dProblem& widened,
                                       const std::int8_t* weights);

// Why `algo` (a GEMM-based one) cannot run `problem` with `config`, or "".
std::string check_gemm_conv(const Conv2dProblem& problem, const Conv2dConfig& config);

class GemmConv {
 public:
  GemmConv(const Conv2dProblem& problem, const Conv2dConfig& config, const std::int8_t* weights,
           const std::int32_t* bias);
  ~GemmConv();
  void run(const void* input, void* output) const;
  std::size_t packed_weight_bytes() const;

 private:
  void run_im2col(const std::uint8_t* input, std::uint8_t* output) const;
  void run_im2col_block(const std::uint8_t* input, std::int64_t m0, std::uint8_t* output) const;
  void run_indirect(const std::uint8_t* input, std::uint8_t* output) const;
  void run_implicit(const std::uint8_t* input, std::uint8_t* output) const;
  // Rows [first, end) (of N * padded_h_) of the input with its padding (zero-point pixels) into
  // `padded`, the whole padded input's first byte.
  void pad_rows(const std::uint8_t* input, std::size_t first, std::size_t end, std::uint8_t* padded) const;
  // implicit: the padded input rows and the row terms that GEMM rows [m_begin, m_end) read, in the
  // calling thread's own buffers, kept across calls (run is const and may run concurrently). On
  // several threads each GEMM task calls it (GemmASource::prepare_task); tasks that share input
  // rows each pad them: a copy costs less than a fork-join and the cross-core reads of a shared one.
  GemmASource::TaskRows task_rows(const std::uint8_t* input, std::size_t m_begin, std::size_t m_end) const;
  // Where conv_window_terms puts output pixel (n, oh, ow)'s term: at its GEMM row.
  WindowTermsLayout window_layout() const;

  Conv2dProblem problem_;
  ConvAlgo algo_;
  std::int64_t m_ = 0, k_ = 0, group_in_ = 0, group_out_ = 0;
  std::size_t out_elem_ = 1;
  std::vector<std::unique_ptr<GemmEngine>> engines_;  // one per group
  // im2col: every engine has M = block_rows_; the last (shorter) block goes through a scratch C.
  std::int64_t block_rows_ = 0;
  std::int64_t patch_ld_ = 0;  // im2col: K rounded up to whole 4-byte groups (the engines' K)
  int block_threads_ = 1;  // im2col_blocking()
  // indirect: per GEMM row, KH*KW entries: the input byte offset of the tap's pixel stored as a
  // pointer value (the engine adds the input address plus the group's channel offset), or the
  // address of zero_row_ for padding taps, which the engine uses as is.
  std::vector<const void*> indirection_;
  std::vector<std::uint8_t> zero_row_;
  // implicit: the byte offset of each GEMM row's first tap in the (padded) input, the distance
  // between its kernel rows, and the padded geometry (padded_: the input needs a padded copy).
  std::vector<std::size_t> row_offsets_;
  std::size_t segment_stride_ = 0;
  bool padded_ = false;
  std::int64_t padded_h_ = 0, padded_w_ = 0;
  // implicit with padding above or below: per GEMM row, the kernel rows that fall inside the image
  // (GemmASource::live_segments); the engine skips the others where the zero point reads as zero.
  std::vector<GemmASource::SegmentRange> live_segments_;
  std::vector<GemmASource::SegmentRange> live_panels_;  // their spans per M panel of the engine's tiles
  // implicit_columns_first(): GEMM row m is output pixel pixel_of_row_[m] (NHWC order).
  bool columns_first_ = false;
  std::vector<std::uint32_t> pixel_of_row_;
  // implicit with a weight zero point: the rows' terms from each input pixel's, once per run
  // (conv2d_window_terms.h), instead of the engine summing every row's K bytes.
  bool window_terms_ = false;
};

}  // namespace qtune::detail
