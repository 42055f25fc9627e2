// oneDNN's int8 convolution computing raw int32 dot products over the taps inside the image
// (oneDNN pads with 0); qtune adds the zero-point terms and the bias in wrapping int32 and
// requantizes with its own pass:
//   sum (a - za)(w - zb) = sum a w - za * W(class) - zb * A(pixel, group) + zb * za * cin_g * taps(class)
// where W is the sum of the weights of the taps inside the image and A the sum of the activations
// under the window (weight zero points, which oneDNN 2.6 convolutions lack). The taps inside the
// image depend only on which kernel rows and columns an output pixel's window keeps, so the terms
// without A are one table row per (row window, column window) class: interior pixels share one.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "accumulator_finish.h"
#include "int32_sums.h"
#include "onednn_conv_descriptors.h"
#include "onednn_layers.h"
#include "onednn_support.h"

namespace qtune::libraries::detail {
namespace {

using dnnl::memory;

// For each output position along one axis, which kernel taps fall inside the input; the distinct
// patterns are returned in `patterns` and the position's pattern index in the result.
std::vector<std::uint32_t> window_classes(std::int64_t outputs, std::int64_t inputs, std::int64_t kernel,
                                          std::int64_t stride, std::int64_t pad, std::int64_t dilation,
                                          std::vector<std::vector<bool>>& patterns) {
  std::vector<std::uint32_t> classes(static_cast<std::size_t>(outputs));
  for (std::int64_t o = 0; o < outputs; ++o) {
    std::vector<bool> inside(static_cast<std::size_t>(kernel));
    for (std::int64_t t = 0; t < kernel; ++t) {
      const std::int64_t i = o * stride - pad + t * dilation;
      inside[static_cast<std::size_t>(t)] = i >= 0 && i < inputs;
    }
    auto it = std::find(patterns.begin(), patterns.end(), inside);
    if (it == patterns.end()) it = patterns.insert(patterns.end(), inside);
    classes[static_cast<std::size_t>(o)] = static_cast<std::uint32_t>(it - patterns.begin());
  }
  return classes;
}

AccumulatorFinish make_finish(const Conv2dProblem& p, const std::int8_t* weights, const std::int32_t* bias) {
  const auto oc = static_cast<std::size_t>(p.out_c);
  const std::int64_t cin_g = p.in_c / p.groups;
  std::vector<std::vector<bool>> row_patterns, column_patterns;
  const auto row_of = window_classes(p.out_h(), p.in_h, p.kernel_h, p.stride_h, p.pad_top, p.dilation_h, row_patterns);
  const auto column_of =
      window_classes(p.out_w(), p.in_w, p.kernel_w, p.stride_w, p.pad_left, p.dilation_w, column_patterns);
  // tap_sums[kh][kw][oc] = sum over the group's input channels of the weights.
  std::vector<std::uint32_t> tap_sums(static_cast<std::size_t>(p.kernel_h * p.kernel_w) * oc, 0);
  for (std::int64_t tap = 0; tap < p.kernel_h * p.kernel_w; ++tap) {
    for (std::int64_t ci = 0; ci < cin_g; ++ci) {
      const std::int8_t* w = weights + (tap * cin_g + ci) * p.out_c;
      for (std::size_t c = 0; c < oc; ++c) tap_sums[static_cast<std::size_t>(tap) * oc + c] += static_cast<std::uint32_t>(w[c]);
    }
  }
  const auto za = static_cast<std::uint32_t>(p.a_zero_point);
  std::vector<std::int32_t> terms;
  for (const auto& rows : row_patterns) {
    for (const auto& columns : column_patterns) {
      const auto taps = static_cast<std::uint32_t>(std::count(rows.begin(), rows.end(), true) *
                                                   std::count(columns.begin(), columns.end(), true));
      for (std::size_t c = 0; c < oc; ++c) {
        const auto zb = static_cast<std::uint32_t>(p.b_zero_points.size() > 1 ? p.b_zero_points[c] : p.b_zero_points[0]);
        std::uint32_t kept = 0;
        for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
          for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
            if (rows[static_cast<std::size_t>(kh)] && columns[static_cast<std::size_t>(kw)])
              kept += tap_sums[static_cast<std::size_t>(kh * p.kernel_w + kw) * oc + c];
          }
        }
        std::uint32_t term = zb * za * static_cast<std::uint32_t>(cin_g) * taps - za * kept;
        if (p.has_bias) term += static_cast<std::uint32_t>(bias[c]);
        terms.push_back(static_cast<std::int32_t>(term));
      }
    }
  }
  // One class (no padding reaches a window): no per-pixel classes to walk.
  std::vector<std::uint32_t> pixel_class(terms.size() == oc ? 0 : row_of.size() * column_of.size());
  for (std::size_t y = 0; y < row_of.size() && !pixel_class.empty(); ++y) {
    for (std::size_t x = 0; x < column_of.size(); ++x) {
      pixel_class[y * column_of.size() + x] = row_of[y] * static_cast<std::uint32_t>(column_patterns.size()) + column_of[x];
    }
  }
  return AccumulatorFinish(oc, std::move(terms), std::move(pixel_class), p.b_zero_points, p.out_type, p.requant,
                           static_cast<std::size_t>(p.groups));
}

