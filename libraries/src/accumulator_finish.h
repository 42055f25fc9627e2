// The qtune side of a library layer: from the library's raw dot products sum(a * w) (no zero
// points, no bias) to the layer's output, exact in wrapping int32 as the reference forms it:
//   acc = raw + column_term[class(row)][c] - zb[c] * row_sum[row][group(c)]
// (bias and every term that depends on the column only folded into column_term)
// then requantized by qtune's separate pass (any rounding) or stored as s32. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "qtune/kernels/quant.h"
#include "qtune/kernels/requantize.h"

namespace qtune::libraries::detail {

class AccumulatorFinish {
 public:
  // `column_terms` holds `classes` rows of `columns` int32 terms (zero-point terms and bias);
  // `row_class` maps row % row_class.size() to its class (empty: every row is class 0).
  // `b_zero_points` (size 1 or columns) multiply the row sums given to finish(); pass {0} when the
  // weights have no zero point. `groups` splits the columns into equal groups with a row sum each
  // (a grouped convolution). out_type u8/s8 uses `requant`.
  AccumulatorFinish(std::size_t columns, std::vector<std::int32_t> column_terms, std::vector<std::uint32_t> row_class,
                    std::vector<std::int32_t> b_zero_points, DType out_type, RequantParams requant,
                    std::size_t groups = 1);

  // Rows [first_row, end_row) of the layer. acc: the whole layer's rows x columns, dense; those rows
  // modified in place. row_sums: `groups` per row (the sums of the activations the row's dot
  // products read, raw) or null when b_zero_points are all 0. out: the layer's first output row,
  // row stride out_stride elements. Ranges are independent: threads may finish one each.
  void finish(std::int32_t* acc, std::size_t first_row, std::size_t end_row, const std::int32_t* row_sums, void* out,
              std::size_t out_stride) const;

  bool needs_row_sums() const { return b_zero_point_nonzero_; }

 private:
  std::size_t columns_;
  std::vector<std::int32_t> column_terms_;
  std::vector<std::uint32_t> row_class_;
  std::vector<std::int32_t> b_zero_points_;
  std::size_t groups_;
  bool b_zero_point_nonzero_ = false;
  DType out_type_;
  std::optional<PreparedRequantize> requantize_;  // out_type u8/s8: the layer's plan, built once
};

// The widest requantization variant this CPU runs (qtune's separate pass for library layers).
RequantizeConfig fastest_requantize_config();

}  // namespace qtune::libraries::detail
