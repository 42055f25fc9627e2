#include "conv2d/conv2d_gemm.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "conv2d/conv2d_patches.h"
#include "conv2d/conv2d_taps.h"
#include "conv2d/conv2d_window_terms.h"
#include "platform/thread_pool.h"

namespace qtune::detail {
namespace {

// im2col rows are padded to a multiple of this many bytes (the k group of the x86 byte kernels).
constexpr std::int64_t kPatchGroup = 4;

// Upper bound of one im2col block: the patch rows stay within about half an L2 of this class of core.
constexpr std::int64_t kIm2colBlockBytes = 512 * 1024;

template <class T>
std::vector<T> slice(const std::vector<T>& v, std::int64_t begin, std::int64_t count) {
  if (v.size() <= 1) return v;  // per tensor
  return std::vector<T>(v.begin() + begin, v.begin() + begin + count);
}

// For each output position along one axis, the taps [first, end) of the kernel's extent along it
// that fall inside the input (first >= end where none does): tap t of output o reads input
// o * stride - pad + t * dilation. Inside taps are contiguous, so a range says which.
std::vector<GemmASource::SegmentRange> taps_inside(std::int64_t outputs, std::int64_t inputs, std::int64_t kernel,
                                                   std::int64_t stride, std::int64_t pad, std::int64_t dilation) {
  std::vector<GemmASource::SegmentRange> ranges(static_cast<std::size_t>(outputs));
  for (std::int64_t o = 0; o < outputs; ++o) {
    std::int64_t first = kernel, end = 0;
    for (std::int64_t t = 0; t < kernel; ++t) {
      const std::int64_t i = o * stride - pad + t * dilation;
      if (i < 0 || i >= inputs) continue;
      first = std::min(first, t);
      end = t + 1;
    }
    ranges[static_cast<std::size_t>(o)] = {static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(end)};
  }
  return ranges;
}

}  // namespace

GemmProblem conv_group_gemm(const Conv2dProblem& p, std::int64_t group, std::int64_t m) {
  const std::int64_t nc = p.out_c / p.groups;
  GemmProblem g;
  g.m = m;
  g.n = nc;
  g.k = p.kernel_h * p.kernel_w * (p.in_c / p.groups);
  g.a_type = p.a_type;
  g.a_zero_point = p.a_zero_point;
  g.b_zero_points = slice(p.b_zero_points, group * nc, nc);
  g.has_bias = p.has_bias;
  g.out_type = p.out_type;
  g.requant = p.requant;
  if (p.out_type != DType::s32) {
    g.requant.scales = slice(p.requant.scales, group * nc, nc);
    g.requant.fixed = slice(p.requant.fixed, group * nc, nc);
    g.requant.scales_f32 = slice(p.requant.scales_f32, group * nc, nc);
  }
  return g;
}

Im2colBlocking im2col_blocking(const Conv2dProblem& p, int threads) {
  const std::int64_t m = p.batch * p.out_h() * p.out_w();
  const std::int64_t k = p.kernel_h * p.kernel_w * (p.in_c / p.groups);
  const std::int64_t cap = std::max<std::int64_t>(64, kIm2colBlockBytes / std::max<std::int64_t>(k, 1));
  std::int64_t blocks = (m + cap - 1) / cap;
  Im2colBlocking b;
  // Several threads take whole blocks (patch copy and GEMM) when there are enough rows for a block
  // of at least one 16-row tile each: the copy is then parallel too, and each thread's patches stay
  // in its own core's caches. Otherwise one thread copies and the GEMM engine splits the rest, as
  // it does where the output has more channels than pixels: blocks of rows would each read all of
  // the weights, where the engine splits the columns (MobileNetV2's Conv_1, 49 pixels x 1280).
  if (threads > 1 && m >= 16 * std::int64_t{threads} && m >= p.out_c) {
    blocks = (blocks + threads - 1) / threads * threads;
    b.block_threads = threads;
  }
  const std::int64_t rows = (m + blocks - 1) / blocks;
  b.rows = blocks == 1 ? m : (rows + 15) / 16 * 16;  // whole register tiles for every usual mr
  return b;
}

bool implicit_columns_first(const Conv2dProblem& p, const GemmConfig& config) {
  const GemmUkernel* uk = find_gemm_ukernel(config.isa, config.mr, config.nr);
  const std::int64_t m = p.batch * p.out_h() * p.out_w();
  return p.kernel_h == 1 && p.kernel_w > 1 && p.kernel_w <= std::numeric_limits<std::uint16_t>::max() &&
         (p.pad_left != 0 || p.pad_right != 0) && p.groups == 1 && uk != nullptr && p.in_c % uk->kr == 0 &&
         m <= std::numeric_limits<std::uint32_t>::max() &&
         GemmEngine::skips_dead_segments(conv_group_gemm(p, 0, m), config, static_cast<std::uint8_t>(p.a_zero_point));
}

std::int64_t implicit_group_bytes(const GemmConfig& config) {
  const GemmUkernel* uk = find_gemm_ukernel(config.isa, config.mr, config.nr);
  return uk != nullptr ? uk->kr : kPatchGroup;
}

std::optional<Conv2dProblem> implicit_widened(const Conv2dProblem& p, std::int64_t group_bytes) {
  const std::int64_t c = p.in_c / p.groups;
  if (p.groups != 1 || c <= 0 || group_bytes <= 0 || (p.kernel_w * c) % group_bytes == 0) return std::nullopt;
  const bool zb_fits = std::all_of(p.b_zero_points.begin(), p.b_zero_points.end(), [](std::int32_t zb) {
    return zb >= std::numeric_limits<std::int8_t>::min() && zb <= std::numeric_limits<std::int8_t>::max();
  });
  if (!zb_fits) return std::nullopt;
  Conv2dProblem w = p;
  while ((w.kernel_w * c) % group_bytes != 0) ++w.kernel_w;
  w.pad_right += (w.kernel_w - p.kernel_w) * p.dilation_w;
  return w;
}

std::vector<std::int8_t> widen_weights(const Conv2dProblem& p, const Conv2dProblem& w, const std::int8_t* weights) {
  const auto c = static_cast<std::size_t>(p.in_c), n = static_cast<std::size_t>(p.out_c);
  const auto kw_from = static_cast<std::size_t>(p.kernel_w), kw_to = static_cast<std::size_t>(w.kernel_w);
  std::vector<std::int8_t> out(static_cast<std::size_t>(p.kernel_h) * kw_to * c * n);
  for (std::size_t kh = 0; kh < static_cast<std::size_t>(p.kernel_h); ++kh) {
    for (std::size_t kw = 0; kw < kw_to; ++kw) {
      for (std::size_t ci = 0; ci < c; ++ci) {
        std::int8_t* row = out.data() + ((kh * kw_to + kw) * c + ci) * n;
        if (kw < kw_from) {
          std::memcpy(row, weights + ((kh * kw_from + kw) * c + ci) * n, n);
        } else {
          for (std::size_t j = 0; j < n; ++j) {
            row[j] = static_cast<std::int8_t>(p.b_zero_points.size() == 1 ? p.b_zero_points[0] : p.b_zero_points[j]);
          }
        }
      }
    }
  }
  return out;
}

std::string check_gemm_conv(const Conv2dProblem& problem, const Conv2dConfig& config) {
  // implicit checks the convolution it runs (implicit_widened).
  const std::optional<Conv2dProblem> widened =
      config.algo == ConvAlgo::implicit ? implicit_widened(problem, implicit_group_bytes(config.gemm)) : std::nullopt;
  const Conv2dProblem& p = widened ? *widened : problem;
  if (config.algo == ConvAlgo::gemm_1x1) {
    if (p.kernel_h != 1 || p.kernel_w != 1) return "algo gemm_1x1 needs a 1x1 kernel";
    if (p.stride_h != 1 || p.stride_w != 1) return "algo gemm_1x1 needs stride 1";
    if (p.pad_top != 0 || p.pad_bottom != 0 || p.pad_left != 0 || p.pad_right != 0) return "algo gemm_1x1 needs no padding";
    if (p.groups != 1) return "algo gemm_1x1 needs groups 1";
  }
  const std::int64_t m =
      config.algo == ConvAlgo::im2col ? im2col_blocking(p, config.gemm.threads).rows : p.batch * p.out_h() * p.out_w();
  if (config.algo == ConvAlgo::implicit) {
    if (p.groups != 1) return "algo implicit needs groups 1";
    if (p.dilation_w != 1) return "algo implicit needs dilation 1 along W (a kernel row is then one run of input bytes)";
    if (config.gemm.kc != 0) return "algo implicit takes kc=0: its K blocks are the kernel rows";
    const std::size_t segment = implicit_segment_bytes(p, implicit_columns_first(p, config.gemm));
    if (std::string why = GemmEngine::check_segmented(config.gemm, segment); !why.empty()) return "algo implicit: " + why;
    GemmConfig engine = config.gemm;
    engine.kc = static_cast<int>(segment);
    return gemm_check_config(conv_group_gemm(p, 0, m), engine);
  }
  std::string why = gemm_check_config(conv_group_gemm(p, 0, m), config.gemm);
  if (!why.empty()) return why;
  if (config.algo == ConvAlgo::indirect) return GemmEngine::check_indirect(config.gemm);
  return "";
}

GemmConv::GemmConv(const Conv2dProblem& problem, const Conv2dConfig& config, const std::int8_t* weights,
                   const std::int32_t* bias)
    : problem_(problem), algo_(config.algo) {
  std::vector<std::int8_t> widened_weights;
  if (algo_ == ConvAlgo::implicit) {
    if (const std::optional<Conv2dProblem> widened = implicit_widened(problem, implicit_group_bytes(config.gemm))) {
      problem_ = *widened;
      widened_weights = widen_weights(problem, problem_, weights);
      weights = widened_weights.data();
    }
  }
  const Conv2dProblem& p = problem_;
  m_ = p.batch * p.out_h() * p.out_w();
  group_in_ = p.in_c / p.groups;
  group_out_ = p.out_c / p.groups;
  k_ = p.kernel_h * p.kernel_w * group_in_;
  out_elem_ = p.out_type == DType::s32 ? 4 : 1;
  GemmConfig engine_config = config.gemm;
  block_rows_ = m_;
  if (algo_ == ConvAlgo::im2col) {
    const Im2colBlocking blocking = im2col_blocking(p, config.gemm.threads);
    block_rows_ = blocking.rows;
    block_threads_ = blocking.block_threads;
    if (block_threads_ > 1) engine_config.threads = 1;  // the threads are spent on whole blocks
  }
  if (algo_ == ConvAlgo::implicit) {
    // The engine's K blocks are the kernel rows; row m reads, for kernel row kh, KW*C_in bytes
    // from its top-left tap onwards in the input seen with its padding (padded_ copies it).
    // Columns first (implicit_columns_first), the K blocks are the taps of the one kernel row.
    columns_first_ = implicit_columns_first(p, config.gemm);
    engine_config.kc = static_cast<int>(implicit_segment_bytes(p, columns_first_));
    padded_ = p.pad_top != 0 || p.pad_bottom != 0 || p.pad_left != 0 || p.pad_right != 0;
    padded_h_ = p.in_h + p.pad_top + p.pad_bottom;
    padded_w_ = p.in_w + p.pad_left + p.pad_right;
    const auto pixel = static_cast<std::size_t>(p.in_c);
    const std::int64_t oh_n = p.out_h(), ow_n = p.out_w();
    row_offsets_.resize(static_cast<std::size_t>(m_));
    std::size_t* offset = row_offsets_.data();
    const auto row_offset = [&](std::int64_t n, std::int64_t oh, std::int64_t ow) {
      return static_cast<std::size_t>((n * padded_h_ + oh * p.stride_h) * padded_w_ + ow * p.stride_w) * pixel;
    };
    if (columns_first_) {
      // Rows (n, ow, oh); segment s is tap s of the row: the next pixel along W.
      pixel_of_row_.reserve(static_cast<std::size_t>(m_));
      const auto by_ow = taps_inside(ow_n, p.in_w, p.kernel_w, p.stride_w, p.pad_left, p.dilation_w);
      for (std::int64_t n = 0; n < p.batch; ++n) {
        for (std::int64_t ow = 0; ow < ow_n; ++ow) {
          for (std::int64_t oh = 0; oh < oh_n; ++oh) {
            *offset++ = row_offset(n, oh, ow);
            pixel_of_row_.push_back(static_cast<std::uint32_t>((n * oh_n + oh) * ow_n + ow));
          }
          live_segments_.insert(live_segments_.end(), oh_n, by_ow[static_cast<std::size_t>(ow)]);
        }
      }
      segment_stride_ = pixel;
    } else {
      for (std::int64_t n = 0; n < p.batch; ++n) {
        for (std::int64_t oh = 0; oh < oh_n; ++oh) {
          for (std::int64_t ow = 0; ow < ow_n; ++ow) *offset++ = row_offset(n, oh, ow);
        }
      }
      segment_stride_ = static_cast<std::size_t>(p.dilation_h * padded_w_) * pixel;
    }
    if (!columns_first_ && (p.pad_top != 0 || p.pad_bottom != 0) &&
        p.kernel_h <= std::numeric_limits<std::uint16_t>::max()) {
      const auto by_oh = taps_inside(oh_n, p.in_h, p.kernel_h, p.stride_h, p.pad_top, p.dilation_h);
      live_segments_.reserve(static_cast<std::size_t>(m_));
      for (std::int64_t n = 0; n < p.batch; ++n) {
        for (std::int64_t oh = 0; oh < oh_n; ++oh) live_segments_.insert(live_segments_.end(), ow_n, by_oh[static_cast<std::size_t>(oh)]);
      }
    }
    if (!live_segments_.empty()) {
      live_panels_ = panel_live_spans(live_segments_.data(), live_segments_.size(), static_cast<std::size_t>(engine_config.mr));
    }
  }
  // im2col rows are K bytes padded to whole 4-byte groups with the zero point, and the weights
  // get as many zero rows: (za - za) * (0 - zb) adds nothing, and no microkernel meets a ragged
  // last group (3-channel first layers: K = 27 or 147).
  patch_ld_ = k_;
  std::vector<std::int8_t> padded_weights;
  if (algo_ == ConvAlgo::im2col && k_ % kPatchGroup != 0) {
    patch_ld_ = (k_ + kPatchGroup - 1) / kPatchGroup * kPatchGroup;
    const auto row = static_cast<std::size_t>(p.out_c);
    padded_weights.assign(static_cast<std::size_t>(patch_ld_) * row, 0);
    std::memcpy(padded_weights.data(), weights, static_cast<std::size_t>(k_) * row);
    weights = padded_weights.data();
  }
  for (std::int64_t g = 0; g < p.groups; ++g) {
    GemmProblem group_gemm = conv_group_gemm(p, g, block_rows_);
    group_gemm.k = patch_ld_;
    engines_.push_back(std::make_unique<GemmEngine>(group_gemm, engine_config, weights + g * group_out_,
                                                    static_cast<std::size_t>(p.out_c),
                                                    p.has_bias ? bias + g * group_out_ : nullptr));
  }
  // Not for im2col: its engine sums the patch rows just before its tiles read them, from a block
  // of patches just written and still in cache, which cost less than the pixels' sums and the box
  // (docs/measurements.md, "Convolution algorithms").
  window_terms_ = algo_ == ConvAlgo::implicit && window_terms_pay(p) && engines_[0]->takes_row_terms();
  if (algo_ == ConvAlgo::indirect) {
    zero_row_.assign(static_cast<std::size_t>(group_in_), static_cast<std::uint8_t>(p.a_zero_point));
    const std::int64_t input_bytes = p.batch * p.in_h * p.in_w * p.in_c;
    // An offset must never be mistaken for the zero row's address (heap addresses are far larger).
    if (reinterpret_cast<std::uintptr_t>(zero_row_.data()) < static_cast<std::uintptr_t>(input_bytes)) {
      throw std::runtime_error("conv2d: the zero-point row's address collides with input offsets");
    }
    const auto taps = static_cast<std::size_t>(p.kernel_h * p.kernel_w);
    indirection_.resize(static_cast<std::size_t>(m_) * taps);
    for_each_tap(p, 0, m_, [&](std::int64_t m, std::int64_t tap, std::int64_t offset) {
      indirection_[static_cast<std::size_t>(m) * taps + static_cast<std::size_t>(tap)] =
          offset < 0 ? static_cast<const void*>(zero_row_.data())
                     : reinterpret_cast<const void*>(static_cast<std::uintptr_t>(offset));
    });
  }
}

GemmConv::~GemmConv() = default;

std::size_t GemmConv::packed_weight_bytes() const {
  std::size_t bytes = 0;
  for (const auto& e : engines_) bytes += e->packed_weight_bytes();
  return bytes;
}

void GemmConv::run(const void* input, void* output) const {
  const auto* in = static_cast<const std::uint8_t*>(input);
  auto* out = static_cast<std::uint8_t*>(output);
  switch (algo_) {
    case ConvAlgo::gemm_1x1:
      // The NHWC input is the GEMM's A: M = N*H*W rows of C_in bytes.
      engines_[0]->run(GemmASource::dense(in, static_cast<std::size_t>(problem_.in_c)), out,
                       static_cast<std::size_t>(problem_.out_c));
      return;
    case ConvAlgo::indirect: run_indirect(in, out); return;
    case ConvAlgo::implicit: run_implicit(in, out); return;
    case ConvAlgo::im2col: run_im2col(in, out); return;
    case ConvAlgo::depthwise: break;
  }
  throw std::logic_error("conv2d: GemmConv cannot run the depthwise algorithm");
}

void GemmConv::run_indirect(const std::uint8_t* input, std::uint8_t* output) const {
  const auto taps = static_cast<std::size_t>(problem_.kernel_h * problem_.kernel_w);
  const auto base = reinterpret_cast<std::uintptr_t>(input);
  for (std::int64_t g = 0; g < problem_.groups; ++g) {
    engines_[static_cast<std::size_t>(g)]->run(
        GemmASource::indirect(indirection_.data(), taps, static_cast<std::size_t>(group_in_),
                              static_cast<std::size_t>(base + static_cast<std::uintptr_t>(g * group_in_)), zero_row_.data()),
        output + static_cast<std::size_t>(g * group_out_) * out_elem_, static_cast<std::size_t>(problem_.out_c));
  }
}

namespace {
// What the implicit convolution's task hooks need (GemmASource::prepare_task, finish_task).
struct ImplicitTaskContext {
  const GemmConv* conv;
  const std::uint8_t* input;
  // Columns first: the GEMM's C (rows (n, ow, oh)), the output, and the output pixel of each row.
  const std::uint8_t* gemm_rows;
  std::uint8_t* output;
  const std::uint32_t* pixel_of_row;
  std::size_t out_c, out_elem;
};
// Columns first: GEMM rows [m_begin, m_end), columns [n_begin, n_end), to their output pixels.
void scatter_rows(const ImplicitTaskContext& task, std::size_t m_begin, std::size_t m_end, std::size_t n_begin,
                  std::size_t n_end) {
  const std::size_t row_bytes = task.out_c * task.out_elem, first = n_begin * task.out_elem;
  const std::size_t bytes = (n_end - n_begin) * task.out_elem;
  for (std::size_t m = m_begin; m < m_end; ++m) {
    std::memcpy(task.output + task.pixel_of_row[m] * row_bytes + first, task.gemm_rows + m * row_bytes + first, bytes);
  }
}
}  // namespace

WindowTermsLayout GemmConv::window_layout() const {
  const auto oh_n = static_cast<std::size_t>(problem_.out_h()), ow_n = static_cast<std::size_t>(problem_.out_w());
  return columns_first_ ? WindowTermsLayout{1, oh_n} : WindowTermsLayout{ow_n, 1};
}

GemmASource::TaskRows GemmConv::task_rows(const std::uint8_t* input, std::size_t m_begin, std::size_t m_end) const {
  const Conv2dProblem& p = problem_;
  // The calling thread's own, whole-sized (each task fills only its rows), kept across calls.
  thread_local std::vector<std::uint8_t> padded;
  thread_local std::vector<std::int32_t> terms;
  const auto ow_n = static_cast<std::size_t>(p.out_w()), oh_n = static_cast<std::size_t>(p.out_h());
  // Output rows (n, oh) whose windows the task's GEMM rows are: rows (n, oh, ow) in order, or
  // columns first (n, ow, oh), where a task's columns reach every row of their images.
  std::size_t first_out = m_begin / ow_n, end_out = (m_end + ow_n - 1) / ow_n;
  if (columns_first_) {
    const std::size_t image = ow_n * oh_n;
    first_out = m_begin / image * oh_n;
    end_out = (m_end + image - 1) / image * oh_n;
  }
  GemmASource::TaskRows rows{input, nullptr};
  if (padded_) {
    padded.resize(static_cast<std::size_t>(p.batch * padded_h_ * padded_w_ * p.in_c));
    // The padded rows their windows reach, from the first output row's first kernel row to the
    // last one's last.
    const auto padded_row_of = [&](std::size_t out_row, std::int64_t kh) {
      const auto n = static_cast<std::int64_t>(out_row / oh_n), oh = static_cast<std::int64_t>(out_row % oh_n);
      return static_cast<std::size_t>(n * padded_h_ + oh * p.stride_h + kh * p.dilation_h);
    };
    pad_rows(input, padded_row_of(first_out, 0), padded_row_of(end_out - 1, p.kernel_h - 1) + 1, padded.data());
    rows.base = padded.data();
  }
  if (window_terms_) {
    terms.resize(static_cast<std::size_t>(m_));
    conv_window_terms(p, *engines_[0], input, first_out, end_out, window_layout(), terms.data());
    rows.row_terms = terms.data();
  }
  return rows;
}

void GemmConv::run_implicit(const std::uint8_t* input, std::uint8_t* output) const {
  const Conv2dProblem& p = problem_;
  const int threads = std::max(1, engines_[0]->config().threads);
  // The input with its padding as zero-point pixels (a ninth of what im2col writes for a 3x3
  // kernel) and the rows' terms of the weight zero point (task_rows): on several threads each GEMM
  // task makes those of the rows it reads, on one a pass over all rows before the GEMM does.
  const bool per_task = threads > 1 && (padded_ || window_terms_);
  const std::uint8_t* a = input;
  const std::int32_t* row_terms = nullptr;
  if (!per_task && (padded_ || window_terms_)) {
    const GemmASource::TaskRows rows = task_rows(input, 0, static_cast<std::size_t>(m_));
    a = static_cast<const std::uint8_t*>(rows.base);
    row_terms = rows.row_terms;
  }
  const auto ldc = static_cast<std::size_t>(p.out_c);
  // Columns first the GEMM's rows are (n, ow, oh), written to by_columns and then each to its
  // pixel's place: by each task on several threads (finish_task), else in a pass after the GEMM.
  thread_local std::vector<std::uint8_t> by_columns;
  if (columns_first_) by_columns.resize(static_cast<std::size_t>(m_) * ldc * out_elem_);
  const ImplicitTaskContext context{this, input, by_columns.data(), output, pixel_of_row_.data(), ldc, out_elem_};
  GemmASource source = GemmASource::dense_segments(a, row_offsets_.data(), segment_stride_);
  if (!live_segments_.empty()) {
    source = source.with_live_segments(live_segments_.data(), static_cast<std::uint8_t>(p.a_zero_point),
                                       live_panels_.data(), static_cast<std::size_t>(engines_[0]->config().mr));
  }
  if (row_terms != nullptr) source = source.with_row_terms(row_terms);
  GemmASource::PrepareTask prepare = nullptr;
  GemmASource::FinishTask finish = nullptr;
  if (per_task) {
    prepare = [](const void* c, std::size_t m_begin, std::size_t m_end) {
      const auto& task = *static_cast<const ImplicitTaskContext*>(c);
      return task.conv->task_rows(task.input, m_begin, m_end);
    };
  }
  if (columns_first_ && threads > 1) {
    finish = [](const void* c, std::size_t m_begin, std::size_t m_end, std::size_t n_begin, std::size_t n_end) {
      const auto& task = *static_cast<const ImplicitTaskContext*>(c);
      scatter_rows(task, m_begin, m_end, n_begin, n_end);
    };
  }
  if (prepare != nullptr || finish != nullptr) source = source.with_task_hooks(prepare, finish, &context);
  if (!columns_first_) return engines_[0]->run(source, output, ldc);
  engines_[0]->run(source, by_columns.data(), ldc);
  if (finish == nullptr) scatter_rows(context, 0, static_cast<std::size_t>(m_), 0, ldc);
}

void GemmConv::pad_rows(const std::uint8_t* input, std::size_t first, std::size_t end, std::uint8_t* padded) const {
  const Conv2dProblem& p = problem_;
  const auto pixel = static_cast<std::size_t>(p.in_c);
  const auto za = static_cast<std::uint8_t>(p.a_zero_point);
  const std::size_t row = static_cast<std::size_t>(padded_w_) * pixel, in_row = static_cast<std::size_t>(p.in_w) * pixel;
  const std::size_t left = static_cast<std::size_t>(p.pad_left) * pixel, right = static_cast<std::size_t>(p.pad_right) * pixel;
  // A row of the padding is all zero point, an input row sits between two runs of it.
  for (std::size_t r = first; r < end; ++r) {
    std::uint8_t* dst = padded + r * row;
    const auto n = static_cast<std::int64_t>(r) / padded_h_, h = static_cast<std::int64_t>(r) % padded_h_ - p.pad_top;
    if (h < 0 || h >= p.in_h) {
      std::memset(dst, za, row);
      continue;
    }
    std::memset(dst, za, left);
    std::memcpy(dst + left, input + static_cast<std::size_t>(n * p.in_h + h) * in_row, in_row);
    std::memset(dst + left + in_row, za, right);
  }
}

void GemmConv::run_im2col(const std::uint8_t* input, std::uint8_t* output) const {
  const auto blocks = static_cast<std::size_t>((m_ + block_rows_ - 1) / block_rows_);
  if (block_threads_ > 1) {
    ThreadPool::global().parallel_for(blocks, block_threads_, [&](std::size_t block, int) {
      run_im2col_block(input, static_cast<std::int64_t>(block) * block_rows_, output);
    });
    return;
  }
  for (std::size_t block = 0; block < blocks; ++block) {
    run_im2col_block(input, static_cast<std::int64_t>(block) * block_rows_, output);
  }
}

void GemmConv::run_im2col_block(const std::uint8_t* input, std::int64_t m0, std::uint8_t* output) const {
  const Conv2dProblem& p = problem_;
  const auto ld = static_cast<std::size_t>(patch_ld_);
  const auto ldc = static_cast<std::size_t>(p.out_c);
  // Per thread (run is const and may be called concurrently, and blocks run on pool threads),
  // kept across calls so that no call allocates or clears them: the block's patches, and for a
  // short last block a scratch C of full block height.
  thread_local std::vector<std::uint8_t> patches, tail_c;
  patches.resize(static_cast<std::size_t>(block_rows_) * ld);
  const std::int64_t rows = std::min(block_rows_, m_ - m0);
  if (rows < block_rows_) tail_c.resize(static_cast<std::size_t>(block_rows_) * ldc * out_elem_);
  for (std::int64_t g = 0; g < p.groups; ++g) {
    write_patch_rows(p, g, input, m0, m0 + rows, patches.data(), ld);
    if (rows < block_rows_) {
      // Rows past the end are zero-point patches: valid input for the engine, results discarded.
      std::fill(patches.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(rows) * ld),
                patches.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(block_rows_) * ld),
                static_cast<std::uint8_t>(p.a_zero_point));
    }
    const std::size_t c_offset = static_cast<std::size_t>(g * group_out_) * out_elem_;
    std::uint8_t* c = rows < block_rows_ ? tail_c.data() : output + static_cast<std::size_t>(m0) * ldc * out_elem_;
    engines_[static_cast<std::size_t>(g)]->run(GemmASource::dense(patches.data(), ld), c + c_offset, ldc);
  }
  if (rows < block_rows_) {
    std::memcpy(output + static_cast<std::size_t>(m0) * ldc * out_elem_, tail_c.data(),
                static_cast<std::size_t>(rows) * ldc * out_elem_);
  }
}

}  // namespace qtune::detail
