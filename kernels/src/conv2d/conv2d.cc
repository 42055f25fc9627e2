// Conv2dOp: checks a configuration against a problem, picks a default, and prepares the chosen
// algorithm (GEMM-based in conv2d_gemm.cc, direct depthwise in conv2d_depthwise.cc).
#include <algorithm>
#include <stdexcept>

#include "conv2d/conv2d_gemm.h"
#include "dwconv/dwconv.h"
#include "dwconv/dwconv_driver.h"
#include "dispatch/isa_table.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune {

struct Conv2dOp::Impl {
  Conv2dProblem problem;
  Conv2dConfig config;
  std::unique_ptr<detail::GemmConv> gemm;
  std::unique_ptr<detail::DepthwiseConv> depthwise;
};

namespace {

std::string check_depthwise(const Conv2dProblem& p, const Conv2dConfig& config) {
  if (!p.depthwise()) {
    return "algo depthwise needs groups == in_c > 1 and out_c a multiple of in_c (got groups " +
           std::to_string(p.groups) + ", in_c " + std::to_string(p.in_c) + ", out_c " + std::to_string(p.out_c) + ")";
  }
  const Isa isa = config.gemm.isa;
  bool isa_compiled = false;
  std::string tiles;
  for (const detail::DwKernel& k : detail::dw_kernel_registry()) {
    if (k.isa != isa || k.form != detail::DwForm::general) continue;  // a form is not a tile of its own
    isa_compiled = true;
    tiles += (tiles.empty() ? "" : ", ") + std::to_string(k.channel_tile) + "x" + std::to_string(k.width_tile);
  }
  if (!isa_compiled) return "no depthwise kernels for isa " + std::string(to_string(isa)) + " in this build";
  if (!cpu_features().usable(isa)) return "isa " + std::string(to_string(isa)) + " is not usable on this CPU";
  if (detail::find_dw_kernel(isa, config.dw_channel_tile, config.dw_width_tile) == nullptr) {
    return "no depthwise " + std::to_string(config.dw_channel_tile) + "x" + std::to_string(config.dw_width_tile) +
           " (channel tile x width tile) kernel for " + std::string(to_string(isa)) + "; available: " + tiles;
  }
  if (config.gemm.threads < 1) return "threads must be >= 1";
  return "";
}

// The first usable instruction set of the table with depthwise kernels, and its default tile: the
// first of its default channel tiles that fits the layer's channels (the last one otherwise; a
// 64-channel tile fits 32 channels where the rowdot form takes them in pixel pairs), where an
// int8-form tile needs a vpdpbusd form to apply: weights with a zero weight zero point (so that
// w - zb fits int8 whatever the weights) and requantized output, and a whole-rows tile rows that
// are whole tiles.
Conv2dConfig default_depthwise_config(const Conv2dProblem& problem) {
  const bool zb_zero = std::all_of(problem.b_zero_points.begin(), problem.b_zero_points.end(),
                                   [](std::int32_t zb) { return zb == 0; });
  const bool int8_form = zb_zero && problem.out_type != DType::s32;
  const auto out_c = static_cast<std::size_t>(problem.out_c);
  const bool rowdot_pairs = int8_form && detail::dw_rowdot_pixel_pairs(out_c) &&
                            detail::dw_rowdot_applies(out_c, static_cast<std::size_t>(problem.kernel_w),
                                                      static_cast<std::size_t>(problem.dilation_w),
                                                      static_cast<std::size_t>(problem.stride_w),
                                                      static_cast<std::size_t>(problem.out_w()));
  Conv2dConfig c;
  c.algo = ConvAlgo::depthwise;
  c.gemm.fuse_requant = true;
  c.gemm.threads = 1;
  for (const detail::IsaRow& row : detail::isa_table()) {
    if (row.dw_tiles.empty() || !cpu_features().usable(row.isa)) continue;
    for (std::size_t i = 0; i < row.dw_tiles.size(); ++i) {
      const detail::DwDefaultTile tile = row.dw_tiles[i];
      const bool last = i + 1 == row.dw_tiles.size();
      if (tile.needs_int8_form && !int8_form) continue;
      if (tile.whole_rows && problem.out_w() % tile.width_tile != 0) continue;
      const bool in_pairs = rowdot_pairs && tile.needs_int8_form && tile.channel_tile > problem.out_c;
      if (!last && tile.channel_tile > problem.out_c && !in_pairs) continue;
      const detail::DwForm form = !tile.needs_int8_form ? detail::DwForm::general
                                  : in_pairs            ? detail::DwForm::rowdot
                                                        : detail::DwForm::dot4;
      if (detail::find_dw_kernel(row.isa, tile.channel_tile, tile.width_tile, form) == nullptr) continue;
      c.gemm.isa = row.isa;
      c.dw_channel_tile = tile.channel_tile;
      c.dw_width_tile = tile.width_tile;
      return c;
    }
  }
  throw std::logic_error("no depthwise kernel in the instruction-set table");  // scalar always has one
}

}  // namespace

