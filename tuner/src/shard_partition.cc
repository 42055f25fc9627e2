#include "qtune/tuner/shard_partition.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "qtune/tuner/session.h"

namespace qtune {
namespace {

// A shard number: decimal digits only (no sign, no spaces), small enough for any fleet.
constexpr std::size_t kMaxShards = 1000000;

std::size_t parse_shard_number(const std::string& digits, const std::string& text, const char* what) {
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw std::invalid_argument("shard '" + text + "': " + what + " '" + digits +
                                "' is not a non-negative integer (expected I/N, e.g. 0/4)");
  if (digits.size() > 7 || std::stoul(digits) > kMaxShards)
    throw std::invalid_argument("shard '" + text + "': " + what + " " + digits + " is larger than " +
                                std::to_string(kMaxShards));
  return std::stoul(digits);
}

}  // namespace

ShardSpec parse_shard_spec(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos)
    throw std::invalid_argument("shard '" + text + "': expected I/N (shard I of N, 0-based, e.g. 0/4)");
  ShardSpec spec;
  spec.index = parse_shard_number(text.substr(0, slash), text, "shard index");
  spec.count = parse_shard_number(text.substr(slash + 1), text, "shard count");
  if (spec.count == 0) throw std::invalid_argument("shard '" + text + "': the shard count must be at least 1");
  if (spec.index >= spec.count)
    throw std::invalid_argument("shard '" + text + "': the index must be 0.." + std::to_string(spec.count - 1) +
                                " (shards are numbered from 0)");
  return spec;
}

std::vector<std::vector<std::size_t>> partition_into_shards(const std::vector<ShardItem>& items, std::size_t shards) {
  if (shards == 0) throw std::invalid_argument("shard partition: the shard count must be at least 1");
  for (const auto& item : items) {
    if (!std::isfinite(item.cost) || item.cost < 0)
      throw std::invalid_argument("shard partition: item '" + item.key + "' has cost " + std::to_string(item.cost) +
                                  ", expected a finite non-negative number");
  }
  std::vector<std::size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable: even items equal in cost and key keep the input order, so the result never depends
  // on the sort implementation.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (items[a].cost != items[b].cost) return items[a].cost > items[b].cost;
    return items[a].key < items[b].key;
  });
  std::vector<std::vector<std::size_t>> parts(shards);
  std::vector<double> load(shards, 0.0);
  for (const std::size_t i : order) {
    // min_element returns the first minimum: equal loads go to the lowest shard index.
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    parts[lightest].push_back(i);
    load[lightest] += items[i].cost;
  }
  for (auto& part : parts) std::sort(part.begin(), part.end());
  return parts;
}

std::vector<Layer> shard_layers(const std::vector<Layer>& layers, ShardSpec shard, double trials_per_layer) {
  if (shard.count == 0 || shard.index >= shard.count)
    throw std::invalid_argument("shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) +
                                ": the index must be below the count");
  const std::vector<Layer> distinct = merge_identical_layers(layers);
  std::vector<ShardItem> items;
  items.reserve(distinct.size());
  for (const auto& layer : distinct) items.push_back({layer.workload.key(), layer.workload.gops() * trials_per_layer});
  // Named: a range-for over an element of the temporary partition would outlive it.
  const auto parts = partition_into_shards(items, shard.count);
  std::vector<Layer> mine;
  for (const std::size_t i : parts[shard.index]) mine.push_back(distinct[i]);
  return mine;
}

}  // namespace qtune
