// The instruction-set table (kernels/src/dispatch/isa_table.h) is the one place an instruction set
// is added: these tests check that everything reading it agrees with it, so a family that is
// compiled in cannot be missing from a registry, a default, the separate requantization pass or a
// test sweep (the sweeps are built from the registries; gemm_ukernel_test.cc and
// gemm_blocking_test.cc check their own parameter lists against compiled_isas()).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kernels/src/dispatch/isa_table.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "qtune/kernels/requantize.h"

namespace qtune {
namespace {

using detail::IsaRow;

// The first row of the table that is usable here and has what `has` asks for, or null.
template <class Has>
const IsaRow* first_usable_row(Has has) {
  for (const IsaRow& row : detail::isa_table()) {
    if (cpu_features().usable(row.isa) && has(row)) return &row;
  }
  return nullptr;
}

TEST(IsaTable, RowsAreDistinctAndScalarIsLast) {
  const std::vector<Isa> isas = compiled_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.back(), Isa::scalar);
  EXPECT_EQ(std::set<Isa>(isas.begin(), isas.end()).size(), isas.size());
  for (Isa isa : isas) {
    ASSERT_NE(detail::find_isa_row(isa), nullptr) << to_string(isa);
    EXPECT_EQ(detail::find_isa_row(isa)->isa, isa);
  }
  for (Isa isa : kAllIsas) {
    if (std::find(isas.begin(), isas.end(), isa) == isas.end()) {
      EXPECT_EQ(detail::find_isa_row(isa), nullptr) << to_string(isa);
    }
  }
}

TEST(IsaTable, EveryRowHasGemmKernelsAndTheRegistriesFollowTheTable) {
  std::vector<Isa> gemm_order, dw_order;
  for (const GemmMicrokernelInfo& uk : gemm_microkernels()) {
    if (gemm_order.empty() || gemm_order.back() != uk.isa) gemm_order.push_back(uk.isa);
  }
  for (const DepthwiseKernelInfo& k : depthwise_kernels()) {
    if (dw_order.empty() || dw_order.back() != k.isa) dw_order.push_back(k.isa);
  }
  std::vector<Isa> expected_gemm, expected_dw;
  for (const IsaRow& row : detail::isa_table()) {
    ASSERT_NE(row.gemm, nullptr) << to_string(row.isa) << " has no GEMM family";
    EXPECT_FALSE(row.gemm().empty()) << to_string(row.isa);
    for (const detail::GemmUkernel& uk : row.gemm()) EXPECT_EQ(uk.isa, row.isa) << uk.name;
    expected_gemm.push_back(row.isa);
    if (row.dwconv != nullptr) {
      EXPECT_FALSE(row.dwconv().empty()) << to_string(row.isa);
      for (const detail::DwKernel& k : row.dwconv()) EXPECT_EQ(k.isa, row.isa);
      expected_dw.push_back(row.isa);
    }
  }
  EXPECT_EQ(gemm_order, expected_gemm);
  EXPECT_EQ(dw_order, expected_dw);
}

TEST(IsaTable, VectorGemmFamiliesRequantizeSeparatelyInVectors) {
  for (const IsaRow& row : detail::isa_table()) {
    if (row.isa == Isa::scalar) continue;
    // Without it a fuse = 0 configuration would silently requantize in scalar code.
    EXPECT_NE(row.separate_requantize, nullptr) << to_string(row.isa);
    EXPECT_TRUE(row.separate_requantize_unroll == 1 || row.separate_requantize_unroll == 2 ||
                row.separate_requantize_unroll == 4)
        << to_string(row.isa);
  }
}

// M = 1 takes the single-row tile of the first usable row, where it has one (a matrix-vector layer;
// any taller tile repeats its row); M = 2 does not.
TEST(IsaTable, OneRowTakesTheSingleRowTile) {
  const IsaRow* first = first_usable_row([](const IsaRow& row) { return !row.gemm_tiles.empty(); });
  if (first == nullptr || first->single_row_tile.mr == 0) GTEST_SKIP() << "the best usable family has no single-row tile";
  GemmProblem p;
  p.m = 1;
  p.n = 1000;
  p.k = 2048;
  p.out_type = DType::s32;
  const GemmConfig c = gemm_default_config(p);
  EXPECT_EQ(c.isa, first->isa);
  EXPECT_EQ(c.mr, 1);
  EXPECT_EQ(c.nr, first->single_row_tile.nr);
  p.m = 2;
  EXPECT_NE(gemm_default_config(p).mr, 1) << "the single-row tile is for M = 1 only";
}

TEST(IsaTable, RequantizeVariantsAreTheRowsWithTheirOwnKernel) {
  std::set<Isa> expected{Isa::scalar}, listed;
  for (const IsaRow& row : detail::isa_table()) {
    if (row.requantize != nullptr) expected.insert(row.isa);
  }
  for (const RequantizeConfig& v : requantize_variants()) listed.insert(v.isa);
  EXPECT_EQ(listed, expected);
}

TEST(IsaTable, DefaultTilesExist) {
  for (const IsaRow& row : detail::isa_table()) {
    EXPECT_FALSE(row.gemm_tiles.empty()) << to_string(row.isa);
    for (detail::GemmTile t : row.gemm_tiles) {
      EXPECT_NE(detail::find_gemm_ukernel(row.isa, t.mr, t.nr), nullptr)
          << to_string(row.isa) << " " << t.mr << "x" << t.nr;
    }
    if (row.narrow_n > 0) {
      EXPECT_NE(detail::find_gemm_ukernel(row.isa, row.narrow_tile.mr, row.narrow_tile.nr), nullptr)
          << to_string(row.isa);
    }
    if (row.single_row_tile.mr != 0) {
      EXPECT_EQ(row.single_row_tile.mr, 1) << to_string(row.isa);
      EXPECT_NE(detail::find_gemm_ukernel(row.isa, 1, row.single_row_tile.nr), nullptr) << to_string(row.isa);
    }
    EXPECT_EQ(row.dwconv != nullptr, !row.dw_tiles.empty()) << to_string(row.isa);
    if (!row.dw_tiles.empty()) {  // the last default tile is the one every layer can take
      EXPECT_FALSE(row.dw_tiles.back().needs_int8_form) << to_string(row.isa);
      EXPECT_FALSE(row.dw_tiles.back().whole_rows) << to_string(row.isa);
    }
    for (detail::DwDefaultTile t : row.dw_tiles) {
      EXPECT_NE(detail::find_dw_kernel(row.isa, t.channel_tile, t.width_tile), nullptr) << to_string(row.isa);
      if (t.needs_int8_form) {
        EXPECT_NE(detail::find_dw_kernel(row.isa, t.channel_tile, t.width_tile, detail::DwForm::dot4), nullptr)
            << to_string(row.isa);
      }
    }
  }
}

// The defaults take the first usable row of the table that has the family and whose default
// floor the shape reaches.
TEST(IsaTable, DefaultsPreferTheFirstUsableRow) {
  const auto first_row_for = [](const GemmProblem& g) {
    for (const IsaRow& row : detail::isa_table()) {
      if (!cpu_features().usable(row.isa) || row.isa == Isa::scalar) continue;
      if (g.m < row.default_min_m || g.n < row.default_min_n || g.k < row.default_min_k) continue;
      return row.isa;
    }
    return Isa::scalar;
  };
  Isa dw_isa = Isa::scalar;
  for (const IsaRow& row : detail::isa_table()) {
    if (cpu_features().usable(row.isa) && row.dwconv != nullptr) {
      dw_isa = row.isa;
      break;
    }
  }
  for (const std::int64_t size : {1, 64, 96, 128, 512}) {
    GemmProblem g;
    g.m = size;
    g.n = size;
    g.k = size;
    EXPECT_EQ(gemm_default_config(g).isa, first_row_for(g)) << size;
  }

  Conv2dProblem d;
  d.in_h = d.in_w = 8;
  d.in_c = d.out_c = d.groups = 32;
  d.kernel_h = d.kernel_w = 3;
  d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
  EXPECT_EQ(conv2d_default_config(d).gemm.isa, dw_isa);
}

// A whole-rows default tile is taken exactly where the output rows are whole tiles of it, and the
// next tile of the list elsewhere.
TEST(IsaTable, WholeRowsDepthwiseTilesOnlyWhereTheRowsDivide) {
  const IsaRow* dw_row = first_usable_row([](const IsaRow& row) { return !row.dw_tiles.empty(); });
  ASSERT_NE(dw_row, nullptr);  // scalar has depthwise kernels
  const auto whole = std::find_if(dw_row->dw_tiles.begin(), dw_row->dw_tiles.end(),
                                  [](detail::DwDefaultTile t) { return t.whole_rows && !t.needs_int8_form; });
  if (whole == dw_row->dw_tiles.end()) GTEST_SKIP() << "no whole-rows tile for " << to_string(dw_row->isa);
  Conv2dProblem d;
  d.in_h = 4;
  d.in_c = d.out_c = d.groups = whole->channel_tile;
  d.kernel_h = d.kernel_w = 3;
  d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
  d.b_zero_points = {3};  // no dot4 form by default
  d.in_w = 2 * whole->width_tile;
  const Conv2dConfig divides = conv2d_default_config(d);
  EXPECT_EQ(divides.dw_channel_tile, whole->channel_tile);
  EXPECT_EQ(divides.dw_width_tile, whole->width_tile);
  d.in_w = 2 * whole->width_tile + 1;
  EXPECT_NE(conv2d_default_config(d).dw_width_tile, whole->width_tile);
}

TEST(IsaTable, DepthwiseKernelNamesSayWhatTheyAre) {
  std::set<std::string> names;
  for (const DepthwiseKernelInfo& k : depthwise_kernels()) {
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
    const std::string tile = std::to_string(k.channel_tile) + "c" + std::to_string(k.width_tile) + "w";
    EXPECT_NE(k.name.find(tile), std::string::npos) << k.name;
    EXPECT_TRUE(k.name.ends_with(to_string(k.isa))) << k.name;
    EXPECT_EQ(k.name.find("-dot4-") != std::string::npos, k.form == "dot4") << k.name;
    EXPECT_EQ(k.name.find("-rowdot-") != std::string::npos, k.form == "rowdot") << k.name;
  }
}

// A row's default floor sends smaller GEMMs to the next usable row, never below it.
TEST(IsaTable, DefaultFloorsSendSmallShapesToTheNextRow) {
  for (const IsaRow& row : detail::isa_table()) {
    if (!cpu_features().usable(row.isa) || row.default_min_k <= 1) continue;
    GemmProblem small;
    small.m = std::max<std::int64_t>(row.default_min_m, 64);
    small.n = std::max<std::int64_t>(row.default_min_n, 64);
    small.k = row.default_min_k - 1;
    EXPECT_NE(gemm_default_config(small).isa, row.isa) << to_string(row.isa) << " below its K floor";
    GemmProblem large = small;
    large.k = row.default_min_k;
    large.m = std::max<std::int64_t>(row.default_min_m, 256);
    large.n = std::max<std::int64_t>(row.default_min_n, 256);
    const Isa chosen = gemm_default_config(large).isa;
    bool earlier_usable = false;  // a row before this one may still take it
    for (const IsaRow& before : detail::isa_table()) {
      if (before.isa == row.isa) break;
      earlier_usable = earlier_usable || cpu_features().usable(before.isa);
    }
    if (!earlier_usable) {
      EXPECT_EQ(chosen, row.isa) << to_string(row.isa) << " at its floor";
    }
  }
}

}  // namespace
}  // namespace qtune
