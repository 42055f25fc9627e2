#include "qtune/kernels/isa.h"

namespace qtune {

std::string_view to_string(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::avx2: return "avx2";
    case Isa::avx512bw: return "avx512bw";
    case Isa::avx512ubsw: return "avx512ubsw";
    case Isa::avx2ubsw: return "avx2ubsw";
    case Isa::avxvnni: return "avxvnni";
    case Isa::avx512vnni: return "avx512vnni";
    case Isa::amx: return "amx";
    case Isa::neon: return "neon";
    case Isa::dotprod: return "dotprod";
    case Isa::i8mm: return "i8mm";
  }
  return "?";
}

std::optional<Isa> parse_isa(std::string_view name) {
  for (Isa isa : kAllIsas) {
    if (to_string(isa) == name) return isa;
  }
  return std::nullopt;
}

}  // namespace qtune
