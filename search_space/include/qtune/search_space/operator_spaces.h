// The search spaces of qtune's operators, and the mapping between a Config (knob values) and the
// kernels' GemmConfig / Conv2dConfig.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/kernels/gemm.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune {

// Every knob value qtune knows for the operator, regardless of the CPU: used to validate keys
// read from logs made on other machines.
KnobSpace full_space(OpKind op);

// The space of configurations that can run `workload` on a CPU with `cpu`'s features (variants the
// CPU cannot execute are filtered out; thread counts bounded by the workload's budget).
KnobSpace space_for(const Workload& workload, const CpuFeatures& cpu);

// InvalidConfig for a library configuration (to_library_config tells them apart).
GemmConfig to_gemm_config(const Config& config);
Conv2dConfig to_conv2d_config(const Config& config);
Config from_gemm_config(const GemmConfig& config);
Config from_conv2d_config(const Conv2dConfig& config);

// A configuration that hands the layer to a vendor library (gemm, conv2d: algo=onednn;threads=N), which
// computes it bit-exact (see qtune/libraries/library_ops.h). The space offers a library only
// where it is compiled in, usable on this CPU and exact for the layer.
struct LibraryConfig {
  std::string library;  // one of libraries::known_libraries()
  int threads = 1;
};
// The library configuration `config` is, or nullopt for one of qtune's own kernels.
std::optional<LibraryConfig> to_library_config(const Config& config);
Config from_library_config(const LibraryConfig& config);
// Every library configuration `space` offers (each library at each thread count): the tuner
// measures them beside the default.
std::vector<Config> library_configs(const KnobSpace& space);

// The untuned default for the workload on this CPU, as a Config (gemm_default_config etc.).
Config default_config(const Workload& workload, const CpuFeatures& cpu);

// Configurations that no default takes because their speed depends on the layer's weights: `base`
// (the layer's default) with its isa set to the family that clips weight pairs on the same
// registers (pair_clipping_twin: avx2 -> avx2ubsw, avx512bw -> avx512ubsw), where the layer's
// `space` (space_for: the families its CPU may use) has it, the rest of `base` kept where the space
// allows. Empty where base's family has no such twin (VNNI, AMX, Arm, libraries) or the layer's
// algorithm cannot take it (depthwise). The tuner measures them right after the default: a few
// points among thousands that decide a layer on a CPU without VNNI.
std::vector<Config> weight_dependent_alternatives(const KnobSpace& space, const Config& base);

}  // namespace qtune
