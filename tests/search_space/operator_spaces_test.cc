// The gemm and conv2d spaces on this CPU: every point round-trips through its key, through the
// full (any-machine) space and through the kernels' config structs, and only runnable,
// non-redundant points are offered.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/library_ops.h"
#include "qtune/libraries/library_registry.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune {
namespace {

Workload gemm(std::int64_t m, std::int64_t n, std::int64_t k, DType out = DType::s8, int threads = 1) {
  Workload w;
  w.op = OpKind::gemm;
  w.m = m;
  w.n = n;
  w.k = k;
  w.quant.out_type = out;
  w.threads = threads;
  return w;
}

Workload conv(std::int64_t h, std::int64_t c, std::int64_t oc, std::int64_t kernel, std::int64_t pad,
              std::int64_t groups = 1, std::int64_t stride = 1) {
  Workload w;
  w.op = OpKind::conv2d;
  w.in_h = w.in_w = h;
  w.in_c = c;
  w.out_c = oc;
  w.kernel_h = w.kernel_w = kernel;
  w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = pad;
  w.groups = groups;
  w.stride_h = w.stride_w = stride;
  w.quant.a_type = DType::s8;
  return w;
}

struct GemmDims {
  std::int64_t m, n, k;
};

GemmDims dims_of(const Workload& w) {
  if (w.op == OpKind::gemm) return {w.m, w.n, w.k};
  const Conv2dProblem p = w.conv2d_problem();
  return {p.batch * p.out_h() * p.out_w(), p.out_c / p.groups, p.kernel_h * p.kernel_w * (p.in_c / p.groups)};
}

bool tile_compiled(Isa isa, int mr, int nr) {
  const auto& all = gemm_microkernels();
  return std::any_of(all.begin(), all.end(), [&](const auto& i) { return i.isa == isa && i.mr == mr && i.nr == nr; });
}

class EverySpacePoint : public ::testing::TestWithParam<Workload> {};

TEST_P(EverySpacePoint, RoundTripsAndIsRunnableAndNotRedundant) {
  const Workload w = GetParam();
  const CpuFeatures& cpu = cpu_features();
  const KnobSpace space = space_for(w, cpu);
  const KnobSpace full = full_space(w.op);
  const auto points = space.enumerate();
  ASSERT_FALSE(points.empty()) << w.key();
  EXPECT_EQ(space.size(), points.size());
  const GemmDims d = dims_of(w);
  const GemmProblem gemm_problem = w.op == OpKind::gemm ? w.gemm_problem() : GemmProblem{};
  const Conv2dProblem conv_problem = w.op == OpKind::conv2d ? w.conv2d_problem() : Conv2dProblem{};
  std::set<std::string> keys;
  for (const Config& c : points) {
    ASSERT_TRUE(keys.insert(c.key()).second) << "duplicate " << c.key();
    // Key -> parse -> key, in this space and in the any-machine space.
    ASSERT_EQ(space.parse(c.key()), c);
    ASSERT_EQ(full.parse(c.key()), c) << c.key();
    ASSERT_EQ(space.check(c), "");
    if (const auto library = to_library_config(c)) {
      // A library is offered only where it computes the layer exactly, within the thread budget.
      ASSERT_EQ(from_library_config(*library).key(), c.key());
      ASSERT_EQ(w.op == OpKind::gemm ? libraries::library_gemm_unsupported(library->library, gemm_problem)
                                     : libraries::library_conv2d_unsupported(library->library, conv_problem),
                "")
          << c.key();
      ASSERT_GE(library->threads, 1);
      ASSERT_LE(library->threads, w.threads);
      continue;
    }
    GemmConfig g;
    if (w.op == OpKind::gemm) {
      g = to_gemm_config(c);
      ASSERT_EQ(from_gemm_config(g).key(), c.key());
      ASSERT_EQ(gemm_check_config(gemm_problem, g), "") << c.key();
    } else {
      const Conv2dConfig cc = to_conv2d_config(c);
      ASSERT_EQ(from_conv2d_config(cc).key(), c.key());
      ASSERT_EQ(conv2d_check_config(conv_problem, cc), "") << c.key();
      g = cc.gemm;
      if (cc.algo == ConvAlgo::depthwise) {
        ASSERT_TRUE(cpu.usable(g.isa));
        continue;
      }
    }
    ASSERT_TRUE(cpu.usable(g.isa)) << c.key();
    ASSERT_TRUE(tile_compiled(g.isa, g.mr, g.nr)) << c.key();
    // A block as large as the dimension would repeat the whole-dimension (0) configuration.
    ASSERT_TRUE(g.kc == 0 || g.kc < d.k) << c.key();
    ASSERT_TRUE(g.mc == 0 || g.mc < d.m) << c.key();
    ASSERT_TRUE(g.nc == 0 || g.nc < d.n) << c.key();
    ASSERT_GE(g.threads, 1);
    ASSERT_LE(g.threads, w.threads);
    if (w.quant.out_type == DType::s32) {
      ASSERT_TRUE(g.fuse_requant);
    }
  }
  const Config def = default_config(w, cpu);
  EXPECT_EQ(space.check(def), "") << def.key();
  if (w.op == OpKind::gemm) {
    // Snapping into the space keeps the kernels' choice of variant (isa and tile) when the space
    // has it, and only adjusts blocking.
    const GemmConfig kernel_default = gemm_default_config(gemm_problem);
    const std::string tile = std::to_string(kernel_default.mr) + "x" + std::to_string(kernel_default.nr);
    const bool offered = std::any_of(points.begin(), points.end(), [&](const Config& c) {
      return c.get("isa") == to_string(kernel_default.isa) && c.get("tile") == tile;
    });
    if (offered) {
      EXPECT_EQ(def.get("isa"), to_string(kernel_default.isa)) << def.key();
      EXPECT_EQ(def.get("tile"), tile) << def.key();
    }
  }
  // Features are defined for every point and sized like their names.
  EXPECT_EQ(space.features(points.front()).size(), space.feature_names().size());
}

INSTANTIATE_TEST_SUITE_P(Workloads, EverySpacePoint,
                         ::testing::Values(gemm(256, 256, 256, DType::s8, 2), gemm(50, 40, 24, DType::s32),
                                           gemm(1, 1000, 1280), gemm(784, 128, 1152, DType::u8),
                                           conv(56, 24, 144, 1, 0), conv(28, 128, 128, 3, 1),
                                           conv(56, 144, 144, 3, 1, 144), conv(17, 32, 64, 3, 0, 2, 2)));

TEST(GemmSpace, KnobOrderAndDomainsFollowTheShape) {
  const KnobSpace s = space_for(gemm(100, 300, 200), cpu_features());
  std::vector<std::string> names;
  for (const Knob& k : s.knobs()) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"algo", "isa", "tile", "kc", "mc", "nc", "pack_a", "fuse", "threads"}));
  // qtune's own kernels first (the default), then the libraries exact for the layer here.
  std::vector<std::string> algos{"qtune"};
  if (libraries::library_gemm_unsupported("onednn", gemm(100, 300, 200).gemm_problem()).empty()) algos.push_back("onednn");
  EXPECT_EQ(s.knob("algo").values, algos);
  EXPECT_EQ(s.knob("algo").default_value, "qtune");
  EXPECT_EQ(s.knob("kc").values, (std::vector<std::string>{"0", "64", "128"}));
  EXPECT_EQ(s.knob("mc").values, (std::vector<std::string>{"0", "64"}));
  EXPECT_EQ(s.knob("nc").values, (std::vector<std::string>{"0", "128", "256"}));
  EXPECT_EQ(s.knob("threads").values, (std::vector<std::string>{"1"}));
  for (const auto& isa : s.knob("isa").values) EXPECT_TRUE(cpu_features().usable(*parse_isa(isa))) << isa;
  EXPECT_EQ(space_for(gemm(10, 10, 10, DType::s32), cpu_features()).knob("fuse").values,
            (std::vector<std::string>{"1"}));
}

