#include "gemm/gemm_pack.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dispatch/isa_table.h"
#include "gemm/pair_order.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune::detail {
namespace {

// Wrapping int32 arithmetic (the accumulator semantics) without signed-overflow UB.
std::int32_t wrap(std::uint32_t v) { return static_cast<std::int32_t>(v); }
std::uint32_t u(std::int64_t v) { return static_cast<std::uint32_t>(v); }

template <class BElem>
void pack_b_typed(const GemmUkernel& uk, const GemmProblem& problem, const std::int8_t* b, std::size_t ldb,
                  const std::int32_t* bias, std::uint8_t* dst) {
  const auto n = static_cast<std::size_t>(problem.n), k = static_cast<std::size_t>(problem.k);
  const auto nr = static_cast<std::size_t>(uk.nr), stride = static_cast<std::size_t>(uk.nr_stride);
  const auto kr = static_cast<std::size_t>(uk.kr);
  const std::size_t k_groups = (k + kr - 1) / kr;
  const std::size_t panel_bytes = gemm_b_panel_bytes(uk, k_groups);
  const std::size_t panels = (n + nr - 1) / nr;
  const std::uint32_t za = u(packed_a_zero_point(uk, problem));
  std::memset(dst, 0, panels * panel_bytes);
  for (std::size_t p = 0; p < panels; ++p) {
    std::uint8_t* panel = dst + p * panel_bytes;
    auto* col_terms = reinterpret_cast<std::int32_t*>(panel);
    auto* col_zb = col_terms + stride;
    auto* weights = reinterpret_cast<BElem*>(col_zb + stride);
    for (std::size_t j = 0; j < nr; ++j) {
      const std::size_t col = p * nr + j;
      if (col >= n) break;
      const std::int32_t zb = problem.b_zero_points.size() == 1 ? problem.b_zero_points[0] : problem.b_zero_points[col];
      std::uint32_t colsum = 0;
      for (std::size_t kk = 0; kk < k; ++kk) {
        const std::int8_t value = b[kk * ldb + col];
        colsum += u(value);
        const std::size_t g = kk / kr, t = kk % kr;
        const std::size_t at = uk.b_format == PackedB::s8_quads ? g * stride * kr + (t / 4) * stride * 4 + j * 4 + t % 4
                                                                : g * stride * kr + j * kr + t;
        weights[at] = static_cast<BElem>(value);
      }
      const std::uint32_t bias_term = bias != nullptr ? u(bias[col]) : 0u;
      col_terms[j] = wrap(bias_term - za * colsum + u(static_cast<std::int64_t>(k)) * za * u(zb));
      col_zb[j] = zb;
    }
  }
}

template <class AElem>
void pack_a_typed(const GemmUkernel& uk, DType a_type, std::uint8_t flip, const std::uint8_t* const* rows,
                  std::size_t row_count, std::size_t k_bytes, std::size_t k_groups, AElem* dst,
                  std::int32_t* row_terms, const std::uint8_t* k_order) {
  const auto mr = static_cast<std::size_t>(uk.mr), kr = static_cast<std::size_t>(uk.kr);
  const std::size_t whole = k_order == nullptr ? k_bytes / kr : 0;
  for (std::size_t i = 0; i < mr; ++i) {
    AElem* out = dst + i * kr;
    const std::size_t group_stride = mr * kr;
    if (i >= row_count) {
      for (std::size_t g = 0; g < k_groups; ++g) std::memset(out + g * group_stride, 0, kr * sizeof(AElem));
      continue;
    }
    const std::uint8_t* src = rows[i];
    std::uint32_t sum = 0;
    auto convert = [&](std::uint8_t byte) -> AElem {
      if constexpr (sizeof(AElem) == 1) {
        return static_cast<AElem>(byte ^ flip);
      } else {
        return a_type == DType::s8 ? static_cast<AElem>(static_cast<std::int8_t>(byte)) : static_cast<AElem>(byte);
      }
    };
    std::size_t g = 0;
    for (; g < whole; ++g) {
      for (std::size_t t = 0; t < kr; ++t) {
        const AElem v = convert(src[g * kr + t]);
        out[g * group_stride + t] = v;
        sum += u(v);
      }
    }
    for (; g < k_groups; ++g) {
      for (std::size_t t = 0; t < kr; ++t) {
        const std::size_t kk = g * kr + t;
        // k_order moves a byte within its window; past k_bytes it leaves each where it is (0).
        const std::size_t from = pair_order_row(k_order, kk);
        AElem v = 0;
        if (from < k_bytes) v = convert(src[from]);
        out[g * group_stride + t] = v;
        sum += u(v);
      }
    }
    if (row_terms != nullptr) row_terms[i] = wrap(u(row_terms[i]) - sum);
  }
}

}  // namespace

