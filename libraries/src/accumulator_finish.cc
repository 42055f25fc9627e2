#include "accumulator_finish.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "qtune/kernels/target_clones.h"

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

namespace {

// The terms of `count` rows of one class added in place, in uint32 arithmetic: the reference's
// accumulator wraps, so must every term added here. zbs: one per column (per_column_zb) or one for
// all; sums: `columns / group_columns` per row, or null without weight zero points. Each common
// layout is one loop over a row that the compiler vectorizes (cloned for AVX-512: a row of 16
// columns is one vector): no weight zero point, one sum per row (GEMM, dense convolution) or per
// column (depthwise).
QTUNE_CLONED_FOR_AVX512
void add_row_terms(std::uint32_t* rows, std::size_t count, std::size_t columns, const std::uint32_t* terms,
                   const std::uint32_t* zbs, bool per_column_zb, const std::uint32_t* sums, std::size_t group_columns) {
  const std::size_t groups = columns / group_columns;
  for (std::size_t r = 0; r < count; ++r) {
    std::uint32_t* row = rows + r * columns;
    const std::uint32_t* row_sums = sums == nullptr ? nullptr : sums + r * groups;
    if (row_sums == nullptr) {
      for (std::size_t c = 0; c < columns; ++c) row[c] += terms[c];
    } else if (groups == 1 && !per_column_zb) {
      const std::uint32_t term = zbs[0] * row_sums[0];
      for (std::size_t c = 0; c < columns; ++c) row[c] += terms[c] - term;
    } else if (groups == 1) {
      for (std::size_t c = 0; c < columns; ++c) row[c] += terms[c] - zbs[c] * row_sums[0];
    } else if (group_columns == 1 && !per_column_zb) {
      for (std::size_t c = 0; c < columns; ++c) row[c] += terms[c] - zbs[0] * row_sums[c];
    } else if (group_columns == 1) {
      for (std::size_t c = 0; c < columns; ++c) row[c] += terms[c] - zbs[c] * row_sums[c];
    } else {
      for (std::size_t c = 0; c < columns; ++c) {
        row[c] += terms[c] - zbs[per_column_zb ? c : 0] * row_sums[c / group_columns];
      }
    }
  }
}

}  // namespace

void AccumulatorFinish::finish(std::int32_t* acc, std::size_t first_row, std::size_t end_row,
                               const std::int32_t* row_sums, void* out, std::size_t out_stride) const {
  if (b_zero_point_nonzero_ && row_sums == nullptr) throw std::invalid_argument("AccumulatorFinish: row sums needed");
  const auto* zbs = reinterpret_cast<const std::uint32_t*>(b_zero_points_.data());
  // Runs of rows of one class (all rows without classes; a convolution's output rows inside the
  // image), one call each.
  std::size_t class_at = row_class_.empty() ? 0 : first_row % row_class_.size();  // then counted, not divided
  for (std::size_t r = first_row; r < end_row;) {
    const std::size_t cls = row_class_.empty() ? 0 : row_class_[class_at];
    std::size_t run = row_class_.empty() ? end_row - r : 0;
    while (run == 0 || (r + run < end_row && row_class_[class_at] == cls)) {
      ++run;
      if (++class_at == row_class_.size()) class_at = 0;
    }
    add_row_terms(reinterpret_cast<std::uint32_t*>(acc + r * columns_), run, columns_,
                  reinterpret_cast<const std::uint32_t*>(column_terms_.data() + cls * columns_), zbs,
                  b_zero_points_.size() > 1,
                  b_zero_point_nonzero_ ? reinterpret_cast<const std::uint32_t*>(row_sums + r * groups_) : nullptr,
                  columns_ / groups_);
    r += run;
  }
  const std::int32_t* rows = acc + first_row * columns_;
  if (out_type_ == DType::s32) {
    auto* dst = static_cast<std::int32_t*>(out) + first_row * out_stride;
    for (std::size_t r = 0; r < end_row - first_row; ++r) std::memcpy(dst + r * out_stride, rows + r * columns_, columns_ * 4);
    return;
  }
  // u8 / s8: one byte per element.
  requantize_->run(rows, end_row - first_row, columns_, columns_, static_cast<std::uint8_t*>(out) + first_row * out_stride,
                   out_stride);
}

}  // namespace qtune::libraries::detail