const std::vector<DepthwiseKernelInfo>& depthwise_kernels() {
  static const std::vector<DepthwiseKernelInfo> list = [] {
    std::vector<DepthwiseKernelInfo> out;
    for (const detail::DwKernel& k : detail::dw_kernel_registry()) {
      const std::string form = k.form == detail::DwForm::general ? "" : detail::to_string(k.form);
      const std::string name = "q8-dwconv-" + std::to_string(k.channel_tile) + "c" + std::to_string(k.width_tile) +
                               "w-" + (form.empty() ? "" : form + "-") + std::string(to_string(k.isa));
      out.push_back({k.isa, k.channel_tile, k.width_tile, form, name});
    }
    return out;
  }();
  return list;
}

std::string conv2d_check_config(const Conv2dProblem& problem, const Conv2dConfig& config) {
  try {
    problem.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  if (config.algo == ConvAlgo::depthwise) return check_depthwise(problem, config);
  if (!parse_conv_algo(to_string(config.algo))) return "algo is not a ConvAlgo";
  return detail::check_gemm_conv(problem, config);
}

Conv2dConfig conv2d_default_config(const Conv2dProblem& problem) {
  if (problem.depthwise()) return default_depthwise_config(problem);
  Conv2dConfig c;
  const GemmProblem gemm = problem.as_gemm();
  c.gemm = gemm_default_config(gemm);
  const bool pointwise = problem.kernel_h == 1 && problem.kernel_w == 1 && problem.stride_h == 1 &&
                         problem.stride_w == 1 && problem.pad_top == 0 && problem.pad_bottom == 0 &&
                         problem.pad_left == 0 && problem.pad_right == 0 && problem.groups == 1;
  if (pointwise) {
    c.algo = ConvAlgo::gemm_1x1;
    if (conv2d_check_config(problem, c).empty()) return c;
  }
  // One group: implicit reads each kernel row's run of input bytes in place, with no copy but a
  // padded input; where it applies (a kernel row of whole k groups) it beat im2col on every layer
  // measured (InceptionV3's 3x3, 5x5, 1x7, 7x1 and 3x3/2 layers).
  // Widened to whole groups (implicit_widened: 3-channel first layers) it computes a third (3x3)
  // or a seventh (7x7) more products and copies nothing: faster without a weight zero point,
  // slower with one, whose row sums then run over three 12-byte runs per row where im2col's run
  // over one 28-byte patch. Otherwise im2col copies a kernel row's taps as one run into rows the
  // GEMM reads in place, where the indirect algorithm copies every tap on its own and then packs
  // the panel, far slower where a tap is 3 bytes (first layers) and slower elsewhere too (figures:
  // docs/measurements.md, "Convolution algorithms").
  if (problem.groups == 1 &&
      (!gemm.b_zero_point_nonzero() || !detail::implicit_widened(problem, detail::implicit_group_bytes(c.gemm)))) {
    c.algo = ConvAlgo::implicit;
    c.gemm.pack_a = false;
    const int kc = c.gemm.kc;
    c.gemm.kc = 0;
    if (conv2d_check_config(problem, c).empty()) return c;
    c.gemm.kc = kc;
  }
  if (problem.groups == 1) {
    c.algo = ConvAlgo::im2col;
    c.gemm.pack_a = false;
    if (conv2d_check_config(problem, c).empty()) return c;
    c.gemm.pack_a = true;  // families that widen A (AVX2) always pack it
    if (conv2d_check_config(problem, c).empty()) return c;
  }
  // Grouped: indirect convolution avoids the im2col copy; it needs A packed into panels.
  c.algo = ConvAlgo::indirect;
  c.gemm.pack_a = true;
  if (conv2d_check_config(problem, c).empty()) return c;
  c.algo = ConvAlgo::im2col;
  c.gemm = gemm_default_config(problem.as_gemm());
  return c;
}

Conv2dOp Conv2dOp::prepare(const Conv2dProblem& problem, const Conv2dConfig& config, const std::int8_t* weights,
                           const std::int32_t* bias) {
  problem.validate();
  const std::string why = conv2d_check_config(problem, config);
  if (!why.empty()) throw std::invalid_argument("conv2d: " + why);
  if (weights == nullptr) throw std::invalid_argument("conv2d: weights must not be null");
  if (problem.has_bias != (bias != nullptr)) throw std::invalid_argument("conv2d: bias must be given iff has_bias");
  auto impl = std::make_unique<Impl>();
  impl->problem = problem;
  impl->config = config;
  if (config.algo == ConvAlgo::depthwise) {
    impl->depthwise = std::make_unique<detail::DepthwiseConv>(problem, config, weights, bias);
  } else {
    impl->gemm = std::make_unique<detail::GemmConv>(problem, config, weights, bias);
  }
  return Conv2dOp(std::move(impl));
}

void Conv2dOp::run(const void* input, void* output) const {
  if (impl_->depthwise) {
    impl_->depthwise->run(input, output);
  } else {
    impl_->gemm->run(input, output);
  }
}

const Conv2dProblem& Conv2dOp::problem() const { return impl_->problem; }
const Conv2dConfig& Conv2dOp::config() const { return impl_->config; }

Conv2dOp::Conv2dOp(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Conv2dOp::Conv2dOp(Conv2dOp&&) noexcept = default;
Conv2dOp& Conv2dOp::operator=(Conv2dOp&&) noexcept = default;
Conv2dOp::~Conv2dOp() = default;

}  // namespace qtune