TEST(GemmSpace, ForeignIsaIsAValidKeyButNotRunnableHere) {
  // An avx512vnni key from another machine parses in the full space; on a CPU without it the
  // concrete space rejects the isa value with the allowed list.
  const KnobSpace full = full_space(OpKind::gemm);
  std::string foreign;
  for (const auto& info : gemm_microkernels()) {
    if (!cpu_features().usable(info.isa)) {
      foreign = "isa=" + std::string(to_string(info.isa)) + ";tile=" + std::to_string(info.mr) + "x" +
                std::to_string(info.nr) + ";kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1";
      break;
    }
  }
  if (foreign.empty()) GTEST_SKIP() << "every compiled GEMM isa is usable on this CPU";
  EXPECT_NO_THROW(full.parse(foreign)) << foreign;
  try {
    space_for(gemm(64, 64, 64), cpu_features()).parse(foreign);
    FAIL() << "accepted " << foreign;
  } catch (const InvalidConfig& e) {
    EXPECT_NE(std::string(e.what()).find("allowed:"), std::string::npos) << e.what();
  }
  // Arm keys validate on x86 builds too (the family is not compiled here: tile grid only).
  EXPECT_NO_THROW(full.parse("isa=dotprod;tile=8x8;kc=256;mc=0;nc=0;pack_a=1;fuse=1;threads=4"));
}

