// An inverted-residual block (MobileNetV2's: a pointwise expansion, a depthwise convolution, a
// pointwise projection) as one step over strips of output rows. Each thread expands only the input
// rows its strip's depthwise windows read, into a buffer of its own; runs the depthwise convolution
// over them into a second buffer; and projects that straight into the block's output. The expanded
// and depthwise tensors are never written whole: at a strip's height both buffers stay in cache. The
// rows two consecutive strips of one thread share are moved to the buffer's front, not expanded
// again.
//
// Every member is the convolution the layers run one by one, applied to a slice of rows: the
// middle convolution's slice has the image's padding where it touches the image's top or bottom
// and none inside, so each output pixel reads the same window, and the result equals the layers
// one by one bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "qtune/kernels/conv2d.h"

namespace qtune::executor {

// One convolution of the block: its problem over the whole tensor, the configuration qtune's
// kernels run it with (its thread count is ignored: a strip runs on one thread), its weights and
// bias (the caller keeps them alive until the block is prepared).
struct BlockMember {
  Conv2dProblem problem;
  Conv2dConfig config;
  const std::int8_t* weights = nullptr;
  const std::int32_t* bias = nullptr;
};

// Why a chain of convolutions cannot be one block, or "" when it can: the expansion (if any) and
// the projection pointwise (1x1, stride 1, no padding, one group), each member's output the next
// one's input (shape, element type), the first two's outputs 8-bit.
std::string inverted_residual_mismatch(const Conv2dProblem* expand, const Conv2dProblem& middle,
                                       const Conv2dProblem& project);

// The strip height (output rows of the middle convolution): the tallest whose two per-thread
// buffers (expanded input rows, middle output rows) fit in `target_bytes`, yet at least
// `min_pixels` output pixels (the projection's GEMM rows per pass over its packed weights); lowered
// where that gives the threads too few strips to share evenly. 0 (no block) where the whole
// intermediates fit in `target_bytes` (then nothing is kept out of memory that would not stay in
// cache anyway) or no height gives each thread two strips.
// The executor's plan where no tuning decides: buffers within the L2 of the targets beside the packed
// weights of the three members, and strips of at least the conv+add blocks' GEMM rows.
inline constexpr std::size_t kInvertedResidualStripBytes = 256 * 1024;
inline constexpr std::int64_t kInvertedResidualMinPixels = 64;

std::int64_t plan_inverted_residual_rows(const Conv2dProblem* expand, const Conv2dProblem& middle,
                                         std::size_t target_bytes, std::int64_t min_pixels, int threads);

class FusedInvertedResidual {
 public:
  // Prepares every slice the strips of `rows` output rows need, for `threads` threads;
  // std::invalid_argument when the chain cannot be a block or a configuration cannot run a slice.
  FusedInvertedResidual(const std::optional<BlockMember>& expand, const BlockMember& middle, const BlockMember& project,
                        std::int64_t rows, int threads);

  std::size_t scratch_bytes() const { return static_cast<std::size_t>(workers()) * thread_bytes_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t strips() const { return static_cast<std::int64_t>(strips_.size()); }

  // input: the block's input (NHWC, the expansion's or else the middle convolution's); output: the
  // projection's (NHWC); scratch: scratch_bytes().
  void run(const void* input, void* output, std::uint8_t* scratch) const;

 private:
  struct Strip {
    std::int64_t image = 0, out_begin = 0;  // the strip's first output row within its image
    std::int64_t in_begin = 0;              // the first input row its middle slice reads
    std::int64_t kept = 0;       // expanded rows carried over from the thread's previous strip,
    std::int64_t kept_from = 0;  // from this row of its buffer
    std::int64_t expand_rows = 0;           // input rows expanded for this strip (after the kept ones)
    std::size_t expand_op = 0, middle_op = 0, project_op = 0;
  };
  int workers() const { return static_cast<int>(work_.size()) - 1; }
  void run_strips(const std::uint8_t* input, std::uint8_t* output, std::uint8_t* scratch, std::size_t begin,
                  std::size_t end) const;
  std::size_t slice(std::vector<Conv2dOp>& ops, std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t>& index,
                    const BlockMember& member, std::int64_t in_rows, std::int64_t pad_top, std::int64_t pad_bottom);

  bool has_expand_ = false;
  std::int64_t rows_ = 0;
  std::size_t in_row_bytes_ = 0, expanded_row_bytes_ = 0, middle_row_bytes_ = 0, out_row_bytes_ = 0;
  std::int64_t in_h_ = 0, out_h_ = 0;
  std::size_t expanded_bytes_ = 0, thread_bytes_ = 0;
  std::vector<Conv2dOp> expand_ops_, middle_ops_, project_ops_;
  std::vector<Strip> strips_;
  std::vector<std::size_t> work_;  // thread t runs strips [work_[t], work_[t + 1])
};

}  // namespace qtune::executor
