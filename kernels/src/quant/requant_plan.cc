// Builds the flattened, padded requantization plan of one operator (see requant_plan.h).
#include "quant/requant_plan.h"

#include "quant/fp32_equivalent.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace qtune::detail {

RequantPlan RequantPlan::make(const RequantParams& p, FloatForms forms) {
  // The plan is what every kernel's rounding-mode dispatch reads: nothing unchecked gets past here
  // (a mode outside the enum would fall through the dispatch into undefined behaviour).
  if (const std::string problem = p.check(); !problem.empty()) throw std::invalid_argument("RequantPlan: " + problem);
  const std::size_t n = p.scales.size();

  RequantPlan plan;
  plan.mode = p.mode;
  plan.zero_point = p.output_zero_point;
  plan.qmin = p.qmin;
  plan.qmax = p.qmax;
  plan.lo = p.qmin - p.output_zero_point;
  plan.hi = p.qmax - p.output_zero_point;
  plan.per_channel = p.per_channel();
  plan.channel_count = n;

  // Per-tensor: kMaxLanes copies so that a vector load at index 0 sees the value in every lane.
  // Per-channel: the channels, then kMaxLanes entries of harmless padding (M = 0, e = 0): a load
  // one channel later (the odd lanes' multipliers, requant_avx512.h) stays in bounds too.
  plan.every_scale_below_half = std::all_of(p.fixed.begin(), p.fixed.end(),
                                            [](const FixedPointMultiplier& f) { return f.shift <= -1; });
  plan.product_never_ties = std::all_of(p.fixed.begin(), p.fixed.end(), [](const FixedPointMultiplier& f) {
    // A tie is a product whose lowest set bit is 2^(s-1); an int32 accumulator brings 0 to 31
    // trailing zeros to M's.
    const int s = 31 - f.shift;
    const int zeros = std::countr_zero(static_cast<std::uint32_t>(f.multiplier));
    return f.multiplier == 0 || s - 1 < zeros || s - 1 > 31 + zeros;
  });
  const std::size_t size = plan.per_channel ? n + kMaxLanes : kMaxLanes;
  auto resize = [size](auto&... arrays) { (arrays.assign(size, {}), ...); };
  resize(plan.multiplier, plan.left_shift, plan.right_shift, plan.rdpot_mask, plan.rdpot_half,
         plan.arm_round_shift, plan.product_shift, plan.product_shift_m1, plan.rounding_pre_shift,
         plan.rounding_neg_post_shift, plan.tie_mask, plan.tie_bits, plan.scale, plan.fp32_offset, plan.fp32_origin);
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t c = plan.per_channel ? i : 0;
    const FixedPointMultiplier f = c < n ? p.fixed[c] : FixedPointMultiplier{0, 0};
    const std::int32_t l = f.shift > 0 ? f.shift : 0, r = f.shift < 0 ? -f.shift : 0;
    plan.multiplier[i] = f.multiplier;
    plan.left_shift[i] = l;
    plan.any_left_shift = plan.any_left_shift || l != 0;
    plan.right_shift[i] = r;
    plan.rdpot_mask[i] = static_cast<std::int32_t>((std::int64_t{1} << r) - 1);
    plan.rdpot_half[i] = plan.rdpot_mask[i] >> 1;
    plan.arm_round_shift[i] = r > 0 ? r - 1 : 0;
    const std::int32_t s = 31 - f.shift;
    plan.product_shift[i] = s;
    plan.product_shift_m1[i] = s - 1;
    plan.rounding_pre_shift[i] = std::max(32 - s, 0);
    plan.rounding_neg_post_shift[i] = -std::max(s - 31, 1);
    const int t = s - 1 - std::countr_zero(static_cast<std::uint32_t>(f.multiplier));
    const bool can_tie = f.multiplier != 0 && t >= 0 && t <= 31;
    // The sign bit in both: only negative accumulators are corrected.
    constexpr std::uint32_t kSign = 0x80000000u;
    const std::uint32_t low_bits = can_tie ? static_cast<std::uint32_t>((std::uint64_t{2} << t) - 1) : 0;
    plan.tie_mask[i] = static_cast<std::int32_t>(low_bits | kSign);
    plan.tie_bits[i] = static_cast<std::int32_t>((can_tie ? std::uint32_t{1} << t : 1u) | kSign);
    plan.scale[i] = c < n ? p.scales_f32[c] : 0.0f;
  }
  // Channel c's one-shift constants at [c % 2][c / 2]; per-tensor plans hold copies in both halves.
  const std::size_t half = plan.per_channel ? (n + 1) / 2 + kMaxLanes / 2 : kMaxLanes / 2;
  for (int parity = 0; parity < 2; ++parity) {
    plan.shift_add[parity].assign(half, 0);
    plan.shift_sub[parity].assign(half, 0);
    plan.shift_count[parity].assign(half, 31);
    for (std::size_t j = 0; j < half; ++j) {
      const std::size_t c = plan.per_channel ? 2 * j + static_cast<std::size_t>(parity) : 0;
      const std::int64_t r = c < n ? plan.right_shift[c] : 0;
      plan.shift_add[parity][j] = (std::int64_t{1} << 30) + (r > 0 ? std::int64_t{1} << (30 + r) : 0);
      plan.shift_sub[parity][j] = p.mode == RoundingMode::tflite && r > 0 ? std::int64_t{1} << 31 : 0;
      plan.shift_count[parity][j] = 31 + r;
    }
  }
  if (forms != FloatForms::none) plan.use_fp32_equivalent(p, forms);
  // tflite and arm differ only in how their second rounding breaks the ties of negative results
  // (away from zero, up); the results stay negative or zero either way. Where the clamp takes all
  // of those to lo >= 0 (a fused ReLU: qmin >= zero point), arm's form, without tflite's tie
  // correction (shift_sub), gives every accumulator the same output for fewer instructions.
  if (plan.mode == RoundingMode::tflite && plan.lo >= 0) {
    plan.mode = RoundingMode::arm;
    plan.arm_equivalent_of_tflite = true;
    for (auto& sub : plan.shift_sub) sub.assign(sub.size(), 0);
  }
  return plan;
}

