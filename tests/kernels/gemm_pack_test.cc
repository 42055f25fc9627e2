// The AVX2 A-panel packer against the portable one, byte for byte (panel and row sums), for every
// x86/scalar microkernel's format and tile height, ragged row counts and K tails; packing in a
// pair order (gemm/pair_order.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/src/gemm/gemm_pack.h"
#include "kernels/src/gemm/pair_order.h"
#include "kernels/src/dispatch/isa_table.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune::detail {
namespace {

// Every vector row-sum kernel of the table (and the dispatching accumulate_a_row_terms) against
// the one-row sum, for row counts around its 8- and 16-row blocks, K around its 32-byte (short rows,
// AVX2's chunks) and 64-byte chunks and AVX2's dword and byte tails, flips, and rows of extreme
// bytes (the sums must not leak between the rows of a block). Each row is an allocation of its
// own, so a kernel reading past a row's end is caught by the sanitized build.
TEST(GemmPackA, RowSumKernelsMatchOneRowSums) {
  std::mt19937 rng(11);
  int kernels = 0;
  for (const IsaRow& row : isa_table()) {
    if (row.a_row_sums == nullptr) continue;
    if (!cpu_features().usable(row.isa)) {
      std::cout << "[ SKIPPED  ] row sums of " << to_string(row.isa) << ": not usable on this CPU\n";
      continue;
    }
    ++kernels;
    for (std::size_t k_bytes : {1u, 2u, 3u, 4u, 5u, 8u, 12u, 16u, 27u, 28u, 31u, 32u, 33u, 35u, 36u, 63u, 64u, 65u,
                                  67u, 96u, 97u, 100u, 128u, 144u, 147u, 160u, 192u, 200u, 224u, 256u, 280u, 300u,
                                  320u, 576u, 1152u, 4099u}) {
      for (std::size_t count : {1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u, 32u, 41u}) {
        for (std::uint8_t flip : {std::uint8_t{0}, std::uint8_t{0x80}, std::uint8_t{0x5A}}) {
          std::vector<std::vector<std::uint8_t>> storage(count, std::vector<std::uint8_t>(k_bytes));
          std::vector<const std::uint8_t*> rows(count);
          for (std::size_t i = 0; i < count; ++i) {
            const int kind = static_cast<int>(i % 4);  // random, all 0xFF, all 0, random
            for (auto& v : storage[i]) v = kind == 1 ? 0xFF : kind == 2 ? 0 : static_cast<std::uint8_t>(rng());
            rows[i] = storage[i].data();
          }
          std::vector<std::int32_t> want(count), got(count);
          for (std::size_t i = 0; i < count; ++i) want[i] = got[i] = static_cast<std::int32_t>(rng());
          for (std::size_t i = 0; i < count; ++i) accumulate_a_row_term(flip, rows[i], k_bytes, &want[i]);
          row.a_row_sums(flip, rows.data(), count, k_bytes, got.data());
          ASSERT_EQ(got, want) << to_string(row.isa) << " k_bytes=" << k_bytes << " rows=" << count
                               << " flip=" << int{flip};
          for (PackedA format : {PackedA::u8, PackedA::s8}) {
            std::vector<std::int32_t> want_format(count, 5), got_format(count, 5);
            for (std::size_t i = 0; i < count; ++i) {
              accumulate_a_row_term(format, flip, rows[i], k_bytes, &want_format[i]);
            }
            accumulate_a_row_terms(format, flip, rows.data(), count, k_bytes, got_format.data());
            ASSERT_EQ(got_format, want_format) << "dispatch, k_bytes=" << k_bytes << " rows=" << count;
          }
        }
      }
    }
  }
  if (kernels == 0) GTEST_SKIP() << "no usable vector row-sum kernel in this build";
}

// Every dense row-sum kernel of the table (rows back to back, no pointer table) and the
// dispatching accumulate_dense_row_terms against the one-row sum: row counts around the 8- and 16-row
// blocks (ragged last blocks read only their own rows' bytes: the buffer ends with the last row),
// every row length a kernel may take or decline, both flips, rows of extreme bytes.
TEST(GemmPackA, DenseRowSumKernelsMatchOneRowSums) {
  std::mt19937 rng(12);
  int kernels = 0;
  for (const IsaRow& row : isa_table()) {
    if (row.a_dense_row_sums == nullptr) continue;
    if (!cpu_features().usable(row.isa)) {
      std::cout << "[ SKIPPED  ] dense row sums of " << to_string(row.isa) << ": not usable on this CPU\n";
      continue;
    }
    ++kernels;
    int taken = 0;
    for (std::size_t row_bytes : {1u, 3u, 4u, 8u, 15u, 16u, 17u, 24u, 27u, 31u, 32u, 33u, 35u, 48u, 64u, 65u, 100u}) {
      for (std::size_t count : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 32u, 33u, 47u, 100u}) {
        for (std::uint8_t flip : {std::uint8_t{0}, std::uint8_t{0x80}, std::uint8_t{0x5A}}) {
          std::vector<std::uint8_t> bytes(count * row_bytes);
          for (std::size_t i = 0; i < count; ++i) {
            const int kind = static_cast<int>(i % 4);  // random, all 0xFF, all 0, random
            for (std::size_t b = 0; b < row_bytes; ++b) {
              bytes[i * row_bytes + b] = kind == 1 ? 0xFF : kind == 2 ? 0 : static_cast<std::uint8_t>(rng());
            }
          }
          std::vector<std::int32_t> want(count + 1), got(count + 1);  // one past the rows: never written
          for (std::size_t i = 0; i <= count; ++i) want[i] = got[i] = static_cast<std::int32_t>(rng());
          for (std::size_t i = 0; i < count; ++i) accumulate_a_row_term(flip, bytes.data() + i * row_bytes, row_bytes, &want[i]);
          const std::vector<std::int32_t> before = got;
          if (!row.a_dense_row_sums(flip, bytes.data(), count, row_bytes, got.data())) {
            ASSERT_EQ(got, before) << "a kernel that declines rows of " << row_bytes << " bytes wrote terms";
            continue;
          }
          ++taken;
          ASSERT_EQ(got, want) << to_string(row.isa) << " row_bytes=" << row_bytes << " rows=" << count
                               << " flip=" << int{flip};
          for (PackedA format : {PackedA::u8, PackedA::s8}) {
            std::vector<std::int32_t> want_format(count, 5), got_format(count, 5);
            for (std::size_t i = 0; i < count; ++i) {
              accumulate_a_row_term(format, flip, bytes.data() + i * row_bytes, row_bytes, &want_format[i]);
            }
            // The dispatcher's kernel (the first usable one) may decline a length this one takes.
            const std::vector<std::int32_t> unchanged = got_format;
            const bool summed =
                accumulate_dense_row_terms(format, flip, bytes.data(), count, row_bytes, got_format.data());
            ASSERT_EQ(got_format, summed ? want_format : unchanged)
                << "dispatch, row_bytes=" << row_bytes << " rows=" << count;
          }
        }
      }
    }
    EXPECT_GT(taken, 0) << to_string(row.isa) << "'s dense row sums took no row length";
  }
  if (kernels == 0) GTEST_SKIP() << "no usable dense row-sum kernel in this build";
}

