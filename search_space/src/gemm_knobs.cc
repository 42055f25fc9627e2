#include "gemm_knobs.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <tuple>

namespace qtune::detail {
namespace {

// Cache blocking values; 0 means "the whole dimension". A value >= the dimension blocks nothing,
// so it would only repeat the 0 configuration: concrete spaces drop it.
const std::vector<int> kKcValues = {0, 64, 128, 256, 512, 1024, 2048};
const std::vector<int> kMcValues = {0, 64, 128, 256, 512};
const std::vector<int> kNcValues = {0, 128, 256, 512, 1024};

// Register tiles other builds (other architectures) may hold, so that full_space accepts keys
// from their logs. A tile is checked against its isa only where this build compiled the isa.
const std::vector<int> kGridRows = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 32};
const std::vector<int> kGridCols = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64};

std::string tile_name(int mr, int nr) { return std::to_string(mr) + "x" + std::to_string(nr); }

const std::string* find_value(const Config& config, const std::string& knob) {
  for (const auto& [name, value] : config.assignments()) {
    if (name == knob) return &value;
  }
  return nullptr;
}

bool parse_tile(const std::string& tile, int& mr, int& nr) {
  const auto x = tile.find('x');
  if (x == std::string::npos) return false;
  try {
    std::size_t used = 0;
    mr = std::stoi(tile.substr(0, x), &used);
    if (used != x) return false;
    nr = std::stoi(tile.substr(x + 1), &used);
    return used == tile.size() - x - 1 && mr > 0 && nr > 0;
  } catch (const std::exception&) {
    return false;
  }
}

// Tiles ordered small to large (by area, then rows), the domain order of the "tile" knob.
std::vector<std::string> ordered_tiles(std::set<std::pair<int, int>> tiles) {
  std::vector<std::pair<int, int>> sorted(tiles.begin(), tiles.end());
  std::sort(sorted.begin(), sorted.end(), [](auto a, auto b) {
    return std::make_tuple(a.first * a.second, a.first, a.second) < std::make_tuple(b.first * b.second, b.first, b.second);
  });
  std::vector<std::string> out;
  for (auto [mr, nr] : sorted) out.push_back(tile_name(mr, nr));
  return out;
}

Knob blocking_knob(const char* name, const std::vector<int>& values, std::int64_t dim, const char* help) {
  Knob knob{name, {}, help, true};
  for (int v : values) {
    if (dim > 0 && v != 0 && v >= dim) continue;
    knob.values.push_back(std::to_string(v));
    // The feature of "0" is what it stands for: the whole dimension (unknown in the full space).
    knob.feature_values.push_back(v != 0 ? std::log2(v) : dim > 0 ? std::log2(static_cast<double>(dim)) : 0.0);
  }
  return knob;
}

}  // namespace

std::vector<Isa> compiled_isas() {
  std::vector<Isa> out;
  for (Isa isa : kAllIsas) {
    const auto& kernels = gemm_microkernels();
    if (std::any_of(kernels.begin(), kernels.end(), [&](const GemmMicrokernelInfo& i) { return i.isa == isa; }))
      out.push_back(isa);
  }
  return out;
}

Knob isa_knob(const std::vector<Isa>& isas) {
  Knob knob{"isa", {}, "instruction set of the microkernel", false};
  for (Isa isa : isas) knob.values.emplace_back(to_string(isa));
  return knob;
}

