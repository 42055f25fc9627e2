// The GEMM search space: isa;tile;kc;mc;nc;pack_a;fuse;threads.
#include <memory>

#include "gemm_knobs.h"
#include "qtune/search_space/operator_spaces.h"
#include "spaces.h"

namespace qtune {
namespace detail {

std::vector<Isa> runnable_isas(const CpuFeatures& cpu) {
  std::vector<Isa> out;
  for (Isa isa : compiled_isas()) {
    if (cpu.usable(isa)) out.push_back(isa);
  }
  return out;
}

KnobSpace gemm_full_space() {
  std::vector<Isa> all(kAllIsas.begin(), kAllIsas.end());
  std::vector<Knob> knobs{isa_knob(all)};
  for (Knob& k : gemm_blocking_knobs(all, std::nullopt)) knobs.push_back(std::move(k));
  knobs.push_back(threads_knob(std::nullopt));
  set_default_values(knobs, {from_gemm_config(GemmConfig{})});
  return KnobSpace("gemm", std::move(knobs), {gemm_tile_constraint});
}

KnobSpace gemm_space_for(const Workload& workload, const CpuFeatures& cpu) {
  auto problem = std::make_shared<const GemmProblem>(workload.gemm_problem());
  const GemmShape shape{workload.m, workload.n, workload.k, workload.quant.out_type != DType::s32, workload.threads};
  const std::vector<Isa> isas = runnable_isas(cpu);
  std::vector<Knob> knobs{isa_knob(isas)};
  for (Knob& k : gemm_blocking_knobs(isas, shape)) knobs.push_back(std::move(k));
  knobs.push_back(threads_knob(shape));
  set_default_values(knobs, {from_gemm_config(GemmConfig{})});
  // The kernels' own check is the final word where it can be asked: for instruction sets this
  // process can execute (`cpu` may describe another machine; then the declarative rules decide).
  auto kernel_check = [problem](const Config& config) -> std::string {
    const GemmConfig g = read_gemm_knobs(config);
    if (!cpu_features().usable(g.isa)) return "";
    return gemm_check_config(*problem, g);
  };
  return KnobSpace("gemm", std::move(knobs), {gemm_tile_constraint, kernel_check});
}

}  // namespace detail

GemmConfig to_gemm_config(const Config& config) { return detail::read_gemm_knobs(config); }

Config from_gemm_config(const GemmConfig& g) {
  std::vector<std::pair<std::string, std::string>> a{{"isa", std::string(to_string(g.isa))}};
  for (auto& kv : detail::write_gemm_blocking_knobs(g)) a.push_back(std::move(kv));
  a.emplace_back("threads", std::to_string(g.threads));
  return Config(std::move(a));
}

}  // namespace qtune
