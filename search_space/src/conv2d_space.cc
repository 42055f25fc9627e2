// The conv2d search space: algo;isa;tile;kc;mc;nc;pack_a;fuse;dw_ctile;dw_wtile;threads, where
// the GEMM knobs exist only for the GEMM-based algorithms, dw_* only for algo=depthwise, and isa
// only for qtune's own algorithms: a library algorithm (algo=onednn) has the threads knob alone.
#include <algorithm>
#include <memory>
#include <set>

#include "gemm_knobs.h"
#include "library_algorithms.h"
#include "qtune/kernels/conv2d.h"
#include "qtune/libraries/library_registry.h"
#include "qtune/search_space/operator_spaces.h"
#include "spaces.h"

namespace qtune {
namespace detail {
namespace {

const std::vector<std::string> kGemmAlgos = {"im2col", "indirect", "gemm_1x1", "implicit"};
const std::vector<std::string> kKernelAlgos = {"im2col", "indirect", "gemm_1x1", "implicit", "depthwise"};

// The isa knob of qtune's own algorithms among `algos`.
Knob kernel_isa_knob(const std::vector<Isa>& isas, const std::vector<std::string>& algos) {
  Knob isa = isa_knob(isas);
  isa.depends_on = "algo";
  for (const std::string& a : algos) {
    if (std::find(kKernelAlgos.begin(), kKernelAlgos.end(), a) != kKernelAlgos.end()) isa.when.push_back(a);
  }
  return isa;
}

// The tiles of the depthwise kernels compiled in (of every instruction set: a configuration names
// its own, checked by conv2d_check_config), in increasing order.
std::vector<std::string> depthwise_tile_domain(int DepthwiseKernelInfo::*tile) {
  std::set<int> tiles;
  for (const DepthwiseKernelInfo& k : depthwise_kernels()) tiles.insert(k.*tile);
  std::vector<std::string> out;
  for (int t : tiles) out.push_back(std::to_string(t));
  return out;
}

std::vector<Knob> depthwise_knobs() {
  Knob ctile{"dw_ctile", depthwise_tile_domain(&DepthwiseKernelInfo::channel_tile),
             "depthwise: channels per step (avx512vnni 64: vpdpbusd on raw bytes where w - zb fits int8)", true};
  Knob wtile{"dw_wtile", depthwise_tile_domain(&DepthwiseKernelInfo::width_tile), "depthwise: output pixels per step",
             true};
  for (Knob* k : {&ctile, &wtile}) {
    k->depends_on = "algo";
    k->when = {"depthwise"};
  }
  return {ctile, wtile};
}

// The kernels' defaults of both kinds of algorithm: the GEMM knobs' from the default algorithm,
// the dw_* knobs' from the depthwise one.
std::vector<Config> kernel_defaults() {
  Conv2dConfig depthwise;
  depthwise.algo = ConvAlgo::depthwise;
  return {from_conv2d_config(Conv2dConfig{}), from_conv2d_config(depthwise)};
}

bool is_pointwise(const Workload& w) {
  return w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 && w.pad_top == 0 &&
         w.pad_bottom == 0 && w.pad_left == 0 && w.pad_right == 0 && w.groups == 1;
}

// Whether algo=implicit can run `problem` with some GEMM tile of one of `isas` (the shape's own
// conditions, and a kernel row that is a whole number of the tile's k groups).
bool implicit_applies(const Conv2dProblem& problem, const std::vector<Isa>& isas) {
  Conv2dConfig c;
  c.algo = ConvAlgo::implicit;
  c.gemm = gemm_default_config(problem.as_gemm());
  c.gemm.kc = 0;
  c.gemm.pack_a = false;
  for (const auto& k : gemm_microkernels()) {
    if (std::find(isas.begin(), isas.end(), k.isa) == isas.end()) continue;
    c.gemm.isa = k.isa;
    c.gemm.mr = k.mr;
    c.gemm.nr = k.nr;
    if (conv2d_check_config(problem, c).empty()) return true;
  }
  return false;
}

}  // namespace

KnobSpace conv2d_full_space() {
  std::vector<Isa> all(kAllIsas.begin(), kAllIsas.end());
  Knob algo{"algo", kKernelAlgos, "convolution algorithm (or a library computing the layer)", false};
  for (const std::string& library : libraries::known_libraries()) algo.values.push_back(library);
  std::vector<Knob> knobs{algo, kernel_isa_knob(all, kKernelAlgos)};
  for (Knob& k : gemm_blocking_knobs(all, std::nullopt, "algo", kGemmAlgos)) knobs.push_back(std::move(k));
  for (Knob& k : depthwise_knobs()) knobs.push_back(std::move(k));
  knobs.push_back(threads_knob(std::nullopt));
  set_default_values(knobs, kernel_defaults());
  return KnobSpace("conv2d", std::move(knobs), {gemm_tile_constraint});
}

KnobSpace conv2d_space_for(const Workload& w, const CpuFeatures& cpu) {
  auto problem = std::make_shared<const Conv2dProblem>(w.conv2d_problem());
  const std::vector<Isa> isas = runnable_isas(cpu);
  // Which algorithms a shape admits is expressed by the algo domain itself.
  std::vector<Knob> knobs;
  // The GEMM of one group: M = N*OH*OW, N = C_out/groups, K = KH*KW*C_in/groups.
  const std::int64_t oh = problem->out_h(), ow = problem->out_w();
  const GemmShape shape{w.batch * oh * ow, w.out_c / w.groups, w.kernel_h * w.kernel_w * (w.in_c / w.groups),
                        w.quant.out_type != DType::s32, w.threads};
  if (problem->depthwise()) {
    // A depthwise layer runs the direct kernel only: the GEMM knobs never apply and are left out.
    Knob algo{"algo", {"depthwise"}, "convolution algorithm (or a library computing the layer)", false};
    for (const std::string& library : offered_libraries(w)) algo.values.push_back(library);
    Knob isa = kernel_isa_knob(isas, algo.values);
    knobs.push_back(std::move(algo));
    knobs.push_back(std::move(isa));
    for (Knob& k : depthwise_knobs()) knobs.push_back(std::move(k));
  } else {
    Knob algo{"algo", {"im2col", "indirect"}, "convolution algorithm (or a library computing the layer)", false};
    if (is_pointwise(w)) algo.values.push_back("gemm_1x1");
    // Offered where some tile of some usable instruction set can read the kernel rows in place.
    if (implicit_applies(*problem, isas)) algo.values.push_back("implicit");
    for (const std::string& library : offered_libraries(w)) algo.values.push_back(library);
    Knob isa = kernel_isa_knob(isas, algo.values);
    knobs.push_back(std::move(algo));
    knobs.push_back(std::move(isa));
    for (Knob& k : gemm_blocking_knobs(isas, shape, "algo", kGemmAlgos)) knobs.push_back(std::move(k));
  }
  knobs.push_back(threads_knob(shape));
  set_default_values(knobs, kernel_defaults());
  auto kernel_check = [problem](const Config& config) -> std::string {
    if (to_library_config(config)) return "";  // offered only where the library is exact
    const Conv2dConfig c = to_conv2d_config(config);
    if (!cpu_features().usable(c.gemm.isa)) return "";
    return conv2d_check_config(*problem, c);
  };
  return KnobSpace("conv2d", std::move(knobs), {gemm_tile_constraint, kernel_check});
}

}  // namespace detail

Conv2dConfig to_conv2d_config(const Config& config) {
  Conv2dConfig c;
  if (to_library_config(config))
    throw InvalidConfig("configuration '" + config.key() + "' hands the layer to a library, not to qtune's kernels");
  auto algo = parse_conv_algo(config.get("algo"));
  if (!algo) throw InvalidConfig("bad value algo=" + config.get("algo"));
  c.algo = *algo;
  auto isa = parse_isa(config.get("isa"));
  if (!isa) throw InvalidConfig("bad value isa=" + config.get("isa"));
  if (c.algo == ConvAlgo::depthwise) {
    c.gemm.isa = *isa;
    c.gemm.threads = config.get_int("threads");
    c.dw_channel_tile = config.get_int("dw_ctile");
    c.dw_width_tile = config.get_int("dw_wtile");
  } else {
    c.gemm = detail::read_gemm_knobs(config);
  }
  return c;
}

Config from_conv2d_config(const Conv2dConfig& c) {
  std::vector<std::pair<std::string, std::string>> a{{"algo", std::string(to_string(c.algo))},
                                                     {"isa", std::string(to_string(c.gemm.isa))}};
  if (c.algo == ConvAlgo::depthwise) {
    a.emplace_back("dw_ctile", std::to_string(c.dw_channel_tile));
    a.emplace_back("dw_wtile", std::to_string(c.dw_width_tile));
  } else {
    for (auto& kv : detail::write_gemm_blocking_knobs(c.gemm)) a.push_back(std::move(kv));
  }
  a.emplace_back("threads", std::to_string(c.gemm.threads));
  return Config(std::move(a));
}

}  // namespace qtune