std::int32_t packed_a_zero_point(const GemmUkernel& uk, const GemmProblem& problem) {
  if (packed_a_flip(uk, problem) == 0) return problem.a_zero_point;
  return problem.a_zero_point + (uk.a_format == PackedA::s8 ? -128 : 128);  // u8 -> s8 : s8 -> u8
}

std::uint8_t packed_a_flip(const GemmUkernel& uk, const GemmProblem& problem) {
  if (uk.a_format == PackedA::s8) return problem.a_type == DType::u8 ? 0x80 : 0;
  return uk.a_format == PackedA::u8 && problem.a_type == DType::s8 ? 0x80 : 0;
}

void pack_b(const GemmUkernel& uk, const GemmProblem& problem, const std::int8_t* b, std::size_t ldb,
            const std::int32_t* bias, std::uint8_t* dst) {
  if (uk.b_format == PackedB::s16) {
    pack_b_typed<std::int16_t>(uk, problem, b, ldb, bias, dst);
  } else {
    pack_b_typed<std::int8_t>(uk, problem, b, ldb, bias, dst);
  }
}

void pack_a_panel(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                  std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms,
                  const std::uint8_t* k_order) {
  // The first usable vector packer of the instruction-set table, if any.
  static const PackAPanelFn vector_packer = [] {
    for (const IsaRow& row : isa_table()) {
      if (row.pack_a_panel != nullptr && cpu_features().usable(row.isa)) return row.pack_a_panel;
    }
    return PackAPanelFn{nullptr};
  }();
  if (vector_packer != nullptr &&
      vector_packer(uk, a_type, rows, row_count, k_bytes, k_groups, dst, row_terms, k_order)) {
    return;
  }
  pack_a_panel_generic(uk, a_type, rows, row_count, k_bytes, k_groups, dst, row_terms, k_order);
}

void pack_a_panel_generic(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                          std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms,
                          const std::uint8_t* k_order) {
  if (uk.a_format == PackedA::s16) {
    pack_a_typed(uk, a_type, 0, rows, row_count, k_bytes, k_groups, static_cast<std::int16_t*>(dst), row_terms,
                 k_order);
  } else if (uk.a_format == PackedA::s8) {
    const std::uint8_t flip = a_type == DType::u8 ? 0x80 : 0;
    pack_a_typed(uk, a_type, flip, rows, row_count, k_bytes, k_groups, static_cast<std::int8_t*>(dst), row_terms,
                 k_order);
  } else {
    const std::uint8_t flip = a_type == DType::s8 ? 0x80 : 0;
    pack_a_typed(uk, a_type, flip, rows, row_count, k_bytes, k_groups, static_cast<std::uint8_t*>(dst), row_terms,
                 k_order);
  }
}

namespace {

// The sum of (row[k] ^ flip) as unsigned bytes. Every x86-64 CPU has SSE2, whose psadbw sums 8
// bytes per instruction: with per-tensor weight zero points (TFLite's uint8 models) every row of
// A in place needs this sum, and a byte loop cost a large share of the GEMM it belongs to
// (docs/measurements.md, "Row sums").
std::uint32_t byte_sum(std::uint8_t flip, const std::uint8_t* row, std::size_t k_bytes) {
  std::uint32_t sum = 0;
  std::size_t k = 0;
#if defined(__SSE2__)
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip)), zero = _mm_setzero_si128();
  __m128i sums = zero;
  for (; k + 16 <= k_bytes; k += 16) {
    const __m128i bytes = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k)), flips);
    sums = _mm_add_epi64(sums, _mm_sad_epu8(bytes, zero));
  }
  sum = static_cast<std::uint32_t>(_mm_cvtsi128_si32(sums)) +
        static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
