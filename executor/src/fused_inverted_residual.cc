#include "fused_inverted_residual.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "qtune/kernels/parallel.h"

namespace qtune::executor {
namespace {

bool pointwise_shape(const Conv2dProblem& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_bottom == 0 && p.pad_left == 0 && p.pad_right == 0 && p.groups == 1;
}

// The input rows the middle convolution's windows span, kernel and dilation included.
std::int64_t window_rows(const Conv2dProblem& p) { return (p.kernel_h - 1) * p.dilation_h + 1; }

std::size_t element_bytes(DType type) { return type == DType::s32 ? 4 : 1; }

constexpr std::size_t kAlign = 64;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Per-thread buffer bytes at a strip height of `rows` output rows.
std::size_t strip_bytes(const Conv2dProblem* expand, const Conv2dProblem& middle, std::int64_t rows) {
  const std::int64_t in_rows = std::min((rows - 1) * middle.stride_h + window_rows(middle), middle.in_h);
  const std::size_t expanded = expand ? static_cast<std::size_t>(in_rows * middle.in_w * middle.in_c) : 0;
  return expanded + static_cast<std::size_t>(rows * middle.out_w() * middle.out_c);
}

}  // namespace

std::string inverted_residual_mismatch(const Conv2dProblem* expand, const Conv2dProblem& middle, const Conv2dProblem& project) {
  if (expand) {
    if (!pointwise_shape(*expand)) return "the expansion is not pointwise (1x1, stride 1, no padding, one group)";
    if (expand->out_type == DType::s32) return "the expansion's output is not 8-bit";
    if (expand->batch != middle.batch || expand->in_h != middle.in_h || expand->in_w != middle.in_w ||
        expand->out_c != middle.in_c || expand->out_type != middle.a_type)
      return "the expansion's output is not the middle convolution's input";
  }
  if (middle.out_type == DType::s32) return "the middle convolution's output is not 8-bit";
  if (!pointwise_shape(project)) return "the projection is not pointwise (1x1, stride 1, no padding, one group)";
  if (project.batch != middle.batch || project.in_h != middle.out_h() || project.in_w != middle.out_w() ||
      project.in_c != middle.out_c || project.a_type != middle.out_type)
    return "the middle convolution's output is not the projection's input";
  return "";
}

std::int64_t plan_inverted_residual_rows(const Conv2dProblem* expand, const Conv2dProblem& middle, std::size_t target_bytes,
                                         std::int64_t min_pixels, int threads) {
  const std::int64_t out_h = middle.out_h();
  if (static_cast<std::size_t>(middle.batch) * strip_bytes(expand, middle, out_h) <= target_bytes) return 0;
  std::int64_t fits = std::min(out_h, std::max<std::int64_t>(1, (min_pixels + middle.out_w() - 1) / middle.out_w()));
  while (fits < out_h && strip_bytes(expand, middle, fits + 1) <= target_bytes) ++fits;
  // Two strips or more per thread, which the threads share evenly (a multiple of the threads, or
  // enough of them that one more matters little): one strip per thread recomputes its halo of
  // expanded rows and leaves the threads unbalanced wherever the image's rows do not divide.
  const auto count = [&](std::int64_t rows) { return middle.batch * ((out_h + rows - 1) / rows); };
  const std::int64_t t = std::max(threads, 1);
  for (std::int64_t rows = fits; rows >= 1; --rows)
    if (count(rows) >= 2 * t && (count(rows) % t == 0 || count(rows) >= 4 * t)) return rows;
  return 0;
}

std::size_t FusedInvertedResidual::slice(std::vector<Conv2dOp>& ops,
                                         std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t>& index,
                                         const BlockMember& member, std::int64_t in_rows, std::int64_t pad_top,
                                         std::int64_t pad_bottom) {
  const auto key = std::make_tuple(in_rows, pad_top, pad_bottom);
  if (const auto it = index.find(key); it != index.end()) return it->second;
  Conv2dProblem p = member.problem;
  p.batch = 1;
  p.in_h = in_rows;
  p.pad_top = pad_top;
  p.pad_bottom = pad_bottom;
  Conv2dConfig config = member.config;
  config.gemm.threads = 1;
  ops.push_back(Conv2dOp::prepare(p, config, member.weights, member.bias));
  return index[key] = ops.size() - 1;
}

FusedInvertedResidual::FusedInvertedResidual(const std::optional<BlockMember>& expand, const BlockMember& middle,
                                             const BlockMember& project, std::int64_t rows, int threads)
    : has_expand_(expand.has_value()), rows_(rows) {
  const Conv2dProblem& m = middle.problem;
  if (const std::string why = inverted_residual_mismatch(expand ? &expand->problem : nullptr, m, project.problem); !why.empty())
    throw std::invalid_argument("inverted-residual block: " + why);
  if (rows < 1) throw std::invalid_argument("inverted-residual block: a strip of " + std::to_string(rows) + " rows");
  in_h_ = m.in_h;
  out_h_ = m.out_h();
  const Conv2dProblem& first = expand ? expand->problem : m;
  in_row_bytes_ = static_cast<std::size_t>(first.in_w * first.in_c);
  expanded_row_bytes_ = static_cast<std::size_t>(m.in_w * m.in_c);
  middle_row_bytes_ = static_cast<std::size_t>(m.out_w() * m.out_c);
  out_row_bytes_ = static_cast<std::size_t>(project.problem.in_w * project.problem.out_c) * element_bytes(project.problem.out_type);

  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t> expand_index, middle_index, project_index;
  const std::int64_t per_image = (out_h_ + rows - 1) / rows;
  const auto total = static_cast<std::size_t>(m.batch * per_image);
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), total);
  for (std::size_t w = 0; w <= workers; ++w) work_.push_back(total * w / workers);
  std::int64_t most_in_rows = 0;
  for (std::size_t w = 0; w < workers; ++w) {
    std::int64_t held_image = -1, held_begin = 0, held_end = 0;  // the expanded rows the thread's buffer holds
    for (std::size_t s = work_[w]; s < work_[w + 1]; ++s) {
      Strip strip;
      strip.image = static_cast<std::int64_t>(s) / per_image;
      strip.out_begin = static_cast<std::int64_t>(s) % per_image * rows;
      const std::int64_t out_end = std::min(strip.out_begin + rows, out_h_);
      const std::int64_t begin = strip.out_begin * m.stride_h - m.pad_top;
      const std::int64_t end = (out_end - 1) * m.stride_h - m.pad_top + window_rows(m);
      strip.in_begin = std::max<std::int64_t>(begin, 0);
      const std::int64_t in_end = std::min(end, in_h_);
      if (in_end <= strip.in_begin) throw std::invalid_argument("inverted-residual block: a strip's windows read no input row");
      most_in_rows = std::max(most_in_rows, in_end - strip.in_begin);
      strip.middle_op = slice(middle_ops_, middle_index, middle, in_end - strip.in_begin, strip.in_begin - begin, end - in_end);
      strip.project_op = slice(project_ops_, project_index, project, out_end - strip.out_begin, 0, 0);
      if (expand) {
        if (held_image == strip.image && strip.in_begin >= held_begin && strip.in_begin < held_end) {
          strip.kept_from = strip.in_begin - held_begin;
          strip.kept = std::min(held_end, in_end) - strip.in_begin;
        }
        strip.expand_rows = in_end - strip.in_begin - strip.kept;
        if (strip.expand_rows > 0) strip.expand_op = slice(expand_ops_, expand_index, *expand, strip.expand_rows, 0, 0);
        held_image = strip.image;
        held_begin = strip.in_begin;
        held_end = in_end;
      }
      strips_.push_back(strip);
    }
  }
  expanded_bytes_ = expand ? aligned(static_cast<std::size_t>(most_in_rows) * expanded_row_bytes_) : 0;
  thread_bytes_ = expanded_bytes_ + aligned(static_cast<std::size_t>(rows) * middle_row_bytes_);
}