TEST(GemmSpace, TileMustExistForTheIsa) {
  const KnobSpace full = full_space(OpKind::gemm);
  try {
    full.parse("isa=scalar;tile=7x64;kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1");
    FAIL();
  } catch (const InvalidConfig& e) {
    EXPECT_NE(std::string(e.what()).find("no 7x64 tile for scalar"), std::string::npos) << e.what();
  }
}

TEST(Conv2dSpace, AlgorithmsFollowTheLayer) {
  const auto algos = [](const Workload& w) { return space_for(w, cpu_features()).knob("algo").values; };
  // qtune's algorithms for the layer, then the libraries that compute it exactly here.
  const auto with_libraries = [](const Workload& w, std::vector<std::string> own) {
    for (const std::string& library : libraries::compiled_libraries()) {
      if (libraries::library_conv2d_unsupported(library, w.conv2d_problem()).empty()) own.push_back(library);
    }
    return own;
  };
  EXPECT_EQ(algos(conv(56, 24, 144, 1, 0)),
            with_libraries(conv(56, 24, 144, 1, 0), {"im2col", "indirect", "gemm_1x1", "implicit"}));
  EXPECT_EQ(algos(conv(28, 128, 128, 3, 1)), with_libraries(conv(28, 128, 128, 3, 1), {"im2col", "indirect", "implicit"}));
  // A first layer's kernel row (3 channels) is no whole number of k groups: implicit widens it.
  EXPECT_EQ(algos(conv(28, 3, 32, 3, 1)), with_libraries(conv(28, 3, 32, 3, 1), {"im2col", "indirect", "implicit"}));
  EXPECT_EQ(algos(conv(56, 144, 144, 3, 1, 144)), with_libraries(conv(56, 144, 144, 3, 1, 144), {"depthwise"}));
  if (libraries::library_unavailable("onednn").empty()) {  // u8 activations: oneDNN's exact brgemm path
    Workload pointwise = conv(56, 24, 144, 1, 0);
    pointwise.quant.a_type = DType::u8;
    EXPECT_EQ(algos(pointwise).back(), "onednn");
  }
  // Depthwise configurations carry their own knobs only.
  const KnobSpace dw = space_for(conv(56, 144, 144, 3, 1, 144), cpu_features());
  std::vector<std::string> names;
  for (const Knob& k : dw.knobs()) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"algo", "isa", "dw_ctile", "dw_wtile", "threads"}));
  // The full space rejects GEMM knobs on a depthwise configuration.
  EXPECT_THROW(full_space(OpKind::conv2d).parse("algo=depthwise;isa=scalar;tile=4x4;dw_ctile=16;dw_wtile=1;threads=1"),
               InvalidConfig);
  EXPECT_NO_THROW(full_space(OpKind::conv2d).parse("algo=depthwise;isa=scalar;dw_ctile=16;dw_wtile=1;threads=1"));
}

