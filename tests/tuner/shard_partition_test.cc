// Fleet tuning's split of a network into shards: deterministic, every layer in exactly one shard,
// balanced within the longest-processing-time bound, and empty shards when there are more
// machines than layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "qtune/tuner/shard_partition.h"

namespace qtune {
namespace {

std::vector<ShardItem> random_items(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> cost(0.0, 1.5);  // layer costs span orders of magnitude
  std::vector<ShardItem> items;
  for (std::size_t i = 0; i < count; ++i) items.push_back({"layer" + std::to_string(i), cost(rng)});
  return items;
}

double load(const std::vector<ShardItem>& items, const std::vector<std::size_t>& part) {
  double sum = 0;
  for (const std::size_t i : part) sum += items[i].cost;
  return sum;
}

Layer gemm_layer(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k) {
  Layer layer;
  layer.name = name;
  layer.workload.op = OpKind::gemm;
  layer.workload.m = m;
  layer.workload.n = n;
  layer.workload.k = k;
  return layer;
}

TEST(ShardSpec, ParsesIndexOfCount) {
  const ShardSpec spec = parse_shard_spec("3/4");
  EXPECT_EQ(spec.index, 3u);
  EXPECT_EQ(spec.count, 4u);
  EXPECT_EQ(parse_shard_spec("0/1").count, 1u);
}

TEST(ShardSpec, RejectsBadValuesNamingTheProblem) {
  const auto message = [](const std::string& text) {
    try {
      parse_shard_spec(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("4/4").find("0..3"), std::string::npos) << message("4/4");
  EXPECT_NE(message("-1/2").find("'-1' is not a non-negative integer"), std::string::npos) << message("-1/2");
  EXPECT_NE(message("1/0").find("at least 1"), std::string::npos) << message("1/0");
  EXPECT_NE(message("x/y").find("'x' is not a non-negative integer"), std::string::npos) << message("x/y");
  for (const char* bad : {"", "3", "1/2/3", "/4", "1/", " 1/4", "1/4 ", "+1/4", "1/99999999"})
    EXPECT_NE(message(bad), "accepted") << "'" << bad << "'";
}

TEST(ShardPartition, EveryItemInExactlyOneShard) {
  for (std::size_t shards : {1u, 2u, 3u, 7u, 16u}) {
    const auto items = random_items(40, shards);
    const auto parts = partition_into_shards(items, shards);
    ASSERT_EQ(parts.size(), shards);
    std::vector<int> seen(items.size(), 0);
    for (const auto& part : parts) {
      EXPECT_TRUE(std::is_sorted(part.begin(), part.end()));
      for (const std::size_t i : part) ++seen[i];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; })) << shards << " shards";
  }
}

TEST(ShardPartition, IsDeterministicAndIndependentOfInputOrder) {
  auto items = random_items(25, 11);
  const auto parts = partition_into_shards(items, 4);
  EXPECT_EQ(partition_into_shards(items, 4), parts);

  // The same items in another order: the same keys land in the same shards.
  const auto keys_of = [](const std::vector<ShardItem>& list, const std::vector<std::vector<std::size_t>>& split) {
    std::vector<std::set<std::string>> keys;
    for (const auto& part : split) {
      keys.emplace_back();
      for (const std::size_t i : part) keys.back().insert(list[i].key);
    }
    return keys;
  };
  auto shuffled = items;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
  EXPECT_EQ(keys_of(shuffled, partition_into_shards(shuffled, 4)), keys_of(items, parts));

  // Equal costs are ordered by key, so ties cannot depend on the input order either.
  std::vector<ShardItem> ties = {{"d", 1}, {"a", 1}, {"c", 1}, {"b", 1}, {"e", 1}};
  auto reversed = ties;
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(keys_of(ties, partition_into_shards(ties, 2)), keys_of(reversed, partition_into_shards(reversed, 2)));
  EXPECT_EQ(keys_of(ties, partition_into_shards(ties, 2)),
            (std::vector<std::set<std::string>>{{"a", "c", "e"}, {"b", "d"}}));
}

TEST(ShardPartition, BalancedWithinTheLongestProcessingTimeBound) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (std::size_t shards : {2u, 3u, 5u, 8u}) {
      const auto items = random_items(10 + seed * 3, seed);
      const auto parts = partition_into_shards(items, shards);
      double total = 0, largest = 0, heaviest = 0;
      for (const auto& item : items) {
        total += item.cost;
        largest = std::max(largest, item.cost);
      }
      for (const auto& part : parts) heaviest = std::max(heaviest, load(items, part));
      // Any split's heaviest shard is at least the average and at least the largest item; LPT is
      // within 4/3 of the optimum, hence of that lower bound too.
      const double lower_bound = std::max(total / static_cast<double>(shards), largest);
      EXPECT_LE(heaviest, lower_bound * 4.0 / 3.0 + 1e-9) << "seed " << seed << ", " << shards << " shards";
      EXPECT_LE(heaviest, total / static_cast<double>(shards) + (1.0 - 1.0 / static_cast<double>(shards)) * largest + 1e-9);
    }
  }
  // The textbook case: 3, 3, 2, 2, 2 on two shards is 7 + 5 by LPT (the optimum is 6 + 6).
  const std::vector<ShardItem> items = {{"a", 3}, {"b", 3}, {"c", 2}, {"d", 2}, {"e", 2}};
  const auto parts = partition_into_shards(items, 2);
  EXPECT_DOUBLE_EQ(std::max(load(items, parts[0]), load(items, parts[1])), 7.0);
}

