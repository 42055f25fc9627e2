// Gradient-boosted regression trees (squared loss, histogram splits): the cost model's learner.
// Small and dependency-free; sized for the few thousand samples a tuning session produces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qtune {

struct GbtOptions {
  int trees = 60;
  int max_depth = 5;
  double learning_rate = 0.2;
  int min_samples_leaf = 2;
  double l2 = 1.0;             // shrinks leaf values of small leaves toward zero
  int max_bins = 64;           // split candidates per feature (quantiles of its distinct values)
  double row_subsample = 0.8;  // fraction of rows each tree sees (stochastic boosting)
  std::uint64_t seed = 1;
};

class GradientBoostedTrees {
 public:
  explicit GradientBoostedTrees(GbtOptions options = {});

  // Fits `targets` from `rows` (equal-length feature vectors) minimizing weighted squared error;
  // `weights` is empty (all 1) or one positive weight per row. Throws std::invalid_argument on
  // inconsistent sizes. Refitting replaces the previous model.
  void fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets,
           const std::vector<double>& weights = {});

  double predict(const std::vector<double>& row) const;
  bool fitted() const { return fitted_; }
  std::size_t tree_count() const { return trees_.size(); }

 private:
  struct Node {
    int feature = -1;       // -1: leaf
    double threshold = 0;   // rows with x[feature] <= threshold go left
    int left = -1, right = -1;
    double value = 0;       // leaf output (already scaled by the learning rate)
  };
  using Tree = std::vector<Node>;

  static double predict_tree(const Tree& tree, const std::vector<double>& row);

  GbtOptions options_;
  std::vector<Tree> trees_;
  double base_ = 0;
  std::size_t features_ = 0;
  bool fitted_ = false;
};

}  // namespace qtune
