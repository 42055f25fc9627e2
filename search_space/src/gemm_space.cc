// The GEMM search space: algo;isa;tile;kc;mc;nc;pack_a;fuse;threads, where algo=qtune (qtune's own
// kernels, the default: keys written before the knob existed mean them) has every knob and a
// library (algo=onednn) the threads knob alone.
#include <memory>

#include "gemm_knobs.h"
#include "library_algorithms.h"
#include "qtune/libraries/library_registry.h"
#include "qtune/search_space/operator_spaces.h"
#include "spaces.h"

namespace qtune {
namespace detail {
namespace {

const std::string kKernelAlgo = "qtune";

Knob algo_knob(const std::vector<std::string>& libraries) {
  Knob algo{"algo", {kKernelAlgo}, "qtune's kernels or a library computing the layer", false};
  for (const std::string& library : libraries) algo.values.push_back(library);
  return algo;
}

// The knobs of qtune's kernels (isa, tile, kc, mc, nc, pack_a, fuse), present for algo=qtune only.
std::vector<Knob> kernel_knobs(const std::vector<Isa>& isas, const std::optional<GemmShape>& shape) {
  std::vector<Knob> knobs{isa_knob(isas)};
  knobs.front().depends_on = "algo";
  knobs.front().when = {kKernelAlgo};
  for (Knob& k : gemm_blocking_knobs(isas, shape, "algo", {kKernelAlgo})) knobs.push_back(std::move(k));
  return knobs;
}

}  // namespace

std::vector<Isa> runnable_isas(const CpuFeatures& cpu) {
  std::vector<Isa> out;
  for (Isa isa : compiled_isas()) {
    if (cpu.usable(isa)) out.push_back(isa);
  }
  return out;
}

KnobSpace gemm_full_space() {
  std::vector<Isa> all(kAllIsas.begin(), kAllIsas.end());
  std::vector<Knob> knobs{algo_knob(libraries::known_libraries())};
  for (Knob& k : kernel_knobs(all, std::nullopt)) knobs.push_back(std::move(k));
  knobs.push_back(threads_knob(std::nullopt));
  set_default_values(knobs, {from_gemm_config(GemmConfig{})});
  return KnobSpace("gemm", std::move(knobs), {gemm_tile_constraint});
}

KnobSpace gemm_space_for(const Workload& workload, const CpuFeatures& cpu) {
  auto problem = std::make_shared<const GemmProblem>(workload.gemm_problem());
  const GemmShape shape{workload.m, workload.n, workload.k, workload.quant.out_type != DType::s32, workload.threads};
  std::vector<Knob> knobs{algo_knob(offered_libraries(workload))};
  for (Knob& k : kernel_knobs(runnable_isas(cpu), shape)) knobs.push_back(std::move(k));
  knobs.push_back(threads_knob(shape));
  set_default_values(knobs, {from_gemm_config(GemmConfig{})});
  // The kernels' own check is the final word where it can be asked: for instruction sets this
  // process can execute (`cpu` may describe another machine; then the declarative rules decide).
  auto kernel_check = [problem](const Config& config) -> std::string {
    if (to_library_config(config)) return "";  // offered only where the library is exact
    const GemmConfig g = read_gemm_knobs(config);
    if (!cpu_features().usable(g.isa)) return "";
    return gemm_check_config(*problem, g);
  };
  return KnobSpace("gemm", std::move(knobs), {gemm_tile_constraint, kernel_check});
}

}  // namespace detail

GemmConfig to_gemm_config(const Config& config) {
  if (to_library_config(config))
    throw InvalidConfig("configuration '" + config.key() + "' hands the layer to a library, not to qtune's kernels");
  return detail::read_gemm_knobs(config);
}

Config from_gemm_config(const GemmConfig& g) {
  std::vector<std::pair<std::string, std::string>> a{{"algo", detail::kKernelAlgo}, {"isa", std::string(to_string(g.isa))}};
  for (auto& kv : detail::write_gemm_blocking_knobs(g)) a.push_back(std::move(kv));
  a.emplace_back("threads", std::to_string(g.threads));
  return Config(std::move(a));
}

}  // namespace qtune
