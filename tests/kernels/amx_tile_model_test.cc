// The portable model of the AMX tile instructions, against cases computed by hand from the
// manual's pseudo-code; and the switch that runs the AMX kernels over it.
//
// QTUNE_AMX_MODEL=1 runs this test binary's AMX kernels over the portable model of the tile
// instructions (kernels/src/x86/amx_model), so that every AMX variant is tested on any machine with
// AVX-512. tests/CMakeLists.txt runs the AMX tests once that way (kernels_tests.amx-model); the
// ordinary runs test the instructions themselves where the CPU has AMX and skip them elsewhere.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "kernels/src/x86/amx_model/amx_tile_model.h"

namespace {

class AmxModelEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* value = std::getenv("QTUNE_AMX_MODEL");
    if (value != nullptr && std::string_view(value) == "1") qtune::detail::amx_model::set_active(true);
  }
};

const auto* const kRegistered = ::testing::AddGlobalTestEnvironment(new AmxModelEnvironment);

using namespace qtune::detail::amx_model;

// The palette-1 configuration with tile t shaped rows x colsb.
TileConfig config_with(std::initializer_list<std::array<int, 3>> shapes) {
  TileConfig c;
  c.palette = 1;
  for (const auto& [t, rows, colsb] : shapes) {
    c.rows[t] = static_cast<std::uint8_t>(rows);
    c.colsb[t] = static_cast<std::uint16_t>(colsb);
  }
  return c;
}

std::int32_t dword(int t, int row, int n) {
  std::int32_t v;
  std::memcpy(&v, tile_bytes(t) + row * kMaxColBytes + 4 * n, 4);
  return v;
}

struct ReleaseAfter {
  ~ReleaseAfter() { tilerelease(); }
};

TEST(AmxTileModel, ConfigurationFaultsAreTheManuals) {
  ReleaseAfter release;
  EXPECT_THROW(tilezero(0), AmxFault);  // not configured
  TileConfig bad_palette;
  bad_palette.palette = 2;
  EXPECT_THROW(ldtilecfg(bad_palette), AmxFault);
  TileConfig reserved = config_with({{0, 16, 64}});
  reserved.reserved[3] = 1;
  EXPECT_THROW(ldtilecfg(reserved), AmxFault);
  EXPECT_THROW(ldtilecfg(config_with({{0, 17, 64}})), AmxFault);
  EXPECT_THROW(ldtilecfg(config_with({{0, 16, 65}})), AmxFault);
  EXPECT_THROW(ldtilecfg(config_with({{0, 16, 0}})), AmxFault);
  EXPECT_THROW(ldtilecfg(config_with({{8, 16, 64}})), AmxFault);  // palette 1 has 8 tiles
  EXPECT_NO_THROW(ldtilecfg(config_with({{0, 16, 64}, {7, 1, 4}})));
  EXPECT_EQ(sttilecfg().rows[7], 1);
  EXPECT_THROW(tileloadd(1, nullptr, 0), AmxFault);  // tile 1 has no shape
  TileConfig release_config;  // palette 0 releases
  ldtilecfg(release_config);
  EXPECT_THROW(tilezero(0), AmxFault);
}

TEST(AmxTileModel, LoadZeroesBeyondTheShapeAndStoreWritesOnlyIt) {
  ReleaseAfter release;
  ldtilecfg(config_with({{2, 3, 8}}));
  std::uint8_t src[3 * 100];
  for (int i = 0; i < 300; ++i) src[i] = static_cast<std::uint8_t>(i + 1);
  tileloadd(2, src, 100);
  for (int r = 0; r < kMaxRows; ++r) {
    for (int b = 0; b < kMaxColBytes; ++b) {
      const std::uint8_t expected = r < 3 && b < 8 ? src[r * 100 + b] : 0;
      ASSERT_EQ(tile_bytes(2)[r * kMaxColBytes + b], expected) << r << "," << b;
    }
  }
  std::uint8_t dst[3 * 10];
  std::memset(dst, 0xEE, sizeof(dst));
  tilestored(2, dst, 10);
  for (int r = 0; r < 3; ++r) {
    for (int b = 0; b < 10; ++b) EXPECT_EQ(dst[r * 10 + b], b < 8 ? src[r * 100 + b] : 0xEE);
  }
}

