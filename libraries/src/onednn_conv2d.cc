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
#include "onednn_layers.h"
#include "onednn_support.h"

namespace qtune::libraries::detail {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

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
  std::vector<std::uint32_t> pixel_class(row_of.size() * column_of.size());
  for (std::size_t y = 0; y < row_of.size(); ++y) {
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
// per group, from per-input-pixel group sums (one pass over the input, then one add per tap and
// group). Needed only for weight zero points.
struct WindowSums {
  explicit WindowSums(const Conv2dProblem& p)
      : problem(p),
        rows(window_inputs(p.out_h(), p.in_h, p.kernel_h, p.stride_h, p.pad_top, p.dilation_h)),
        columns(window_inputs(p.out_w(), p.in_w, p.kernel_w, p.stride_w, p.pad_left, p.dilation_w)) {}

  template <typename Activation>
  void compute(const Activation* input, std::vector<std::int32_t>& pixel_sums, std::int32_t* sums) const {
    const Conv2dProblem& p = problem;
    const std::int64_t groups = p.groups, cin_g = p.in_c / groups, pixels = p.in_h * p.in_w;
    pixel_sums.resize(static_cast<std::size_t>(pixels * groups));
    for (std::int64_t n = 0; n < p.batch; ++n) {
      const Activation* image = input + n * pixels * p.in_c;
      for (std::int64_t i = 0; i < pixels; ++i) {
        std::int32_t* out = pixel_sums.data() + i * groups;
        const Activation* pixel = image + i * p.in_c;
        if (cin_g == 1) {  // depthwise: the sums are the activations (a loop the compiler vectorizes)
          for (std::int64_t g = 0; g < groups; ++g) out[g] = pixel[g];
          continue;
        }
        for (std::int64_t g = 0; g < groups; ++g) {
          std::int32_t sum = 0;
          for (std::int64_t c = 0; c < cin_g; ++c) sum += pixel[g * cin_g + c];
          out[g] = sum;
        }
      }
      std::int32_t* out = sums + n * static_cast<std::int64_t>(rows.size() * columns.size()) * groups;
      for (const auto& ihs : rows) {
        for (const auto& iws : columns) {
          std::fill(out, out + groups, 0);
          for (std::int64_t ih : ihs) {
            for (std::int64_t iw : iws) {
              const std::int32_t* pixel = pixel_sums.data() + (ih * p.in_w + iw) * groups;
              for (std::int64_t g = 0; g < groups; ++g) out[g] += pixel[g];
            }
          }
          out += groups;
        }
      }
    }
  }

  Conv2dProblem problem;
  std::vector<std::vector<std::int64_t>> rows, columns;
};

// The weight dimensions oneDNN expects: {OC, IC, KH, KW}, or {G, OC/G, IC/G, KH, KW} when grouped.
memory::dims weight_dims(const Conv2dProblem& p) {
  const memory::dim g = p.groups, icg = p.in_c / g, ocg = p.out_c / g;
  if (g == 1) return {p.out_c, icg, p.kernel_h, p.kernel_w};
  return {g, ocg, icg, p.kernel_h, p.kernel_w};
}

// The caller's HWIO weights [KH][KW][Cg][OC] described with explicit strides: oneDNN's reorder
// reads them in place.
memory::desc hwio_desc(const Conv2dProblem& p) {
  const memory::dim oc = p.out_c, icg = p.in_c / p.groups, kw = p.kernel_w;
  if (p.groups == 1) return memory::desc(weight_dims(p), memory::data_type::s8, memory::dims{1, oc, kw * icg * oc, icg * oc});
  return memory::desc(weight_dims(p), memory::data_type::s8, memory::dims{oc / p.groups, 1, oc, kw * icg * oc, icg * oc});
}

// The convolution without zero points or bias, to s32, on its first exact implementation; throws
// std::invalid_argument when oneDNN has none.
dnnl::convolution_forward::primitive_desc exact_primitive_desc(const Conv2dProblem& p, const dnnl::engine& engine) {
  const memory::desc src_md({p.batch, p.in_c, p.in_h, p.in_w}, onednn_type(p.a_type), tag::nhwc);
  const memory::desc dst_md({p.batch, p.out_c, p.out_h(), p.out_w()}, memory::data_type::s32, tag::nhwc);
  try {
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
        memory::desc(weight_dims(p), memory::data_type::s8, tag::any), memory::desc(), dst_md,
        {p.stride_h, p.stride_w}, {p.dilation_h - 1, p.dilation_w - 1}, {p.pad_top, p.pad_left},
        {p.pad_bottom, p.pad_right});
    dnnl::convolution_forward::primitive_desc pd(desc, engine);
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
        dot_products_((set_onednn_threads(threads), exact_primitive_desc(p, engine_)), engine_, hwio_desc(p),
                      weights_hwio) {}

  void run(const void* input, void* output) const override {
    thread_local std::vector<std::int32_t> acc, sums, pixel_sums;
    acc.resize(rows_ * columns_);
    set_onednn_threads(threads_);
    dot_products_.execute(input, acc.data());
    const std::int32_t* row_sums = nullptr;
    if (finish_.needs_row_sums()) {
      sums.resize(rows_ * static_cast<std::size_t>(window_sums_.problem.groups));
      if (window_sums_.problem.a_type == DType::u8) {
        window_sums_.compute(static_cast<const std::uint8_t*>(input), pixel_sums, sums.data());
      } else {
        window_sums_.compute(static_cast<const std::int8_t*>(input), pixel_sums, sums.data());
      }
      row_sums = sums.data();
    }
    finish_.finish(acc.data(), rows_, row_sums, output, columns_);
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
