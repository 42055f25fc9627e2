// conv2d_reference: the plain loop every conv2d variant must match bit for bit. It follows the
// definition directly: padded taps are skipped (they would hold the zero point and add 0), sums
// are formed in uint32 so that the int32 accumulator wraps exactly like the kernels' vector adds.
#include <cstdint>

#include "qtune/kernels/conv2d.h"

namespace qtune {

void conv2d_reference(const Conv2dProblem& p, const void* input, const std::int8_t* weights,
                      const std::int32_t* bias, void* output) {
  p.validate();
  const std::int64_t oh_n = p.out_h(), ow_n = p.out_w();
  const std::int64_t cin_g = p.in_c / p.groups, cout_g = p.out_c / p.groups;
  const auto* in_u8 = static_cast<const std::uint8_t*>(input);
  const auto* in_s8 = static_cast<const std::int8_t*>(input);
  auto activation = [&](std::int64_t index) -> std::int32_t {
    return p.a_type == DType::u8 ? std::int32_t{in_u8[index]} : std::int32_t{in_s8[index]};
  };
  for (std::int64_t n = 0; n < p.batch; ++n) {
    for (std::int64_t oh = 0; oh < oh_n; ++oh) {
      for (std::int64_t ow = 0; ow < ow_n; ++ow) {
        for (std::int64_t co = 0; co < p.out_c; ++co) {
          const std::int64_t g = co / cout_g;
          const std::int32_t zb = p.b_zero_points.size() > 1 ? p.b_zero_points[co] : p.b_zero_points[0];
          std::uint32_t acc = p.has_bias ? static_cast<std::uint32_t>(bias[co]) : 0u;
          for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
            const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
            if (ih < 0 || ih >= p.in_h) continue;
            for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
              const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
              if (iw < 0 || iw >= p.in_w) continue;
              const std::int64_t pixel = ((n * p.in_h + ih) * p.in_w + iw) * p.in_c;
              for (std::int64_t ci = 0; ci < cin_g; ++ci) {
                // Depthwise is the grouped case cin_g == 1: channel co reads input channel g = co / multiplier.
                const std::int32_t a = activation(pixel + g * cin_g + ci) - p.a_zero_point;
                const std::int32_t b = std::int32_t{weights[((kh * p.kernel_w + kw) * cin_g + ci) * p.out_c + co]} - zb;
                acc += static_cast<std::uint32_t>(a * b);
              }
            }
          }
          const std::int64_t at = ((n * oh_n + oh) * ow_n + ow) * p.out_c + co;
          const auto value = static_cast<std::int32_t>(acc);
          switch (p.out_type) {
            case DType::s32: static_cast<std::int32_t*>(output)[at] = value; break;
            case DType::u8:
              static_cast<std::uint8_t*>(output)[at] =
                  static_cast<std::uint8_t>(requantize_reference(value, p.requant, static_cast<std::size_t>(co)));
              break;
            case DType::s8:
              static_cast<std::int8_t*>(output)[at] =
                  static_cast<std::int8_t>(requantize_reference(value, p.requant, static_cast<std::size_t>(co)));
              break;
          }
        }
      }
    }
  }
}

}  // namespace qtune