// For each output position along one axis, the input positions its window reads inside the image.
std::vector<std::vector<std::int64_t>> window_inputs(std::int64_t outputs, std::int64_t inputs, std::int64_t kernel,
                                                     std::int64_t stride, std::int64_t pad, std::int64_t dilation) {
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(outputs));
  for (std::int64_t o = 0; o < outputs; ++o) {
    for (std::int64_t t = 0; t < kernel; ++t) {
      const std::int64_t i = o * stride - pad + t * dilation;
      if (i >= 0 && i < inputs) out[static_cast<std::size_t>(o)].push_back(i);
    }
  }
  return out;
}

// A(pixel, group) for every output pixel: the raw activations under its window inside the image,
// per group. Separable, in two passes of independent rows (so threads take a share of each): per
// input row, its pixels' group sums, then each output column's sum of them along W; per output row,
// the sum of its input rows' column sums along H (runs of OW * groups contiguous adds). A 1x1
// window at stride 1 without padding is its pixel: one pass. Needed only for weight zero points.
struct WindowSums {
  explicit WindowSums(const Conv2dProblem& p)
      : problem(p),
        rows(window_inputs(p.out_h(), p.in_h, p.kernel_h, p.stride_h, p.pad_top, p.dilation_h)),
        columns(window_inputs(p.out_w(), p.in_w, p.kernel_w, p.stride_w, p.pad_left, p.dilation_w)),
        row_width(static_cast<std::size_t>(p.out_w() * p.groups)),
        one_pixel(p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                  p.pad_bottom == 0 && p.pad_left == 0 && p.pad_right == 0) {}

  // Where one_pixel: output rows [first, end) straight from the input rows.
  template <typename Activation>
  void pixel_pass(const Activation* input, std::size_t first, std::size_t end, std::int32_t* sums) const {
    const auto in_row = static_cast<std::size_t>(problem.in_w * problem.in_c), groups = static_cast<std::size_t>(problem.groups);
    byte_row_sums(input + first * in_row, (end - first) * row_width, static_cast<std::size_t>(problem.in_c) / groups,
                  sums + first * row_width);
  }

  // Input rows [first, end) (rows are (n, ih) pairs in order) into column_sums (row_width per row).
  template <typename Activation>
  void column_pass(const Activation* input, std::size_t first, std::size_t end, std::int32_t* column_sums) const {
    const auto groups = static_cast<std::size_t>(problem.groups), in_w = static_cast<std::size_t>(problem.in_w),
               in_c = static_cast<std::size_t>(problem.in_c);
    thread_local std::vector<std::int32_t> pixel_sums;  // of the thread running the share
    pixel_sums.resize(in_w * groups);
    for (std::size_t r = first; r < end; ++r) {
      byte_row_sums(input + r * in_w * in_c, in_w * groups, in_c / groups, pixel_sums.data());
      std::int32_t* out = column_sums + r * row_width;
      for (std::size_t ow = 0; ow < columns.size(); ++ow) {
        const auto& iws = columns[ow];
        if (groups == 1) {  // a sum in a register, not a store and reload per tap
          std::int32_t sum = 0;
          for (const std::int64_t iw : iws) sum += pixel_sums[static_cast<std::size_t>(iw)];
          out[ow] = sum;
        } else {
          add_int32_rows(pixel_sums.data(), iws.data(), iws.size(), groups, out + ow * groups);
        }
      }
    }
  }

  // Output rows [first, end) ((n, oh) pairs) from all of column_sums, into sums (row_width per row).
  void row_pass(const std::int32_t* column_sums, std::size_t first, std::size_t end, std::int32_t* sums) const {
    const auto in_h = static_cast<std::size_t>(problem.in_h);
    for (std::size_t r = first; r < end; ++r) {
      const auto& ihs = rows[r % rows.size()];
      add_int32_rows(column_sums + (r / rows.size()) * in_h * row_width, ihs.data(), ihs.size(), row_width,
                     sums + r * row_width);
    }
  }

