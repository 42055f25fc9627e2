// Fleet tuning: the distinct layers of a network split into N shards, one per machine of the same
// target, so that N machines tune one network in about 1/N of the time and `qtune merge` joins
// their databases. Every machine computes the whole partition from the whole network and keeps its
// own part: the split depends only on the layers and N, never on the machine or on what a
// database already holds, so the N parts always cover every layer exactly once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qtune/search_space/workload.h"

namespace qtune {

// Shard `index` of `count`, 0-based: "0/4" .. "3/4".
struct ShardSpec {
  std::size_t index = 0;
  std::size_t count = 1;
};

// Parses "I/N" with N >= 1 and 0 <= I < N; std::invalid_argument naming the problem otherwise
// ("4/4", "-1/2", "1/0" and "x/y" are all rejected).
ShardSpec parse_shard_spec(const std::string& text);

// One unit of work: a stable identity (ties are broken by it) and its expected cost.
struct ShardItem {
  std::string key;
  double cost = 0;  // finite, >= 0
};

// Longest processing time first: the items sorted by cost (largest first, equal costs by key),
// each given to the shard with the least cost so far (equal loads: the lowest shard index). The
// largest shard then costs at most 4/3 of the best possible split (Graham's bound), and at most
// total / shards + (1 - 1/shards) x the largest item. Deterministic: the same items and count give
// the same split on every machine. Returns `shards` lists of indices into `items`, each in
// ascending order; with more shards than items some lists are empty. std::invalid_argument when
// `shards` is 0 or a cost is negative or not finite.
std::vector<std::vector<std::size_t>> partition_into_shards(const std::vector<ShardItem>& items, std::size_t shards);

// The layers of shard `shard` of a network: identical layers merged first (merge_identical_layers),
// each distinct layer costing its operations x `trials_per_layer` (every layer has the same trial
// target, so the balance is by operations), in the network's order. Empty when the shard got none.
std::vector<Layer> shard_layers(const std::vector<Layer>& layers, ShardSpec shard, double trials_per_layer);

}  // namespace qtune