TEST(Conv2dSpace, SamplesAreValidAndCoverTheSpace) {
  const KnobSpace s = space_for(conv(28, 128, 128, 3, 1), cpu_features());
  std::mt19937_64 rng(11);
  std::set<std::string> seen;
  // Draws scale with the space (which depends on this CPU's instruction sets): a uniform sampler
  // covers 1 - e^-4 = 98% of the points in 4 * size draws.
  const std::size_t draws = 4 * s.size();
  for (std::size_t i = 0; i < draws; ++i) {
    const Config c = s.sample(rng);
    ASSERT_EQ(s.check(c), "");
    seen.insert(c.key());
    if (i < 100) {
      for (const Config& n : s.neighbours(c)) ASSERT_EQ(s.check(n), "");
    }
  }
  EXPECT_GT(seen.size(), s.size() * 9 / 10);
  // Every knob value that occurs in some valid point is drawn at some time. A value of a single
  // point (a library's configuration) is missed by 4 * size uniform draws with probability e^-4,
  // which a fixed seed turns into a certain failure on some CPUs' spaces: the draws go on, up to
  // 16 * size (a miss of e^-16), until every value has been seen.
  std::set<std::string> values_valid, values_seen;
  for (const Config& c : s.enumerate())
    for (const auto& [k, v] : c.assignments()) values_valid.insert(k + "=" + v);
  const auto note_values = [&](const Config& c) {
    for (const auto& [k, v] : c.assignments()) values_seen.insert(k + "=" + v);
  };
  for (const std::string& key : seen) note_values(s.parse(key));
  for (std::size_t i = draws; i < 16 * s.size() && values_seen != values_valid; ++i) note_values(s.sample(rng));
  EXPECT_EQ(values_seen, values_valid);
}

}  // namespace
}  // namespace qtune

