// The GEMM knobs (isa, tile, kc, mc, nc, pack_a, fuse, threads), shared by the gemm space and the
// GEMM-based conv2d algorithms. Internal to search_space.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qtune/kernels/gemm.h"
#include "qtune/search_space/knob_space.h"

namespace qtune::detail {

// The shape a concrete space is built for; absent for full_space (every value, any machine).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool requantized = true;  // out_type != s32: only then is fusing the requantization a choice
  int threads = 1;          // the workload's thread budget
};

inline constexpr int kMaxThreadsKnob = 128;  // full_space's threads domain: 1..128

// Instruction sets with at least one microkernel compiled into this build.
std::vector<Isa> compiled_isas();

Knob isa_knob(const std::vector<Isa>& isas);
// tile, kc, mc, nc, pack_a, fuse in canonical order. The tile domain holds the tiles compiled for
// `isas` (plus, for the full space, a grid of shapes other builds may have). `depends_on`/`when`
// make them conditional (conv2d: only for the GEMM-based algorithms).
std::vector<Knob> gemm_blocking_knobs(const std::vector<Isa>& isas, const std::optional<GemmShape>& shape,
                                      const std::string& depends_on = "", const std::vector<std::string>& when = {});
Knob threads_knob(const std::optional<GemmShape>& shape);

// Declarative constraints that hold on any machine: the tile exists for the isa (when this build
// compiled that isa's family) and kc is a multiple of the microkernel's k group. "" when valid.
std::string gemm_tile_constraint(const Config& config);

// Sets each knob's default_value to its value in the first of `kernel_defaults` that has it: the
// configurations of the kernels' own defaults (GemmConfig{}, Conv2dConfig{}), which is what the
// kernels did before a knob let a key choose. std::logic_error for a knob none of them holds.
void set_default_values(std::vector<Knob>& knobs, const std::vector<Config>& kernel_defaults);

// The GEMM part of a configuration (isa, tile, kc, mc, nc, pack_a, fuse, threads).
// read_gemm_knobs needs every GEMM knob; write_gemm_blocking_knobs gives tile..fuse only.
GemmConfig read_gemm_knobs(const Config& config);
std::vector<std::pair<std::string, std::string>> write_gemm_blocking_knobs(const GemmConfig& config);

}  // namespace qtune::detail