#if defined(__x86_64__)  // pack_a_panel_avx2 exists in x86-64 builds only
TEST(GemmPackA, Avx2PackerMatchesGenericPacker) {
  if (!cpu_features().usable(Isa::avx2)) GTEST_SKIP() << "isa avx2 is not usable on this CPU";
  std::mt19937 rng(5);
  int checked = 0;
  for (const GemmUkernel& uk : gemm_ukernel_registry()) {
    const auto mr = static_cast<std::size_t>(uk.mr), kr = static_cast<std::size_t>(uk.kr);
    for (DType a_type : {DType::u8, DType::s8}) {
      for (std::size_t k_bytes :
           {1u, 3u, 4u, 7u, 8u, 9u, 15u, 16u, 17u, 23u, 24u, 27u, 28u, 31u, 32u, 33u, 48u, 56u, 64u, 100u, 147u, 719u,
            720u}) {
        for (std::size_t row_count : {std::size_t{1}, mr > 1 ? mr - 1 : 1, mr}) {
          const std::size_t k_groups = (k_bytes + kr - 1) / kr + (k_bytes % 3 == 0 ? 1 : 0);  // sometimes an extra zero group
          std::vector<std::vector<std::uint8_t>> storage(row_count, std::vector<std::uint8_t>(k_bytes));
          std::vector<const std::uint8_t*> rows(mr);
          for (std::size_t i = 0; i < row_count; ++i) {
            for (auto& v : storage[i]) v = static_cast<std::uint8_t>(rng());
            rows[i] = storage[i].data();
          }
          // 64 bytes past the panel, which no packer may write: compared with the panel.
          const std::size_t bytes = k_groups * mr * kr * packed_a_elem_bytes(uk.a_format) + 64;
          std::vector<std::uint8_t> want(bytes, 0xCD), got(bytes, 0xCD);
          std::vector<std::int32_t> want_terms(mr, 7), got_terms(mr, 7);
          pack_a_panel_generic(uk, a_type, rows.data(), row_count, k_bytes, k_groups, want.data(), want_terms.data());
          const bool handled = pack_a_panel_avx2(uk, a_type, rows.data(), row_count, k_bytes, k_groups, got.data(),
                                                 got_terms.data(), nullptr);
          const bool x86_format = (uk.a_format == PackedA::s16 && kr == 2) || (uk.a_format == PackedA::u8 && kr == 4);
          EXPECT_EQ(handled, x86_format) << uk.name;
          if (!handled) continue;
          ++checked;
          EXPECT_EQ(got, want) << uk.name << " a=" << to_string(a_type) << " k_bytes=" << k_bytes << " rows=" << row_count;
          EXPECT_EQ(got_terms, want_terms) << uk.name << " a=" << to_string(a_type) << " k_bytes=" << k_bytes;
          // Without row sums (every weight zero point 0) the panel is the same.
          std::vector<std::uint8_t> no_sums(bytes, 0xCD);
          pack_a_panel_avx2(uk, a_type, rows.data(), row_count, k_bytes, k_groups, no_sums.data(), nullptr, nullptr);
          EXPECT_EQ(no_sums, want) << uk.name << " without row sums, k_bytes=" << k_bytes;
          if (HasFailure()) return;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}
#endif

// A random pair order (gemm/pair_order.h) of k_bytes rows, for positions up to k_groups rounded to
// 8 groups: each window's real bytes shuffled among themselves, identity past k_bytes.
std::vector<std::uint8_t> random_pair_order(std::size_t k_bytes, std::size_t positions, std::mt19937& rng) {
  std::vector<std::uint8_t> order(positions);
  for (std::size_t p = 0; p < positions; ++p) order[p] = static_cast<std::uint8_t>(p % kPairWindowBytes);
  for (std::size_t first = 0; first < k_bytes; first += kPairWindowBytes) {
    const std::size_t real = std::min(kPairWindowBytes, k_bytes - first);
    std::shuffle(order.begin() + static_cast<std::ptrdiff_t>(first),
                 order.begin() + static_cast<std::ptrdiff_t>(first + real), rng);
  }
  return order;
}

// Packing with a pair order is packing the rows with their bytes in that order; the AVX2 packer
// (x86) does the same as the generic one.
TEST(GemmPackA, PairOrderMovesBytesWithinWindows) {
  std::mt19937 rng(11);
  int checked = 0;
  for (const GemmUkernel& uk : gemm_ukernel_registry()) {
    if (uk.a_format != PackedA::u8 || uk.kr != 4) continue;
    const auto mr = static_cast<std::size_t>(uk.mr), kr = static_cast<std::size_t>(uk.kr);
    for (DType a_type : {DType::u8, DType::s8}) {
      for (std::size_t k_bytes : {1u, 2u, 5u, 15u, 16u, 17u, 27u, 31u, 32u, 33u, 47u, 64u, 100u, 147u, 720u}) {
        for (std::size_t row_count : {std::size_t{1}, mr > 1 ? mr - 1 : 1, mr}) {
          const std::size_t k_groups = (k_bytes + kr - 1) / kr + (k_bytes % 3 == 0 ? 1 : 0);
          const std::vector<std::uint8_t> order = random_pair_order(k_bytes, (k_groups + 7) / 8 * 8 * kr, rng);
          std::vector<std::vector<std::uint8_t>> storage(row_count, std::vector<std::uint8_t>(k_bytes));
          std::vector<std::vector<std::uint8_t>> moved(row_count, std::vector<std::uint8_t>(k_bytes));
          std::vector<const std::uint8_t*> rows(mr), moved_rows(mr);
          for (std::size_t i = 0; i < row_count; ++i) {
            for (auto& v : storage[i]) v = static_cast<std::uint8_t>(rng());
            for (std::size_t kk = 0; kk < k_bytes; ++kk) {
              moved[i][kk] = storage[i][kk / kPairWindowBytes * kPairWindowBytes + order[kk]];
            }
            rows[i] = storage[i].data();
            moved_rows[i] = moved[i].data();
          }
          const std::size_t bytes = k_groups * mr * kr;
          std::vector<std::uint8_t> want(bytes, 0xCD), got(bytes, 0xCD);
          std::vector<std::int32_t> want_terms(mr, 3), got_terms(mr, 3);
          pack_a_panel_generic(uk, a_type, moved_rows.data(), row_count, k_bytes, k_groups, want.data(),
                               want_terms.data());
          pack_a_panel_generic(uk, a_type, rows.data(), row_count, k_bytes, k_groups, got.data(), got_terms.data(),
                               order.data());
          ASSERT_EQ(got, want) << uk.name << " generic, k_bytes=" << k_bytes << " rows=" << row_count;
          ASSERT_EQ(got_terms, want_terms) << uk.name << " generic, k_bytes=" << k_bytes;
#if defined(__x86_64__)
          if (cpu_features().usable(Isa::avx2)) {
            std::vector<std::uint8_t> vector_got(bytes, 0xCD);
            std::vector<std::int32_t> vector_terms(mr, 3);
            ASSERT_TRUE(pack_a_panel_avx2(uk, a_type, rows.data(), row_count, k_bytes, k_groups, vector_got.data(),
                                          vector_terms.data(), order.data()));
            ASSERT_EQ(vector_got, want) << uk.name << " avx2, a=" << to_string(a_type) << " k_bytes=" << k_bytes
                                        << " rows=" << row_count;
            ASSERT_EQ(vector_terms, want_terms) << uk.name << " avx2, k_bytes=" << k_bytes;
          }
#endif
          ++checked;
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "no microkernel packs A as u8 groups of 4 in this build";
}

}  // namespace
}  // namespace qtune::detail
