// The tile interface the AMX kernels are written against: configure, load, store, zero and the
// u8 x s8 dot product, with tile numbers as template arguments (the instructions encode them).
// NativeTiles compiles to the AMX instructions; ModelTiles to the portable model of the same
// instructions (x86/amx_model/amx_tile_model.h), which tests use on machines without AMX.
// Include only from x86/amx/ (compiled with -mamx-tile -mamx-int8).
#pragma once

#include <cstddef>

#include "x86/amx_model/amx_tile_model.h"

namespace qtune::detail {
namespace {

// The instructions encode the tile number, so it is printed into the instruction text (%c: the
// constant without "$"). GCC 12's _tile_* macros stringify their argument, which a template
// parameter cannot be, hence the asm here; its operands follow those macros (AT&T order), with
// "memory" clobbers on loads too, so that the stores that fill a buffer are not moved after them.
struct NativeTiles {
  static void configure(const amx_model::TileConfig& config) {
    asm volatile("ldtilecfg %0" ::"m"(config) : "memory");
  }
  template <int T>
  static void load(const void* base, std::size_t stride) {
    asm volatile("tileloadd (%0,%1,1), %%tmm%c2" ::"r"(base), "r"(static_cast<long>(stride)), "i"(T) : "memory");
  }
  template <int T>
  static void store(void* base, std::size_t stride) {
    asm volatile("tilestored %%tmm%c2, (%0,%1,1)" ::"r"(base), "r"(static_cast<long>(stride)), "i"(T) : "memory");
  }
  template <int T>
  static void zero() {
    asm volatile("tilezero %%tmm%c0" ::"i"(T));
  }
  // tdpbusd dst, a, b (Intel order): u8 bytes of a times s8 bytes of b.
  template <int Dst, int A, int B>
  static void dot_u8s8() {
    asm volatile("tdpbusd %%tmm%c0, %%tmm%c1, %%tmm%c2" ::"i"(B), "i"(A), "i"(Dst));
  }
};

struct ModelTiles {
  static void configure(const amx_model::TileConfig& config) { amx_model::ldtilecfg(config); }
  template <int T>
  static void load(const void* base, std::size_t stride) {
    amx_model::tileloadd(T, base, stride);
  }
  template <int T>
  static void store(void* base, std::size_t stride) {
    amx_model::tilestored(T, base, stride);
  }
  template <int T>
  static void zero() {
    amx_model::tilezero(T);
  }
  template <int Dst, int A, int B>
  static void dot_u8s8() {
    amx_model::tdpbusd(Dst, A, B);
  }
};

}  // namespace
}  // namespace qtune::detail
