// Instruction sets a qtune kernel variant can be written for. The value is a knob of every
// operator's search space; a variant is only offered where cpu_features() says it can run.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace qtune {

enum class Isa : unsigned char {
  scalar,      // portable C++, the fallback everywhere
  avx2,        // x86: vpmaddwd on sign-extended int16 (exact, no vpmaddubsw saturation)
  avxvnni,     // x86: VEX-encoded vpdpbusd on ymm
  avx512vnni,  // x86: EVEX vpdpbusd on zmm
  amx,         // x86: AMX-INT8 tile instructions (tdpbusd / tdpbssd)
  neon,        // Armv8.0 Advanced SIMD: smull/smlal/sadalp
  dotprod,     // Armv8.2 sdot/udot
  i8mm,        // Armv8.6 smmla/ummla
  // Listed last so that the values above keep their numbers; kAllIsas gives the order.
  avx512bw,  // x86: vpmaddwd on sign-extended int16 zmm (AVX-512 BW without VNNI: Skylake-SP)
  // x86 without VNNI, the bytes themselves: vpmaddubsw + vpmaddwd on zmm / ymm, exact because the
  // packed weights never let a pair sum saturate (gemm/pair_clipping.h).
  avx512ubsw,
  avx2ubsw,
};

inline constexpr std::array<Isa, 11> kAllIsas = {Isa::scalar,     Isa::avx2,       Isa::avx2ubsw, Isa::avx512bw,
                                                 Isa::avx512ubsw, Isa::avxvnni,    Isa::avx512vnni, Isa::amx,
                                                 Isa::neon,       Isa::dotprod,    Isa::i8mm};

// Canonical knob spelling: "scalar", "avx2", "avx2ubsw", "avx512bw", "avx512ubsw", "avxvnni", "avx512vnni",
// "amx", "neon", "dotprod", "i8mm".
std::string_view to_string(Isa isa);
std::optional<Isa> parse_isa(std::string_view name);

// The instruction sets with kernels compiled into this build (runnable here or not), in the order
// the default configurations prefer them; scalar is always there, last. The table behind it is
// kernels/src/dispatch/isa_table.cc.
std::vector<Isa> compiled_isas();

}  // namespace qtune