namespace qtune {
namespace {

// Library configurations parse on any build (keys from other machines' logs), carry the threads
// knob alone, and are told apart from kernel configurations; in the gemm and the conv2d space.
TEST(OperatorSpaces, LibraryConfigurationsParseEverywhere) {
  for (OpKind op : {OpKind::gemm, OpKind::conv2d}) {
    const KnobSpace full = full_space(op);
    const Config c = full.parse("algo=onednn;threads=2");
    const auto library = to_library_config(c);
    ASSERT_TRUE(library.has_value());
    EXPECT_EQ(library->library, "onednn");
    EXPECT_EQ(library->threads, 2);
    EXPECT_EQ(from_library_config(*library).key(), c.key());
    EXPECT_THROW(full.parse("algo=onednn;isa=scalar;threads=1"), InvalidConfig);  // no kernel knobs
  }
  EXPECT_THROW(to_gemm_config(full_space(OpKind::gemm).parse("algo=onednn;threads=1")), InvalidConfig);
  EXPECT_THROW(to_conv2d_config(full_space(OpKind::conv2d).parse("algo=onednn;threads=1")), InvalidConfig);
  EXPECT_FALSE(to_library_config(default_config(conv(28, 128, 128, 3, 1), cpu_features())).has_value());
  EXPECT_FALSE(to_library_config(default_config(gemm(64, 64, 64), cpu_features())).has_value());
}

// A GEMM the library computes exactly here is offered at every thread count of the budget, for
// the tuner to measure beside the default; one it cannot is not (a build or CPU without it).
TEST(GemmSpace, LibraryConfigurationsWhereExact) {
  Workload w = gemm(64, 96, 128, DType::s8, 2);
  const std::vector<Config> offered = library_configs(space_for(w, cpu_features()));
  if (!libraries::library_gemm_unsupported("onednn", w.gemm_problem()).empty()) {
    EXPECT_TRUE(offered.empty());
    return;
  }
  ASSERT_EQ(offered.size(), 2u);
  EXPECT_EQ(offered[0].key(), "algo=onednn;threads=1");
  EXPECT_EQ(offered[1].key(), "algo=onednn;threads=2");
  w.k = 70000;  // dot products that can overflow int32: the reference wraps, oneDNN need not
  EXPECT_TRUE(library_configs(space_for(w, cpu_features())).empty());
}

// What a key written before a knob existed means: the kernels' own default for that knob, a value
// of the any-machine space, so that every older key reads as the configuration it was.
TEST(OperatorSpaces, EveryKnobDefaultsToTheKernelsDefault) {
  for (OpKind op : {OpKind::gemm, OpKind::conv2d}) {
    const KnobSpace space = full_space(op);
    for (const Knob& k : space.knobs()) {
      EXPECT_NE(std::find(k.values.begin(), k.values.end(), k.default_value), k.values.end())
          << k.name << "=" << k.default_value;
    }
  }
  const GemmConfig g{};
  EXPECT_EQ(full_space(OpKind::gemm).parse("isa=avx2").key(),
            "algo=qtune;isa=avx2;tile=" + std::to_string(g.mr) + "x" + std::to_string(g.nr) + ";kc=0;mc=0;nc=0;pack_a=1;fuse=1;threads=1");
  EXPECT_EQ(full_space(OpKind::conv2d).parse("algo=depthwise;isa=scalar").key(),
            "algo=depthwise;isa=scalar;dw_ctile=" + std::to_string(Conv2dConfig{}.dw_channel_tile) + ";dw_wtile=1;threads=1");
}

// The value of `knob` in `c`, "" where it has none.
std::string knob_value(const Config& c, const std::string& knob) {
  for (const auto& [name, value] : c.assignments()) {
    if (name == knob) return value;
  }
  return "";
}

// The first of `points` with isa `isa` and algo `algo` ("": any), or nullopt.
std::optional<Config> first_with(const std::vector<Config>& points, Isa isa, const std::string& algo) {
  for (const Config& c : points) {
    if (knob_value(c, "isa") == to_string(isa) && (algo.empty() || knob_value(c, "algo") == algo)) return c;
  }
  return std::nullopt;
}

// What the tuner measures right after a default of a widening family: the same configuration on the
// byte family of its registers, and nothing beside any other default.
TEST(WeightDependentAlternatives, AreTheDefaultOnTheTwinOfItsFamily) {
  const CpuFeatures& cpu = cpu_features();
  std::size_t checked = 0;
  for (const Isa widening : {Isa::avx2, Isa::avx512bw}) {
    const Isa twin = *pair_clipping_twin(widening);
    if (!cpu.usable(widening) || !cpu.usable(twin)) continue;
    for (const Workload& w : {conv(56, 64, 64, 3, 1), conv(28, 128, 512, 1, 0), gemm(49, 512, 4608)}) {
      const KnobSpace space = space_for(w, cpu);
      // A default of the widening family: its algorithm packs A (im2col for the convolutions).
      const std::optional<Config> base =
          first_with(space.enumerate(), widening, w.op == OpKind::conv2d ? "im2col" : "qtune");
      ASSERT_TRUE(base) << w.key();
      const std::vector<Config> alternatives = weight_dependent_alternatives(space, *base);
      ASSERT_EQ(alternatives.size(), 1u) << base->key();
      const Config& alternative = alternatives[0];
      EXPECT_EQ(space.check(alternative), "") << alternative.key();
      EXPECT_EQ(knob_value(alternative, "isa"), to_string(twin)) << alternative.key();
      for (const auto& [name, value] : base->assignments()) {
        if (name != "isa" && name != "tile") {
          EXPECT_EQ(knob_value(alternative, name), value) << alternative.key();
        }
      }
      // Not where the CPU may not use the twin.
      CpuFeatures without_twin = cpu;
      without_twin.isa_restricted = true;
      without_twin.isa_allowlist = {Isa::scalar, widening};
      EXPECT_TRUE(weight_dependent_alternatives(space_for(w, without_twin), *base).empty()) << base->key();
      ++checked;
    }
    // Nor for a depthwise layer, whose algorithm has no kernels of the byte families.
    const Workload depthwise = conv(56, 144, 144, 3, 1, 144);
    if (const auto dw = first_with(space_for(depthwise, cpu).enumerate(), widening, "depthwise")) {
      EXPECT_TRUE(weight_dependent_alternatives(space_for(depthwise, cpu), *dw).empty()) << dw->key();
    }
  }
  // Nor beside a default of a family without a twin: the dot-product families, scalar.
  const Workload w = conv(56, 64, 64, 3, 1);
  const KnobSpace space = space_for(w, cpu);
  const std::vector<Config> points = space.enumerate();
  for (const Isa other : cpu.usable_isas()) {
    if (pair_clipping_twin(other)) continue;
    if (const auto base = first_with(points, other, "")) {
      EXPECT_TRUE(weight_dependent_alternatives(space, *base).empty()) << base->key();
    }
  }
  if (checked == 0) GTEST_SKIP() << "this CPU runs no widening family beside its twin";
}

}  // namespace
}  // namespace qtune