std::vector<Knob> gemm_blocking_knobs(const std::vector<Isa>& isas, const std::optional<GemmShape>& shape,
                                      const std::string& depends_on, const std::vector<std::string>& when) {
  std::set<std::pair<int, int>> tiles;
  for (const auto& info : gemm_microkernels()) {
    if (std::find(isas.begin(), isas.end(), info.isa) != isas.end()) tiles.emplace(info.mr, info.nr);
  }
  if (!shape) {
    for (int mr : kGridRows)
      for (int nr : kGridCols) tiles.emplace(mr, nr);
  }
  std::vector<Knob> knobs;
  knobs.push_back(Knob{"tile", ordered_tiles(tiles), "register tile MRxNR of C held in registers", false});
  knobs.push_back(blocking_knob("kc", kKcValues, shape ? shape->k : 0, "K block (0 = whole K)"));
  knobs.push_back(blocking_knob("mc", kMcValues, shape ? shape->m : 0, "M block (0 = whole M)"));
  knobs.push_back(blocking_knob("nc", kNcValues, shape ? shape->n : 0, "N block (0 = whole N)"));
  knobs.push_back(Knob{"pack_a", {"0", "1"}, "pack A into panels per call (1) or read it in place (0)", true});
  knobs.push_back(Knob{"fuse",
                       shape && !shape->requantized ? std::vector<std::string>{"1"} : std::vector<std::string>{"0", "1"},
                       "requantize in the microkernel epilogue (1) or in a separate pass (0)", true});
  for (Knob& k : knobs) {
    k.depends_on = depends_on;
    k.when = when;
  }
  return knobs;
}

Knob threads_knob(const std::optional<GemmShape>& shape) {
  Knob knob{"threads", {}, "worker threads of the operator", true};
  const int max = shape ? std::max(1, shape->threads) : kMaxThreadsKnob;
  for (int t = 1; t <= max; ++t) knob.values.push_back(std::to_string(t));
  return knob;
}

std::string gemm_tile_constraint(const Config& config) {
  const std::string* isa_name = find_value(config, "isa");
  const std::string* tile = find_value(config, "tile");
  if (!isa_name || !tile) return "";  // not a GEMM-based configuration
  auto isa = parse_isa(*isa_name);
  int mr = 0, nr = 0;
  if (!isa || !parse_tile(*tile, mr, nr)) return "bad isa or tile";
  bool isa_compiled = false, tile_exists = false, kc_fits = false;
  const std::string* kc_text = find_value(config, "kc");
  const int kc = kc_text ? std::stoi(*kc_text) : 0;
  std::set<int> groups;
  for (const auto& info : gemm_microkernels()) {
    if (info.isa != *isa) continue;
    isa_compiled = true;
    if (info.mr != mr || info.nr != nr) continue;
    tile_exists = true;
    groups.insert(info.kr);
    if (kc % info.kr == 0) kc_fits = true;
  }
  if (!isa_compiled) return "";  // another build's family: nothing known here to check against
  if (!tile_exists) return "no " + *tile + " tile for " + *isa_name;
  if (!kc_fits) return "kc=" + std::to_string(kc) + " is not a multiple of the " + *isa_name + " " + *tile +
                       " microkernel's k group (" + std::to_string(*groups.begin()) + ")";
  return "";
}

void set_default_values(std::vector<Knob>& knobs, const std::vector<Config>& kernel_defaults) {
  for (Knob& knob : knobs) {
    for (const Config& config : kernel_defaults) {
      if (const std::string* value = find_value(config, knob.name)) {
        knob.default_value = *value;
        break;
      }
    }
    if (knob.default_value.empty()) throw std::logic_error("knob '" + knob.name + "' has no kernel default");
  }
}

GemmConfig read_gemm_knobs(const Config& config) {
  GemmConfig g;
  auto isa = parse_isa(config.get("isa"));
  if (!isa) throw InvalidConfig("bad value isa=" + config.get("isa"));
  g.isa = *isa;
  if (!parse_tile(config.get("tile"), g.mr, g.nr))
    throw InvalidConfig("bad value tile=" + config.get("tile") + " (expected MRxNR)");
  g.kc = config.get_int("kc");
  g.mc = config.get_int("mc");
  g.nc = config.get_int("nc");
  g.pack_a = config.get_int("pack_a") != 0;
  g.fuse_requant = config.get_int("fuse") != 0;
  g.threads = config.get_int("threads");
  return g;
}

std::vector<std::pair<std::string, std::string>> write_gemm_blocking_knobs(const GemmConfig& g) {
  return {{"tile", tile_name(g.mr, g.nr)},
          {"kc", std::to_string(g.kc)},
          {"mc", std::to_string(g.mc)},
          {"nc", std::to_string(g.nc)},
          {"pack_a", g.pack_a ? "1" : "0"},
          {"fuse", g.fuse_requant ? "1" : "0"}};
}

}  // namespace qtune::detail
