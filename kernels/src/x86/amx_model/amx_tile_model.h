// A portable model of the AMX-TILE / AMX-INT8 instructions, written from their definitions in the
// Intel 64 and IA-32 Architectures Software Developer's Manual (LDTILECFG, TILELOADD, TILESTORED,
// TILEZERO, TILERELEASE, TDPBUSD / TDPBSSD / TDPBSUD / TDPBUUD): palette 1 (8 tiles of at most 16
// rows x 64 bytes), the 64-byte configuration, the zeroing of bytes and rows beyond a tile's
// configured shape, the int32 wrap-around of the dot products, and the faults (#UD / #GP) an
// invalid use raises, reported here as AmxFault with the manual's condition in words.
//
// AMX kernels are written against a thin tile interface (x86/amx/amx_tiles.h) that compiles to
// the intrinsics or to this model, so that every AMX variant is tested bit-exactly on any machine
// with AVX-512 (their epilogue's instruction set), whether or not the CPU has AMX. The model keeps
// one tile state per thread, as the hardware does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "platform/amx_model_switch.h"  // set_active, active

namespace qtune::detail::amx_model {

inline constexpr int kTiles = 8;         // palette 1
inline constexpr int kMaxRows = 16;      // palette 1: max_rows
inline constexpr int kMaxColBytes = 64;  // palette 1: bytes_per_row

// The 64-byte memory operand of LDTILECFG / STTILECFG.
struct TileConfig {
  std::uint8_t palette = 0;       // 0: release (initial state); 1: the tile palette
  std::uint8_t start_row = 0;     // restart point of an interrupted load / store; 0 here
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};   // bytes per row of tile i (only 0..7 exist in palette 1)
  std::uint8_t rows[16] = {};     // rows of tile i
};
static_assert(sizeof(TileConfig) == 64);

struct AmxFault : std::logic_error {
  using std::logic_error::logic_error;
};

// LDTILECFG: palette 0 releases (as TILERELEASE); palette 1 checks every shape and zeroes all
// tiles. Faults: an unsupported palette, reserved bytes set, start_row != 0, a tile with rows but
// no bytes per row or the reverse, more than 16 rows or 64 bytes per row, a shape for tiles 8-15.
void ldtilecfg(const TileConfig& config);
TileConfig sttilecfg();
void tilerelease();  // back to the initial state: not configured, tiles zero

// TILELOADD / TILESTORED: rows x colsb bytes of tile t from / to base + r * stride. A load zeroes
// the rest of the tile (bytes beyond colsb, rows beyond rows).
void tileloadd(int t, const void* base, std::size_t stride);
void tilestored(int t, void* base, std::size_t stride);
void tilezero(int t);

// TDPB[SU][SU]D: dst.dword[m][n] += sum over k < a.colsb / 4, i < 4 of
// a.byte[m][4k + i] * b.byte[k][4n + i], with a's bytes signed (S) or unsigned (U) as the first
// letter says and b's as the second; int32 wrap-around, no saturation. Faults: the three tiles not
// distinct, not configured, dst.rows != a.rows, a.colsb / 4 != b.rows, dst.colsb != b.colsb,
// a.colsb not a multiple of 4.
void tdpbusd(int dst, int a, int b);
void tdpbssd(int dst, int a, int b);
void tdpbsud(int dst, int a, int b);
void tdpbuud(int dst, int a, int b);

// The raw bytes of tile t (rows x 64) of this thread, for tests.
const std::uint8_t* tile_bytes(int t);

}  // namespace qtune::detail::amx_model
