#include "knob_effects.h"

#include <algorithm>
#include <map>

#include "config_knobs.h"
#include "layer_results.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune::reports {

namespace {

// The knob's domain order from the operator's full space, when this build has that knob.
std::vector<std::string> domain_order(std::optional<OpKind> op, const std::string& knob) {
  if (!op) return {};
  try {
    return full_space(*op).knob(knob).values;
  } catch (const std::exception&) {
    return {};
  }
}

// `seen` ordered by the domain first, then the unknown values alphabetically.
std::vector<std::string> ordered(const std::vector<std::string>& domain, std::vector<std::string> seen) {
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  std::vector<std::string> out;
  for (const auto& v : domain) {
    if (std::binary_search(seen.begin(), seen.end(), v)) out.push_back(v);
  }
  for (const auto& v : seen) {
    if (std::find(domain.begin(), domain.end(), v) == domain.end()) out.push_back(v);
  }
  return out;
}

std::size_t index_of(const std::vector<std::string>& values, const std::string& value) {
  return static_cast<std::size_t>(std::find(values.begin(), values.end(), value) - values.begin());
}

}  // namespace

KnobHeatMap isa_tile_heat_map(std::optional<OpKind> op, const std::vector<records::MeasurementRecord>& measurements,
                              std::optional<double> gop_per_run) {
  struct Cell {
    std::string isa, tile, config;
    double gops;
  };
  std::vector<Cell> cells;
  KnobHeatMap map;
  for (const auto& m : measurements) {
    const auto gops = measurement_gops(m, gop_per_run);
    if (!gops) continue;
    const KnobValues knobs = split_config_key(m.config_key);
    const auto isa = knob_value(knobs, "isa");
    const auto tile = knob_value(knobs, "tile");
    if (!isa || !tile) {
      ++map.configs_without_tile;
      continue;
    }
    cells.push_back({*isa, *tile, m.config_key, *gops});
  }
  std::vector<std::string> isas, tiles;
  for (const auto& c : cells) {
    isas.push_back(c.isa);
    tiles.push_back(c.tile);
  }
  map.isas = ordered(domain_order(op, "isa"), isas);
  map.tiles = ordered(domain_order(op, "tile"), tiles);
  map.gops.assign(map.isas.size(), std::vector<std::optional<double>>(map.tiles.size()));
  map.best_config.assign(map.isas.size(), std::vector<std::string>(map.tiles.size()));
  for (const auto& c : cells) {
    const std::size_t r = index_of(map.isas, c.isa), col = index_of(map.tiles, c.tile);
    auto& best = map.gops[r][col];
    if (!best || c.gops > *best) {
      best = c.gops;
      map.best_config[r][col] = c.config;
    }
  }
  return map;
}

FuseEffect fuse_effect(const std::vector<records::MeasurementRecord>& measurements, std::optional<double> gop_per_run,
                       std::size_t max_pairs) {
  // Per configuration without fuse: the best GOP/s with fuse=1 and with fuse=0 (a configuration
  // measured several times counts with its best, as everywhere else in the report).
  struct Sides {
    std::optional<double> fused, separate;
  };
  std::map<std::string, Sides> by_rest;
  for (const auto& m : measurements) {
    const auto gops = measurement_gops(m, gop_per_run);
    if (!gops) continue;
    const KnobValues knobs = split_config_key(m.config_key);
    const auto fuse = knob_value(knobs, "fuse");
    if (!fuse || (*fuse != "0" && *fuse != "1")) continue;
    Sides& sides = by_rest[key_without(knobs, "fuse")];
    std::optional<double>& side = *fuse == "1" ? sides.fused : sides.separate;
    if (!side || *gops > *side) side = gops;
  }
  FuseEffect effect;
  std::vector<double> ratios;
  for (const auto& [rest, sides] : by_rest) {
    if (!sides.fused || !sides.separate) continue;
    effect.pairs.push_back(FusePair{rest, *sides.fused, *sides.separate});
    ratios.push_back(*sides.fused / *sides.separate);
    if (*sides.fused > *sides.separate) ++effect.fused_faster;
  }
  effect.total_pairs = effect.pairs.size();
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    const std::size_t n = ratios.size();
    effect.median_ratio = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  }
  std::sort(effect.pairs.begin(), effect.pairs.end(), [](const FusePair& a, const FusePair& b) {
    const double fa = std::max(a.fused_gops, a.separate_gops), fb = std::max(b.fused_gops, b.separate_gops);
    return fa != fb ? fa > fb : a.shared_config < b.shared_config;
  });
  if (effect.pairs.size() > max_pairs) effect.pairs.resize(max_pairs);
  return effect;
}

}  // namespace qtune::reports
