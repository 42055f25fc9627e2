// Packing for the GEMM microkernels (layouts: gemm_ukernel.h). B is packed once per operator,
// A per call (per K block of an M block) into MR-row panels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm/gemm_ukernel.h"
#include "qtune/kernels/gemm.h"

namespace qtune::detail {

// The activation zero point as the microkernel sees it: + 128 when s8 activations are flipped to u8,
// - 128 when u8 activations are flipped to s8 (PackedA::s8).
std::int32_t packed_a_zero_point(const GemmUkernel& uk, const GemmProblem& problem);
// 0x80 when the activations are flipped for `uk`'s format (s8 -> u8, or u8 -> s8 for PackedA::s8), else 0.
std::uint8_t packed_a_flip(const GemmUkernel& uk, const GemmProblem& problem);

// Packs every B panel into `dst` (ceil(N/nr) panels of gemm_b_panel_bytes(uk, ceil(K/kr)) bytes,
// 64-byte aligned), including the per-column terms bias - za'*colsum(B) + K*za'*zb and zb.
void pack_b(const GemmUkernel& uk, const GemmProblem& problem, const std::int8_t* b, std::size_t ldb,
            const std::int32_t* bias, std::uint8_t* dst);

// Packs one A panel: `rows` (<= mr) row pointers, each with `k_bytes` valid bytes, into
// [k_groups][mr][kr] elements of uk.a_format (rows beyond `rows` and k beyond k_bytes are 0).
// When row_terms is not null, row_terms[i] -= sum of the packed values of row i (wrapping).
// With k_order (B's pair order from the block's first k, a multiple of kPairWindowBytes:
// PairClipping::k_order), packed k holds row byte kk / 16 * 16 + k_order[kk].
void pack_a_panel(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                  std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms,
                  const std::uint8_t* k_order = nullptr);

// The portable packer behind pack_a_panel (every format); exposed so that tests can compare the
// vector packers with it.
void pack_a_panel_generic(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows,
                          std::size_t row_count, std::size_t k_bytes, std::size_t k_groups, void* dst,
                          std::int32_t* row_terms, const std::uint8_t* k_order = nullptr);

// A vector A packer of an instruction set (IsaRow::pack_a_panel): as pack_a_panel, for the formats
// it knows; returns false (and does nothing) for any other. Called only where its set is usable.
// AVX2's (x86/avx2/gemm_pack_avx2.cc) packs PackedA::s16 with kr 2 and PackedA::u8 with kr 4, the
// formats of the x86 families: widening/flip, a 4 x 8 transpose of 4-byte groups, row sums in
// vectors; a k_order (PackedA::u8 only) as one byte shuffle per 16 bytes.
using PackAPanelFn = bool (*)(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows,
                              std::size_t row_count, std::size_t k_bytes, std::size_t k_groups, void* dst,
                              std::int32_t* row_terms, const std::uint8_t* k_order);
bool pack_a_panel_avx2(const GemmUkernel& uk, DType a_type, const std::uint8_t* const* rows, std::size_t row_count,
                       std::size_t k_bytes, std::size_t k_groups, void* dst, std::int32_t* row_terms,
                       const std::uint8_t* k_order);

// A vector kernel of an instruction set (IsaRow::a_row_sums): row_terms[i] -= sum over
// k < k_bytes of (rows[i][k] ^ flip) as u8 (wrapping), for i < count; k_bytes < kRowSumsMaxBytes.
using RowSumsFn = void (*)(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                           std::int32_t* row_terms);
inline constexpr std::size_t kRowSumsMaxBytes = std::size_t{1} << 24;
// AVX-512 (x86/avx512bw/row_sums_avx512.h): 16 rows at a time, with and without VNNI.
void a_row_sums_avx512vnni(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count,
                           std::size_t k_bytes, std::int32_t* row_terms);
void a_row_sums_avx512bw(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                         std::int32_t* row_terms);
// AVX2 (x86/avx2/row_sums_avx2.cc): 8 rows at a time.
void a_row_sums_avx2(std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count, std::size_t k_bytes,
                     std::int32_t* row_terms);

// The row terms of `count` rows of A read in place, as accumulate_a_row_term below for each, by the
// first usable vector kernel of the instruction-set table where there is one.
void accumulate_a_row_terms(PackedA format, std::uint8_t flip, const std::uint8_t* const* rows, std::size_t count,
                            std::size_t k_bytes, std::int32_t* row_terms);

// A vector kernel of the row sums of rows stored back to back (IsaRow::a_dense_row_sums): as
// RowSumsFn for the rows first + i * row_bytes, i < count, without a table of row pointers; returns
// false (and does nothing) for a row length it has no kernel for. AVX-512's
// (x86/avx512bw/row_sums_avx512.h) takes rows of 16 and 32 bytes, two to four per load.
using DenseRowSumsFn = bool (*)(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                                std::int32_t* row_terms);
bool a_dense_row_sums_avx512(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                             std::int32_t* row_terms);
// AVX2's (x86/avx2/row_sums_avx2.cc) takes rows of any length below kRowSumsMaxBytes.
bool a_dense_row_sums_avx2(std::uint8_t flip, const std::uint8_t* first, std::size_t count, std::size_t row_bytes,
                           std::int32_t* row_terms);

// accumulate_a_row_terms for rows stored back to back, by the first usable dense kernel of the
// instruction-set table; false (nothing done) where there is none or it does not take rows of
// row_bytes, and the caller then sums the rows through a table of pointers.
bool accumulate_dense_row_terms(PackedA format, std::uint8_t flip, const std::uint8_t* first, std::size_t count,
                                std::size_t row_bytes, std::int32_t* row_terms);

// *row_term -= sum over k < k_bytes of (row[k] ^ flip) as u8: the row sum of A read in place
// (only byte formats read A in place).
void accumulate_a_row_term(std::uint8_t flip, const std::uint8_t* row, std::size_t k_bytes, std::int32_t* row_term);
// The same for any byte format: PackedA::s8 sums (row[k] ^ flip) as int8.
void accumulate_a_row_term(PackedA format, std::uint8_t flip, const std::uint8_t* row, std::size_t k_bytes,
                           std::int32_t* row_term);

}  // namespace qtune::detail