void FusedInvertedResidual::run_strips(const std::uint8_t* input, std::uint8_t* output, std::uint8_t* scratch,
                                       std::size_t begin, std::size_t end) const {
  std::uint8_t* expanded = scratch;
  std::uint8_t* middle = scratch + expanded_bytes_;
  for (std::size_t s = begin; s < end; ++s) {
    const Strip& strip = strips_[s];
    const std::uint8_t* image = input + static_cast<std::size_t>(strip.image * in_h_) * in_row_bytes_;
    const std::uint8_t* middle_in = image + static_cast<std::size_t>(strip.in_begin) * in_row_bytes_;
    if (has_expand_) {
      if (strip.kept > 0 && strip.kept_from > 0)
        std::memmove(expanded, expanded + static_cast<std::size_t>(strip.kept_from) * expanded_row_bytes_,
                     static_cast<std::size_t>(strip.kept) * expanded_row_bytes_);
      if (strip.expand_rows > 0)
        expand_ops_[strip.expand_op].run(middle_in + static_cast<std::size_t>(strip.kept) * in_row_bytes_,
                                         expanded + static_cast<std::size_t>(strip.kept) * expanded_row_bytes_);
      middle_in = expanded;
    }
    middle_ops_[strip.middle_op].run(middle_in, middle);
    project_ops_[strip.project_op].run(
        middle, output + static_cast<std::size_t>(strip.image * out_h_ + strip.out_begin) * out_row_bytes_);
  }
}

void FusedInvertedResidual::run(const void* input, void* output, std::uint8_t* scratch) const {
  const auto* in = static_cast<const std::uint8_t*>(input);
  auto* out = static_cast<std::uint8_t*>(output);
  if (workers() <= 1) {
    run_strips(in, out, scratch, 0, strips_.size());
    return;
  }
  // One task per thread: each runs its strips in order, its buffers carrying the shared rows.
  parallel_for(static_cast<std::size_t>(workers()), workers(), [&](std::size_t task, int) {
    run_strips(in, out, scratch + task * thread_bytes_, work_[task], work_[task + 1]);
  });
}

}  // namespace qtune::executor
