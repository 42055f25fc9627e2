#include "x86/amx_model/amx_tile_model.h"

#include <cstring>
#include <string>

namespace qtune::detail::amx_model {
namespace {

struct TileState {
  bool configured = false;
  TileConfig config;
  std::uint8_t data[kTiles][kMaxRows][kMaxColBytes] = {};
};

thread_local TileState state;

[[noreturn]] void fault(const std::string& what) { throw AmxFault("AMX fault: " + what); }

void check_tile(int t, const char* instruction) {
  if (!state.configured) fault(std::string(instruction) + " before LDTILECFG configured palette 1 (#UD)");
  if (t < 0 || t >= kTiles) fault(std::string(instruction) + " names tile " + std::to_string(t) + " (palette 1 has 0-7)");
}

int rows_of(int t) { return state.config.rows[t]; }
int colsb_of(int t) { return state.config.colsb[t]; }

template <bool ASigned, bool BSigned>
void dot_product(int dst, int a, int b, const char* name) {
  check_tile(dst, name);
  check_tile(a, name);
  check_tile(b, name);
  if (dst == a || dst == b || a == b) fault(std::string(name) + " with tiles that are not distinct (#UD)");
  if (rows_of(dst) != rows_of(a)) fault(std::string(name) + ": dst.rows != src1.rows (#UD)");
  if (colsb_of(a) % 4 != 0) fault(std::string(name) + ": src1.colsb not a multiple of 4 (#UD)");
  if (colsb_of(a) / 4 != rows_of(b)) fault(std::string(name) + ": src1.colsb / 4 != src2.rows (#UD)");
  if (colsb_of(dst) != colsb_of(b)) fault(std::string(name) + ": dst.colsb != src2.colsb (#UD)");
  const int m_count = rows_of(dst), k_count = colsb_of(a) / 4, n_count = colsb_of(dst) / 4;
  auto byte = [](std::uint8_t v, bool is_signed) {
    return is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(v)) : static_cast<std::int32_t>(v);
  };
  for (int m = 0; m < m_count; ++m) {
    for (int n = 0; n < n_count; ++n) {
      std::uint32_t acc;
      std::memcpy(&acc, &state.data[dst][m][4 * n], 4);
      for (int k = 0; k < k_count; ++k) {
        for (int i = 0; i < 4; ++i) {
          // Each product of two bytes fits int32; the sum wraps as the hardware's does.
          acc += static_cast<std::uint32_t>(byte(state.data[a][m][4 * k + i], ASigned) *
                                            byte(state.data[b][k][4 * n + i], BSigned));
        }
      }
      std::memcpy(&state.data[dst][m][4 * n], &acc, 4);
    }
    // The rest of the destination row (beyond colsb) is zeroed, as the manual's write_row_and_zero.
    std::memset(&state.data[dst][m][colsb_of(dst)], 0, static_cast<std::size_t>(kMaxColBytes - colsb_of(dst)));
  }
  for (int m = m_count; m < kMaxRows; ++m) std::memset(state.data[dst][m], 0, kMaxColBytes);  // zero_upper_rows
}

}  // namespace

void ldtilecfg(const TileConfig& config) {
  if (config.palette == 0) {
    tilerelease();
    return;
  }
  if (config.palette != 1) fault("LDTILECFG palette " + std::to_string(config.palette) + " is not supported (#GP)");
  for (std::uint8_t b : config.reserved) {
    if (b != 0) fault("LDTILECFG with reserved bytes 2-15 not zero (#GP)");
  }
  if (config.start_row != 0) fault("LDTILECFG start_row " + std::to_string(config.start_row) + " is not 0 here");
  for (int t = 0; t < 16; ++t) {
    const int rows = config.rows[t], colsb = config.colsb[t];
    if (t >= kTiles) {
      if (rows != 0 || colsb != 0) fault("LDTILECFG gives a shape to tile " + std::to_string(t) + " (palette 1 has 8) (#GP)");
      continue;
    }
    if ((rows == 0) != (colsb == 0)) fault("LDTILECFG tile " + std::to_string(t) + " has rows or bytes but not both (#GP)");
    if (rows > kMaxRows) fault("LDTILECFG tile " + std::to_string(t) + " has " + std::to_string(rows) + " rows > 16 (#GP)");
    if (colsb > kMaxColBytes) {
      fault("LDTILECFG tile " + std::to_string(t) + " has " + std::to_string(colsb) + " bytes per row > 64 (#GP)");
    }
  }
  state.config = config;
  state.configured = true;
  std::memset(state.data, 0, sizeof(state.data));
}

TileConfig sttilecfg() { return state.configured ? state.config : TileConfig{}; }

void tilerelease() {
  state.configured = false;
  state.config = TileConfig{};
  std::memset(state.data, 0, sizeof(state.data));
}

void tileloadd(int t, const void* base, std::size_t stride) {
  check_tile(t, "TILELOADD");
  if (rows_of(t) == 0) fault("TILELOADD of tile " + std::to_string(t) + ", which the configuration leaves empty (#UD)");
  const auto* src = static_cast<const std::uint8_t*>(base);
  std::memset(state.data[t], 0, sizeof(state.data[t]));
  for (int r = 0; r < rows_of(t); ++r) std::memcpy(state.data[t][r], src + r * stride, colsb_of(t));
}

void tilestored(int t, void* base, std::size_t stride) {
  check_tile(t, "TILESTORED");
  if (rows_of(t) == 0) fault("TILESTORED of tile " + std::to_string(t) + ", which the configuration leaves empty (#UD)");
  auto* dst = static_cast<std::uint8_t*>(base);
  for (int r = 0; r < rows_of(t); ++r) std::memcpy(dst + r * stride, state.data[t][r], colsb_of(t));
}

void tilezero(int t) {
  check_tile(t, "TILEZERO");
  std::memset(state.data[t], 0, sizeof(state.data[t]));
}

void tdpbusd(int dst, int a, int b) { dot_product<false, true>(dst, a, b, "TDPBUSD"); }
void tdpbssd(int dst, int a, int b) { dot_product<true, true>(dst, a, b, "TDPBSSD"); }
void tdpbsud(int dst, int a, int b) { dot_product<true, false>(dst, a, b, "TDPBSUD"); }
void tdpbuud(int dst, int a, int b) { dot_product<false, false>(dst, a, b, "TDPBUUD"); }

const std::uint8_t* tile_bytes(int t) { return &state.data[t][0][0]; }

}  // namespace qtune::detail::amx_model
