#include "accumulator_finish.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qtune::libraries::detail {

RequantizeConfig fastest_requantize_config() {
  RequantizeConfig best;  // scalar, always runnable
  for (const RequantizeConfig& c : requantize_variants()) {
    if (!requantize_check_config(c).empty()) continue;
    // Later instruction sets in the enum are the wider ones of their architecture.
    if (c.isa > best.isa || (c.isa == best.isa && c.unroll > best.unroll)) best = c;
  }
  return best;
}

AccumulatorFinish::AccumulatorFinish(std::size_t columns, std::vector<std::int32_t> column_terms,
                                     std::vector<std::uint32_t> row_class, std::vector<std::int32_t> b_zero_points,
                                     DType out_type, RequantParams requant, std::size_t groups)
    : columns_(columns), column_terms_(std::move(column_terms)), row_class_(std::move(row_class)),
      b_zero_points_(std::move(b_zero_points)), groups_(groups), out_type_(out_type) {
  if (out_type_ != DType::s32) requantize_.emplace(fastest_requantize_config(), requant, out_type_);
  if (columns_ == 0 || column_terms_.size() % columns_ != 0) throw std::invalid_argument("AccumulatorFinish: bad terms");
  if (groups_ == 0 || columns_ % groups_ != 0) throw std::invalid_argument("AccumulatorFinish: bad groups");
  if (b_zero_points_.size() != 1 && b_zero_points_.size() != columns_)
    throw std::invalid_argument("AccumulatorFinish: b_zero_points must have 1 or `columns` entries");
  b_zero_point_nonzero_ = std::any_of(b_zero_points_.begin(), b_zero_points_.end(), [](std::int32_t z) { return z != 0; });
}

void AccumulatorFinish::finish(std::int32_t* acc, std::size_t rows, const std::int32_t* row_sums, void* out,
                               std::size_t out_stride) const {
  if (b_zero_point_nonzero_ && row_sums == nullptr) throw std::invalid_argument("AccumulatorFinish: row sums needed");
  const bool per_column_zb = b_zero_points_.size() > 1;
  const std::size_t group_columns = columns_ / groups_;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t cls = row_class_.empty() ? 0 : row_class_[r % row_class_.size()];
    const std::int32_t* terms = column_terms_.data() + cls * columns_;
    std::int32_t* row = acc + r * columns_;
    // uint32 arithmetic: the reference's accumulator wraps, so must every term added here.
    for (std::size_t c = 0; c < columns_; ++c) {
      row[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row[c]) + static_cast<std::uint32_t>(terms[c]));
    }
    if (!b_zero_point_nonzero_) continue;
    const std::int32_t* sums = row_sums + r * groups_;
    // One vectorizable loop for the common layouts: one sum per row (GEMM, dense convolution) or
    // per column (depthwise); other groupings walk their groups.
    const auto* zbs = reinterpret_cast<const std::uint32_t*>(b_zero_points_.data());
    auto* out = reinterpret_cast<std::uint32_t*>(row);
    if (groups_ == 1) {
      const auto sum = static_cast<std::uint32_t>(sums[0]);
      if (per_column_zb) {
        for (std::size_t c = 0; c < columns_; ++c) out[c] -= zbs[c] * sum;
      } else {
        const std::uint32_t term = zbs[0] * sum;
        for (std::size_t c = 0; c < columns_; ++c) out[c] -= term;
      }
      continue;
    }
    if (groups_ == columns_) {
      const auto* column_sums = reinterpret_cast<const std::uint32_t*>(sums);
      if (per_column_zb) {
        for (std::size_t c = 0; c < columns_; ++c) out[c] -= zbs[c] * column_sums[c];
      } else {
        for (std::size_t c = 0; c < columns_; ++c) out[c] -= zbs[0] * column_sums[c];
      }
      continue;
    }
    for (std::size_t g = 0; g < groups_; ++g) {
      const auto sum = static_cast<std::uint32_t>(sums[g]);
      for (std::size_t c = g * group_columns; c < (g + 1) * group_columns; ++c) {
        const auto zb = static_cast<std::uint32_t>(b_zero_points_[per_column_zb ? c : 0]);
        row[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row[c]) - zb * sum);
      }
    }
  }
  if (out_type_ == DType::s32) {
    auto* dst = static_cast<std::int32_t*>(out);
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(dst + r * out_stride, acc + r * columns_, columns_ * 4);
    return;
  }
  requantize_->run(acc, rows, columns_, columns_, out, out_stride);
}

}  // namespace qtune::libraries::detail
