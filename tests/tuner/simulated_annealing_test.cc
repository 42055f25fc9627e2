// Simulated annealing over a space: valid, distinct, unexcluded proposals that climb the score.
#include <gtest/gtest.h>

#include <set>

#include "qtune/tuner/simulated_annealing.h"
#include "tuner/synthetic.h"

namespace qtune {
namespace {

double score(const Config& c) {
  const auto g = testing::synthetic_gops(c);
  return g ? std::log(*g) : -10.0;
}

TEST(SimulatedAnnealing, ProposesValidDistinctUnexcludedConfigurations) {
  const auto space = testing::synthetic_space();
  std::mt19937_64 rng(1);
  std::vector<Config> starts;
  for (int i = 0; i < 6; ++i) starts.push_back(space.sample(rng));
  std::set<std::string> excluded_keys = {starts[0].key(), starts[1].key()};
  auto excluded = [&](const Config& c) { return excluded_keys.count(c.key()) != 0; };
  const auto best = anneal(space, starts, score, excluded, 12, rng);
  ASSERT_EQ(best.size(), 12u);
  std::set<std::string> keys;
  for (std::size_t i = 0; i < best.size(); ++i) {
    EXPECT_EQ(space.check(best[i]), "") << best[i].key();
    EXPECT_FALSE(excluded(best[i]));
    EXPECT_TRUE(keys.insert(best[i].key()).second);
    if (i > 0) {
      EXPECT_GE(score(best[i - 1]), score(best[i]));  // best first
    }
  }
}

TEST(SimulatedAnnealing, ClimbsFromPoorStartsToNearTheOptimum) {
  const auto space = testing::synthetic_space();
  double optimum = -1e9;
  for (const auto& c : space.enumerate()) optimum = std::max(optimum, score(c));
  std::mt19937_64 rng(2);
  std::vector<Config> starts;
  for (int i = 0; i < 4; ++i) starts.push_back(space.sample(rng));
  const auto best = anneal(space, starts, score, [](const Config&) { return false; }, 1, rng);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_GT(score(best[0]), optimum - std::log(1.05));  // within 5% of the best GOP/s
}

}  // namespace
}  // namespace qtune