  Conv2dProblem problem;
  std::vector<std::vector<std::int64_t>> rows, columns;
  std::size_t row_width;  // output columns x groups: one output row's sums
  bool one_pixel;         // each window is one input pixel (pixel_pass)
};

// The convolution without zero points or bias, to s32, on its first exact implementation; throws
// std::invalid_argument when oneDNN has none.
dnnl::convolution_forward::primitive_desc exact_primitive_desc(const Conv2dProblem& p, const dnnl::engine& engine) {
  try {
    dnnl::convolution_forward::primitive_desc pd(convolution_desc(p, nhwc_output_desc(p, DType::s32), memory::desc()),
                                                 engine);
    select_exact_implementation(pd, p.a_type, p.kernel_h * p.kernel_w * (p.in_c / p.groups));
    return pd;
  } catch (const dnnl::error& e) {
    throw std::invalid_argument(std::string("oneDNN has no int8 convolution for this layer: ") + e.what());
  }
}

class OnednnConv2d final : public LibraryConv2d {
 public:
  OnednnConv2d(const Conv2dProblem& p, const std::int8_t* weights_hwio, const std::int32_t* bias, int threads)
      : window_sums_(p),
        threads_(threads),
        rows_(static_cast<std::size_t>(p.batch * p.out_h() * p.out_w())),
        columns_(static_cast<std::size_t>(p.out_c)),
        finish_(make_finish(p, weights_hwio, bias)),
        // The thread count is set before the primitive is made: oneDNN fixes its parallelization then.
        dot_products_((set_onednn_threads(threads), exact_primitive_desc(p, engine_)), engine_, hwio_weights_desc(p),
                      weights_hwio) {}

  void run(const void* input, void* output) const override {
    thread_local std::vector<std::int32_t> acc, sums, column_sums;
    acc.resize(rows_ * columns_);
    set_onednn_threads(threads_);
    dot_products_.execute(input, acc.data());
    // Pointers, not the thread_local vectors: the shares run on OpenMP's threads.
    std::int32_t* const dot_products = acc.data();
    std::int32_t *window_sums = nullptr, *input_column_sums = nullptr;
    const Conv2dProblem& p = window_sums_.problem;
    if (finish_.needs_row_sums()) {
      sums.resize(rows_ * static_cast<std::size_t>(p.groups));
      if (!window_sums_.one_pixel) column_sums.resize(static_cast<std::size_t>(p.batch * p.in_h) * window_sums_.row_width);
      window_sums = sums.data();
      input_column_sums = column_sums.data();
      const auto column_pass = [&](std::size_t first, std::size_t end) {
        if (p.a_type == DType::u8) {
          window_sums_.column_pass(static_cast<const std::uint8_t*>(input), first, end, input_column_sums);
        } else {
          window_sums_.column_pass(static_cast<const std::int8_t*>(input), first, end, input_column_sums);
        }
      };
      if (!window_sums_.one_pixel) in_thread_shares(threads_, static_cast<std::size_t>(p.batch * p.in_h), column_pass);
    }
    const auto out_w = static_cast<std::size_t>(p.out_w());
    in_thread_shares(threads_, rows_ / out_w, [&](std::size_t first, std::size_t end) {
      if (window_sums != nullptr && window_sums_.one_pixel) {
        if (p.a_type == DType::u8) {
          window_sums_.pixel_pass(static_cast<const std::uint8_t*>(input), first, end, window_sums);
        } else {
          window_sums_.pixel_pass(static_cast<const std::int8_t*>(input), first, end, window_sums);
        }
      } else if (window_sums != nullptr) {
        window_sums_.row_pass(input_column_sums, first, end, window_sums);
      }
      finish_.finish(dot_products, first * out_w, end * out_w, window_sums, output, columns_);
    });
  }

  const std::string& implementation() const override { return dot_products_.implementation(); }

 private:
  WindowSums window_sums_;
  int threads_;
  std::size_t rows_, columns_;
  AccumulatorFinish finish_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  RawDotProducts<dnnl::convolution_forward> dot_products_;
};

}  // namespace

std::string onednn_conv2d_unsupported(const Conv2dProblem& problem) {
  return exactness_problem(problem.a_type, problem.kernel_h * problem.kernel_w * (problem.in_c / problem.groups),
                           [&] { exact_primitive_desc(problem, dnnl::engine(dnnl::engine::kind::cpu, 0)); });
}

std::unique_ptr<const LibraryConv2d> prepare_onednn_conv2d(const Conv2dProblem& problem, const std::int8_t* weights,
                                                           const std::int32_t* bias, int threads) {
  return std::make_unique<const OnednnConv2d>(problem, weights, bias, threads);
}

}  // namespace qtune::libraries::detail
