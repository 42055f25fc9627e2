// Standalone requantization: config checks, dispatch to the per-ISA kernels, and the scalar kernel.
#include <stdexcept>
#include <string>

#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/requantize.h"
#include "dispatch/isa_table.h"
#include "requantize/requantize_internal.h"

namespace qtune {

namespace {

constexpr int kVectorUnrolls[] = {1, 2, 4};

// The instruction set's own requantization kernel; null for scalar (requantize_rows_scalar).
detail::RequantizeRowsFn vector_kernel(Isa isa) {
  const detail::IsaRow* row = detail::find_isa_row(isa);
  return row == nullptr ? nullptr : row->requantize;
}

bool compiled_in(Isa isa) { return isa == Isa::scalar || vector_kernel(isa) != nullptr; }

}  // namespace

std::vector<RequantizeConfig> requantize_variants() {
  std::vector<RequantizeConfig> variants{{Isa::scalar, 1}};
  for (const detail::IsaRow& row : detail::isa_table()) {
    if (row.requantize == nullptr) continue;
    for (int unroll : kVectorUnrolls) variants.push_back({row.isa, unroll});
  }
  return variants;
}

std::string requantize_check_config(const RequantizeConfig& config) {
  if (!compiled_in(config.isa)) {
    return "requantize has no " + std::string(to_string(config.isa)) + " kernel in this build";
  }
  if (config.isa == Isa::scalar) {
    if (config.unroll != 1) return "scalar requantize supports unroll 1 only, not " + std::to_string(config.unroll);
  } else if (config.unroll != 1 && config.unroll != 2 && config.unroll != 4) {
    return "requantize unroll " + std::to_string(config.unroll) + " is not one of 1, 2, 4";
  }
  if (!cpu_features().usable(config.isa)) {
    return "isa " + std::string(to_string(config.isa)) + " is not usable on this CPU";
  }
  return {};
}

void requantize(const RequantizeConfig& config, const RequantParams& params, DType out_type,
                const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride,
                void* out, std::size_t out_stride) {
  if (const std::string problem = params.check(out_type); !problem.empty())
    throw std::invalid_argument("requantize: " + problem);
  // The separate pass folds no centred origin.
  const detail::FloatForms forms = detail::unfolded_forms(detail::float_forms(config.isa));
  const detail::RequantPlan plan = detail::RequantPlan::make(params, forms);
  detail::requantize(config, plan.constants(), out_type, acc, rows, cols, acc_stride, out,
                     out_stride);
}

struct PreparedRequantize::Impl {
  RequantizeConfig config;
  DType out_type;
  detail::RequantPlan plan;
  detail::RequantConstants constants;
};

PreparedRequantize::PreparedRequantize(const RequantizeConfig& config, const RequantParams& params, DType out_type) {
  if (const std::string problem = params.check(out_type); !problem.empty())
    throw std::invalid_argument("requantize: " + problem);
  if (const std::string problem = requantize_check_config(config); !problem.empty()) throw std::invalid_argument(problem);
  const detail::FloatForms forms = detail::unfolded_forms(detail::float_forms(config.isa));
  auto impl = std::make_unique<Impl>(Impl{config, out_type, detail::RequantPlan::make(params, forms), {}});
  impl->constants = impl->plan.constants();  // points into impl->plan, which stays where it is
  impl_ = std::move(impl);
}

PreparedRequantize::~PreparedRequantize() = default;
PreparedRequantize::PreparedRequantize(PreparedRequantize&&) noexcept = default;
PreparedRequantize& PreparedRequantize::operator=(PreparedRequantize&&) noexcept = default;

void PreparedRequantize::run(const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride,
                             void* out, std::size_t out_stride) const {
  detail::requantize(impl_->config, impl_->constants, impl_->out_type, acc, rows, cols, acc_stride, out, out_stride);
}

namespace detail {

void requantize(const RequantizeConfig& config, const RequantConstants& plan, DType out_type,
                const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride,
                void* out, std::size_t out_stride) {
  if (const std::string problem = requantize_check_config(config); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  if (out_type != DType::u8 && out_type != DType::s8) {
    throw std::invalid_argument("requantize output type must be u8 or s8, not " + std::string(to_string(out_type)));
  }
  const std::int32_t type_min = out_type == DType::u8 ? 0 : -128;
  const std::int32_t type_max = out_type == DType::u8 ? 255 : 127;
  if (plan.qmin < type_min || plan.qmax > type_max) {
    throw std::invalid_argument("requantize bounds [" + std::to_string(plan.qmin) + ", " + std::to_string(plan.qmax) +
                                "] are outside the range of " + std::string(to_string(out_type)));
  }
  if (rows == 0 || cols == 0) return;  // nothing to write (any params fit an empty matrix)
  if (plan.per_channel && plan.channels() != cols) {
    throw std::invalid_argument("requantize: per-channel params have " + std::to_string(plan.channels()) +
                                " channels but the matrix has " + std::to_string(cols) + " columns");
  }
  if (acc == nullptr || out == nullptr) throw std::invalid_argument("requantize: null acc or out pointer");
  if (acc_stride < cols || out_stride < cols) {
    throw std::invalid_argument("requantize: strides (acc " + std::to_string(acc_stride) + ", out " +
                                std::to_string(out_stride) + ") must be >= cols " + std::to_string(cols));
  }
  if (const RequantizeRowsFn kernel = vector_kernel(config.isa)) {
    return kernel(config.unroll, plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
  }
  requantize_rows_scalar(plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
}

namespace {

template <RoundingMode Mode, typename Out>
void scalar_rows(const RequantConstants plan, const std::int32_t* acc, std::size_t rows, std::size_t cols,
                 std::size_t acc_stride, Out* out, std::size_t out_stride) {
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int32_t* src = acc + r * acc_stride;
    Out* dst = out + r * out_stride;
    for (std::size_t c = 0; c < cols; ++c) dst[c] = static_cast<Out>(requantize_scalar<Mode>(src[c], plan, c));
  }
}

template <typename Out>
void scalar_rows(const RequantConstants& plan, const std::int32_t* acc, std::size_t rows, std::size_t cols,
                 std::size_t acc_stride, Out* out, std::size_t out_stride) {
  with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() {
    scalar_rows<Mode>(plan, acc, rows, cols, acc_stride, out, out_stride);
  });
}

}  // namespace

void requantize_rows_scalar(const RequantConstants& plan, DType out_type, const std::int32_t* acc, std::size_t rows,
                            std::size_t cols, std::size_t acc_stride, void* out, std::size_t out_stride) {
  if (out_type == DType::u8) {
    scalar_rows(plan, acc, rows, cols, acc_stride, static_cast<std::uint8_t*>(out), out_stride);
  } else {
    scalar_rows(plan, acc, rows, cols, acc_stride, static_cast<std::int8_t*>(out), out_stride);
  }
}

}  // namespace detail
}  // namespace qtune