TEST(ShardPartition, MoreShardsThanItemsLeavesEmptyShards) {
  const std::vector<ShardItem> items = {{"small", 1}, {"big", 5}};
  const auto parts = partition_into_shards(items, 4);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], std::vector<std::size_t>{1});  // the largest first, to shard 0
  EXPECT_EQ(parts[1], std::vector<std::size_t>{0});
  EXPECT_TRUE(parts[2].empty());
  EXPECT_TRUE(parts[3].empty());
  EXPECT_EQ(partition_into_shards({}, 3), std::vector<std::vector<std::size_t>>(3));
}

TEST(ShardPartition, RejectsNoShardsAndBadCosts) {
  EXPECT_THROW(partition_into_shards({{"a", 1}}, 0), std::invalid_argument);
  EXPECT_THROW(partition_into_shards({{"a", -1}}, 2), std::invalid_argument);
  EXPECT_THROW(partition_into_shards({{"a", std::numeric_limits<double>::quiet_NaN()}}, 2), std::invalid_argument);
  EXPECT_THROW(partition_into_shards({{"a", std::numeric_limits<double>::infinity()}}, 2), std::invalid_argument);
}

TEST(ShardLayers, MergesIdenticalLayersAndSplitsByOperations) {
  // conv_a appears twice (same shape): it is one distinct layer, tuned by exactly one shard.
  const std::vector<Layer> network = {gemm_layer("big", 512, 512, 512), gemm_layer("dup1", 64, 64, 64),
                                      gemm_layer("mid", 256, 256, 256), gemm_layer("dup2", 64, 64, 64),
                                      gemm_layer("tiny", 8, 8, 8)};
  std::multiset<std::string> names;
  for (std::size_t i = 0; i < 2; ++i) {
    for (const auto& layer : shard_layers(network, {i, 2}, 32)) names.insert(layer.name);
  }
  EXPECT_EQ(names, (std::multiset<std::string>{"big", "dup1", "mid", "tiny"}));
  // The largest layer outweighs all others: alone in shard 0.
  const auto first = shard_layers(network, {0, 2}, 32);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].name, "big");
  const auto second = shard_layers(network, {1, 2}, 32);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0].name, "dup1") << "the network's order is kept";
  EXPECT_EQ(second[0].count, 2) << "identical layers are merged and counted";
  EXPECT_TRUE(shard_layers(network, {5, 6}, 32).empty());
  EXPECT_THROW(shard_layers(network, {2, 2}, 32), std::invalid_argument);
}

}  // namespace
}  // namespace qtune