#endif
  for (; k < k_bytes; ++k) sum += static_cast<std::uint8_t>(row[k] ^ flip);
  return sum;
}

// After the vector kernels summed PackedA::s8 rows as (v ^ 0x80) (unsigned): each row's term
// back to int8(v) = uint8(v ^ 0x80) - 128, i.e. 128 per byte.
void add_s8_offsets(std::size_t k_bytes, std::size_t count, std::int32_t* row_terms) {
  const std::uint32_t offset = 128u * u(static_cast<std::int64_t>(k_bytes));
  for (std::size_t i = 0; i < count; ++i) row_terms[i] = wrap(u(row_terms[i]) + offset);
}

}  // namespace

void accumulate_a_row_term(std::uint8_t flip, const std::uint8_t* row, std::size_t k_bytes, std::int32_t* row_term) {
  *row_term = wrap(u(*row_term) - byte_sum(flip, row, k_bytes));
}

void accumulate_a_row_term(PackedA format, std::uint8_t flip, const std::uint8_t* row, std::size_t k_bytes,
                           std::int32_t* row_term) {
  if (format != PackedA::s8) return accumulate_a_row_term(flip, row, k_bytes, row_term);
  // The packed values are signed bytes: int8(v) = uint8(v ^ 0x80) - 128.
  const std::uint32_t sum =
      byte_sum(static_cast<std::uint8_t>(flip ^ 0x80), row, k_bytes) - 128u * u(static_cast<std::int64_t>(k_bytes));
  *row_term = wrap(u(*row_term) - sum);
}

void accumulate_a_row_terms(PackedA format, std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count,
                            std::size_t k_bytes, std::int32_t* row_terms) {
  // The first usable vector kernel of the instruction-set table, if any.
  static const RowSumsFn vector_sums = [] {
    for (const IsaRow& row : isa_table()) {
      if (row.a_row_sums != nullptr && cpu_features().usable(row.isa)) return row.a_row_sums;
    }
    return RowSumsFn{nullptr};
  }();
  if (vector_sums == nullptr || k_bytes >= kRowSumsMaxBytes) {
    for (std::size_t i = 0; i < count; ++i) accumulate_a_row_term(format, flip, rows[i], k_bytes, &row_terms[i]);
    return;
  }
  if (format != PackedA::s8) return vector_sums(flip, rows, count, k_bytes, row_terms);
  // As accumulate_a_row_term: int8(v) = uint8(v ^ 0x80) - 128.
  vector_sums(static_cast<std::uint8_t>(flip ^ 0x80), rows, count, k_bytes, row_terms);
  add_s8_offsets(k_bytes, count, row_terms);
}

bool accumulate_dense_row_terms(PackedA format, std::uint8_t flip, const std::uint8_t* first, std::size_t count,
                                std::size_t row_bytes, std::int32_t* row_terms) {
  static const DenseRowSumsFn dense_sums = [] {
    for (const IsaRow& row : isa_table()) {
      if (row.a_dense_row_sums != nullptr && cpu_features().usable(row.isa)) return row.a_dense_row_sums;
    }
    return DenseRowSumsFn{nullptr};
  }();
  if (dense_sums == nullptr) return false;
  if (format != PackedA::s8) return dense_sums(flip, first, count, row_bytes, row_terms);
  if (!dense_sums(static_cast<std::uint8_t>(flip ^ 0x80), first, count, row_bytes, row_terms)) return false;
  add_s8_offsets(row_bytes, count, row_terms);
  return true;
}

}  // namespace qtune::detail
