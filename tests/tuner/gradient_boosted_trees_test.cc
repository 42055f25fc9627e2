// The cost model's learner: fits a known function well enough to rank unseen points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "qtune/tuner/cost_model.h"
#include "qtune/tuner/gradient_boosted_trees.h"
#include "tuner/synthetic.h"

namespace qtune {
namespace {

// Kendall's tau between predictions and truth: 1 = same order, 0 = chance.
double kendall_tau(const std::vector<double>& a, const std::vector<double>& b) {
  long long concordant = 0, discordant = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      const double s = (a[i] - a[j]) * (b[i] - b[j]);
      concordant += s > 0;
      discordant += s < 0;
    }
  }
  return static_cast<double>(concordant - discordant) / static_cast<double>(concordant + discordant);
}

double surface(double x, double y, double z) { return std::sin(x) * 2 + (y - 3) * (y - 3) * -0.5 + (z > 0.5 ? 1 : 0) * x; }

TEST(GradientBoostedTrees, RanksUnseenPointsOfAKnownSurface) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> ux(0, 3), uy(0, 6), uz(0, 1);
  std::vector<std::vector<double>> train, test;
  std::vector<double> train_y, test_y;
  for (int i = 0; i < 300; ++i) {
    const double x = ux(rng), y = uy(rng), z = uz(rng);
    train.push_back({x, y, z, uz(rng)});  // the last feature is noise
    train_y.push_back(surface(x, y, z));
  }
  for (int i = 0; i < 200; ++i) {
    const double x = ux(rng), y = uy(rng), z = uz(rng);
    test.push_back({x, y, z, uz(rng)});
    test_y.push_back(surface(x, y, z));
  }
  GradientBoostedTrees model;
  model.fit(train, train_y);
  std::vector<double> predicted;
  for (const auto& row : test) predicted.push_back(model.predict(row));
  EXPECT_GT(kendall_tau(predicted, test_y), 0.75);

  // A model trained on shuffled targets has nothing to learn: it must rank near chance, which shows
  // the margin above is the model's doing, not the test's.
  std::shuffle(train_y.begin(), train_y.end(), rng);
  GradientBoostedTrees noise;
  noise.fit(train, train_y);
  std::vector<double> noise_predicted;
  for (const auto& row : test) noise_predicted.push_back(noise.predict(row));
  EXPECT_LT(std::abs(kendall_tau(noise_predicted, test_y)), 0.3);
}

TEST(GradientBoostedTrees, WeightsPullTheFitTowardHeavyRows) {
  // Two contradicting rows with the same features: the prediction follows the heavier one.
  GbtOptions options;
  options.row_subsample = 1.0;
  options.min_samples_leaf = 1;
  GradientBoostedTrees model(options);
  model.fit({{1.0}, {1.0}, {2.0}}, {0.0, 10.0, 5.0}, {9.0, 1.0, 1.0});
  EXPECT_LT(model.predict({1.0}), 3.0);
}

TEST(GradientBoostedTrees, RejectsInconsistentInput) {
  GradientBoostedTrees model;
  EXPECT_THROW(model.predict({1.0}), std::logic_error);
  EXPECT_THROW(model.fit({}, {}), std::invalid_argument);
  EXPECT_THROW(model.fit({{1.0}, {2.0}}, {1.0}), std::invalid_argument);
  EXPECT_THROW(model.fit({{1.0}, {2.0, 3.0}}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(model.fit({{1.0}, {2.0}}, {1.0, 2.0}, {1.0, 0.0}), std::invalid_argument);
  model.fit({{1.0}, {2.0}}, {1.0, 2.0});
  EXPECT_THROW(model.predict({1.0, 2.0}), std::invalid_argument);
}

TEST(CostModel, LearnsTheSyntheticSpaceFromAFifthOfIt) {
  const auto space = testing::synthetic_space();
  auto all = space.enumerate();
  std::mt19937_64 rng(11);
  std::shuffle(all.begin(), all.end(), rng);
  const std::size_t train_n = all.size() / 5;
  std::vector<Observation> observations;
  for (std::size_t i = 0; i < train_n; ++i) observations.push_back({all[i], testing::synthetic_gops(all[i])});
  CostModel model(space);
  model.fit({}, observations);
  std::vector<double> predicted, truth;
  for (std::size_t i = train_n; i < all.size(); ++i) {
    const auto g = testing::synthetic_gops(all[i]);
    if (!g) continue;
    predicted.push_back(model.predict(all[i], {}));
    truth.push_back(*g);
  }
  EXPECT_GT(kendall_tau(predicted, truth), 0.6);
}

TEST(CostModel, TeachesFailuresAsSlowerThanAnySuccess) {
  const auto space = testing::synthetic_space();
  const auto all = space.enumerate();
  std::vector<Observation> obs = {{all[0], 50.0}, {all[1], 100.0}, {all[2], std::nullopt}};
  const auto targets = relative_log_targets(obs);
  EXPECT_NEAR(targets[1], 0.0, 1e-12);
  EXPECT_NEAR(targets[0], std::log(0.5), 1e-12);
  EXPECT_LT(targets[2], targets[0]);
}

}  // namespace
}  // namespace qtune