void RequantPlan::use_fp32_equivalent(const RequantParams& p, FloatForms admitted) {
  if (mode == RoundingMode::fp32) return;
  const std::size_t n = channel_count;
  std::vector<Fp32Form> forms(n);
  // Every channel's form of one kind: uncentred first (plain fp32 is the cheapest), then centred
  // where admitted; one channel without a form keeps the plan in its integer mode.
  const auto find_all = [&](Centring centring) {
    for (std::size_t c = 0; c < n; ++c) {
      const std::optional<Fp32Form> form = fp32_equivalent(mode, p.fixed[c], lo, hi, centring);
      if (!form) return false;
      forms[c] = *form;
    }
    return true;
  };
  const bool centred_too =
      admitted == FloatForms::directed_rounding || admitted == FloatForms::centred_when_folded;
  if (!find_all(Centring::uncentred) && !(centred_too && find_all(Centring::centred))) return;
  bool any_offset = false;
  for (const Fp32Form& form : forms) any_offset = any_offset || form.offset != 0.0f;
  const std::int32_t centre = n > 0 ? forms[0].centre : 0;
  for (std::size_t i = 0; i < scale.size(); ++i) {
    // Per-tensor plans hold copies of their one channel; per-channel padding keeps 0.
    const std::size_t c = per_channel ? i : 0;
    scale[i] = c < n ? forms[c].scale : 0.0f;
    fp32_offset[i] = c < n ? forms[c].offset : 0.0f;
    fp32_origin[i] = c < n ? forms[c].origin : 0.0f;
  }
  fp32_equivalent_of = mode;
  float_centre = centre;
  mode = centre != 0 ? kFp32Centred : any_offset ? kFp32Offset : RoundingMode::fp32;
}

RequantConstants RequantPlan::constants() const {
  RequantConstants c;
  c.mode = mode;
  c.zero_point = zero_point + float_centre;
  c.qmin = qmin;
  c.qmax = qmax;
  c.lo = lo - float_centre;
  c.hi = hi - float_centre;
  c.per_channel = per_channel;
  c.channel_count = channel_count;
  c.multiplier = multiplier.data();
  c.left_shift = left_shift.data();
  c.right_shift = right_shift.data();
  c.rdpot_mask = rdpot_mask.data();
  c.rdpot_half = rdpot_half.data();
  c.arm_round_shift = arm_round_shift.data();
  c.product_shift = product_shift.data();
  c.product_shift_m1 = product_shift_m1.data();
  c.rounding_pre_shift = rounding_pre_shift.data();
  c.rounding_neg_post_shift = rounding_neg_post_shift.data();
  c.tie_mask = tie_mask.data();
  c.tie_bits = tie_bits.data();
  c.scale = scale.data();
  c.fp32_offset = fp32_offset.data();
  c.fp32_origin = fp32_origin.data();
  c.any_left_shift = any_left_shift;
  c.every_scale_below_half = every_scale_below_half;
  c.product_never_ties = product_never_ties;
  for (int parity = 0; parity < 2; ++parity) {
    c.shift_add[parity] = shift_add[parity].data();
    c.shift_sub[parity] = shift_sub[parity].data();
    c.shift_count[parity] = shift_count[parity].data();
  }
  return c;
}

double max_abs_offset(DType type, std::int32_t zero_point) {
  const bool u8 = type == DType::u8;
  const double z = zero_point;
  return std::max(z - (u8 ? 0.0 : -128.0), (u8 ? 255.0 : 127.0) - z);
}

bool centred_origin_foldable(const RequantPlan& plan, double max_abs_accumulator) {
  const double range = std::max(std::abs(static_cast<double>(plan.lo)), std::abs(static_cast<double>(plan.hi)));
  for (std::size_t c = 0; c < plan.channels(); ++c) {
    const double origin = std::abs(static_cast<double>(plan.fp32_origin[plan.index(c)]));
    const double scale = plan.scale[plan.index(c)];
    if (!(scale > 0) || max_abs_accumulator + origin >= 2147483648.0) return false;
    if ((range + 2) / scale + 16 + origin >= 16777216.0) return false;
  }
  return true;
}

}  // namespace qtune::detail