// TDPBUSD on a 2 x 8-byte A, 2 x 8-byte B (2 rows of 2 dwords: K = 8) into a 2 x 2 dword C,
// computed by hand from the manual's loop: C[m][n] += sum_k sum_i A[m][4k+i] * B[k][4n+i].
TEST(AmxTileModel, DotProductsFollowThePseudoCode) {
  ReleaseAfter release;
  ldtilecfg(config_with({{0, 2, 8}, {1, 2, 8}, {2, 2, 8}}));
  const std::uint8_t a[2][8] = {{1, 2, 3, 4, 5, 6, 7, 8}, {255, 255, 255, 255, 0, 0, 0, 128}};
  // B row k holds, for each output column n, the four weights of k-quad k.
  const std::int8_t b[2][8] = {{1, 1, 1, 1, -1, 2, -3, 4}, {-128, 0, 0, 0, 1, 1, 1, 1}};
  tileloadd(1, a, 8);
  tileloadd(2, b, 8);
  const std::int32_t c0[2][2] = {{100, -100}, {0, 7}};
  tileloadd(0, c0, 8);
  tdpbusd(0, 1, 2);
  // Row 0: n=0: (1+2+3+4)*1 + 5*-128 = 10 - 640 = -630, +100 = -530.
  //        n=1: (1*-1 + 2*2 + 3*-3 + 4*4) + (5+6+7+8) = 10 + 26 = 36, -100 = -64.
  // Row 1 (u8 255s): n=0: 4*255 + 0 = 1020; n=1: 255*(-1+2-3+4) + 128*1 = 510 + 128 = 638, +7 = 645.
  EXPECT_EQ(dword(0, 0, 0), -530);
  EXPECT_EQ(dword(0, 0, 1), -64);
  EXPECT_EQ(dword(0, 1, 0), 1020);
  EXPECT_EQ(dword(0, 1, 1), 645);
  // The same bytes as s8 x s8 (TDPBSSD): 255 is -1, 128 is -128.
  tileloadd(0, c0, 8);
  tdpbssd(0, 1, 2);
  EXPECT_EQ(dword(0, 1, 0), -4);
  EXPECT_EQ(dword(0, 1, 1), -2 + (-128) + 7);
  // u8 x u8 (TDPBUUD): B's -128 is 128, -1 is 255, -3 is 253.
  tileloadd(0, c0, 8);
  tdpbuud(0, 1, 2);
  EXPECT_EQ(dword(0, 0, 0), 10 + 5 * 128 + 100);
  EXPECT_EQ(dword(0, 1, 1), 255 * (255 + 2 + 253 + 4) + 128 + 7);
  // s8 x u8 (TDPBSUD).
  tileloadd(0, c0, 8);
  tdpbsud(0, 1, 2);
  EXPECT_EQ(dword(0, 1, 0), -4 + 0 + 0);
}

TEST(AmxTileModel, AccumulatorsWrapAroundInt32) {
  ReleaseAfter release;
  ldtilecfg(config_with({{0, 1, 4}, {1, 1, 4}, {2, 1, 4}}));
  const std::int32_t c = 2147483647;
  const std::uint8_t a[4] = {1, 0, 0, 0};
  const std::int8_t b[4] = {1, 0, 0, 0};
  tileloadd(0, &c, 4);
  tileloadd(1, a, 4);
  tileloadd(2, b, 4);
  tdpbusd(0, 1, 2);
  EXPECT_EQ(dword(0, 0, 0), std::numeric_limits<std::int32_t>::min());
}

TEST(AmxTileModel, ShapeMismatchesFault) {
  ReleaseAfter release;
  ldtilecfg(config_with({{0, 2, 8}, {1, 3, 8}, {2, 2, 8}, {3, 2, 12}, {5, 2, 6}, {6, 2, 8}}));
  EXPECT_THROW(tdpbusd(0, 1, 2), AmxFault);  // dst.rows != a.rows
  EXPECT_THROW(tdpbusd(0, 3, 2), AmxFault);  // a.colsb / 4 (3) != b.rows (2)
  EXPECT_THROW(tdpbusd(3, 0, 2), AmxFault);  // dst.colsb (12) != b.colsb (8)
  EXPECT_THROW(tdpbusd(0, 5, 2), AmxFault);  // a.colsb not a multiple of 4
  EXPECT_THROW(tdpbusd(0, 0, 2), AmxFault);  // tiles not distinct
  EXPECT_NO_THROW(tdpbusd(0, 2, 6));
}

// Tile state is per thread: a configuration of one thread is not another's.
TEST(AmxTileModel, StateIsPerThread) {
  ReleaseAfter release;
  ldtilecfg(config_with({{0, 16, 64}}));
  bool other_configured = true;
  std::thread([&] {
    try {
      tilezero(0);
    } catch (const AmxFault&) {
      other_configured = false;
    }
  }).join();
  EXPECT_FALSE(other_configured);
  EXPECT_NO_THROW(tilezero(0));
}

}  // namespace
