// Grid, random and model-guided strategies: valid, never repeating, exhaustive, reproducible.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "qtune/tuner/cost_model.h"
#include "qtune/tuner/grid_strategy.h"
#include "qtune/tuner/model_strategy.h"
#include "qtune/tuner/random_strategy.h"
#include "tuner/synthetic.h"

namespace qtune {
namespace {

// Drives a strategy to exhaustion, measuring with the synthetic surface; returns the order tried.
std::vector<std::string> run_to_exhaustion(Strategy& strategy, const KnobSpace& space, std::size_t batch,
                                           TrialHistory history = {}) {
  std::vector<std::string> order;
  for (;;) {
    auto proposals = strategy.propose(history, batch);
    EXPECT_LE(proposals.size(), batch);
    if (proposals.empty()) break;
    for (const auto& c : proposals) {
      EXPECT_EQ(space.check(c), "") << c.key();
      EXPECT_FALSE(history.contains(c)) << "proposed again: " << c.key();
      history.add(c, testing::synthetic_gops(c));
      order.push_back(c.key());
    }
  }
  return order;
}

TEST(GridStrategy, CoversTheSpaceOnceInCanonicalOrder) {
  const auto space = testing::synthetic_space();
  GridStrategy grid(space);
  const auto order = run_to_exhaustion(grid, space, 7);
  std::vector<std::string> expected;
  for (const auto& c : space.enumerate()) expected.push_back(c.key());
  EXPECT_EQ(order, expected);
}

TEST(GridStrategy, SkipsWhatIsAlreadyMeasured) {
  const auto space = testing::synthetic_space();
  const auto all = space.enumerate();
  TrialHistory history;
  for (std::size_t i = 0; i < all.size(); i += 3) history.add(all[i], 1.0);
  GridStrategy grid(space);
  const auto order = run_to_exhaustion(grid, space, 5, history);
  EXPECT_EQ(order.size() + history.size(), all.size());
}

TEST(RandomStrategy, SameSeedSameOrderDifferentSeedDifferentOrder) {
  const auto space = testing::synthetic_space();
  RandomStrategy a(space, 42), b(space, 42), c(space, 43);
  const auto order_a = run_to_exhaustion(a, space, 4);
  const auto order_b = run_to_exhaustion(b, space, 9);  // batch size does not change the stream
  const auto order_c = run_to_exhaustion(c, space, 4);
  EXPECT_EQ(order_a, order_b);
  EXPECT_NE(order_a, order_c);
  EXPECT_EQ(order_a.size(), space.size());
  EXPECT_EQ(std::set<std::string>(order_a.begin(), order_a.end()).size(), space.size());
}

TEST(RandomStrategy, IsNotTheCanonicalOrder) {
  const auto space = testing::synthetic_space();
  RandomStrategy random(space, 7);
  const auto first = random.propose({}, 10);
  std::vector<std::string> keys, canonical;
  for (const auto& c : first) keys.push_back(c.key());
  for (std::size_t i = 0; i < 10; ++i) canonical.push_back(space.enumerate()[i].key());
  EXPECT_NE(keys, canonical);
}

TEST(ModelStrategy, NeverRepeatsAndExhaustsTheSpace) {
  const auto space = testing::synthetic_space();
  GbtOptions small;
  small.trees = 10;
  ModelStrategy model(space, CostModel(space, small), {}, 3);
  const auto order = run_to_exhaustion(model, space, 8);
  EXPECT_EQ(order.size(), space.size());
  EXPECT_EQ(std::set<std::string>(order.begin(), order.end()).size(), space.size());
}

TEST(ModelStrategy, TriesTransferCandidatesFirstAndDropsInvalidOnes) {
  const auto space = testing::synthetic_space();
  const Config good = space.parse("tile=8;block=128;order=ikj;pack=1;prefetch=128");
  const Config invalid({{"tile", "32"}, {"block", "16"}, {"order", "ijk"}, {"pack", "0"}});
  ASSERT_NE(space.check(invalid), "");
  ModelStrategy model(space, CostModel(space), {}, 3, {}, {invalid, good});
  const auto batch = model.propose({}, 4);
  ASSERT_EQ(batch.size(), 4u);
  EXPECT_EQ(batch[0], good);
  for (const auto& c : batch) EXPECT_EQ(space.check(c), "");
}

TEST(StrategyKind, ParsesItsNames) {
  for (auto kind : {StrategyKind::grid, StrategyKind::random, StrategyKind::model})
    EXPECT_EQ(parse_strategy_kind(to_string(kind)), kind);
  EXPECT_FALSE(parse_strategy_kind("xgb").has_value());
}

}  // namespace
}  // namespace qtune
