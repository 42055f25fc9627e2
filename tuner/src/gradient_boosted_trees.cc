#include "qtune/tuner/gradient_boosted_trees.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace qtune {
namespace {

// Split candidates of one feature: thresholds between distinct values (quantiles when there are
// more distinct values than bins). A value's bin is the number of thresholds below it, so
// "value <= thresholds[j]" is exactly "bin <= j".
std::vector<double> split_thresholds(std::vector<double> values, int max_bins) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<double> thresholds;
  const std::size_t distinct = values.size();
  if (distinct < 2) return thresholds;
  const std::size_t bins = static_cast<std::size_t>(std::max(2, max_bins));
  if (distinct <= bins) {
    for (std::size_t i = 0; i + 1 < distinct; ++i) thresholds.push_back(0.5 * (values[i] + values[i + 1]));
    return thresholds;
  }
  for (std::size_t j = 1; j < bins; ++j) {
    const std::size_t i = j * distinct / bins - 1;  // last distinct value of quantile bin j-1
    const double t = 0.5 * (values[i] + values[i + 1]);
    if (thresholds.empty() || t > thresholds.back()) thresholds.push_back(t);
  }
  return thresholds;
}

struct Split {
  double gain = 0;
  int feature = -1;
  std::size_t bin = 0;  // rows with bin <= this go left
};

}  // namespace

GradientBoostedTrees::GradientBoostedTrees(GbtOptions options) : options_(options) {}

void GradientBoostedTrees::fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets,
                               const std::vector<double>& weights) {
  const std::size_t n = rows.size();
  if (n == 0) throw std::invalid_argument("gradient boosted trees: no training rows");
  if (targets.size() != n)
    throw std::invalid_argument("gradient boosted trees: " + std::to_string(targets.size()) + " targets for " +
                                std::to_string(n) + " rows");
  if (!weights.empty() && weights.size() != n)
    throw std::invalid_argument("gradient boosted trees: " + std::to_string(weights.size()) + " weights for " +
                                std::to_string(n) + " rows");
  const std::size_t f_count = rows[0].size();
  for (std::size_t i = 0; i < n; ++i) {
    if (rows[i].size() != f_count)
      throw std::invalid_argument("gradient boosted trees: row " + std::to_string(i) + " has " +
                                  std::to_string(rows[i].size()) + " features, row 0 has " + std::to_string(f_count));
    if (!weights.empty() && !(weights[i] > 0))
      throw std::invalid_argument("gradient boosted trees: weight of row " + std::to_string(i) + " is not positive");
  }
  auto weight = [&](std::size_t i) { return weights.empty() ? 1.0 : weights[i]; };

  trees_.clear();
  features_ = f_count;
  double w_sum = 0, wy_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    w_sum += weight(i);
    wy_sum += weight(i) * targets[i];
  }
  base_ = wy_sum / w_sum;
  fitted_ = true;

  // Bin every feature once; trees then only accumulate histograms.
  std::vector<std::vector<double>> thresholds(f_count);
  std::vector<std::vector<std::uint16_t>> bins(f_count, std::vector<std::uint16_t>(n));
  std::size_t max_bins_used = 1;
  for (std::size_t f = 0; f < f_count; ++f) {
    std::vector<double> column(n);
    for (std::size_t i = 0; i < n; ++i) column[i] = rows[i][f];
    thresholds[f] = split_thresholds(column, std::min(options_.max_bins, 65535));
    max_bins_used = std::max(max_bins_used, thresholds[f].size() + 1);
    for (std::size_t i = 0; i < n; ++i) {
      bins[f][i] = static_cast<std::uint16_t>(
          std::lower_bound(thresholds[f].begin(), thresholds[f].end(), column[i]) - thresholds[f].begin());
    }
  }

  std::vector<double> prediction(n, base_);
  std::vector<double> residual(n);
  std::mt19937_64 rng(options_.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::size_t min_leaf = static_cast<std::size_t>(std::max(1, options_.min_samples_leaf));
  const double lambda = options_.l2;
  std::vector<double> hist_w(max_bins_used), hist_g(max_bins_used);
  std::vector<std::size_t> hist_n(max_bins_used);

  for (int t = 0; t < options_.trees; ++t) {
    for (std::size_t i = 0; i < n; ++i) residual[i] = targets[i] - prediction[i];
    std::vector<std::size_t> sample;
    for (std::size_t i = 0; i < n; ++i) {
      if (options_.row_subsample >= 1.0 || unit(rng) < options_.row_subsample) sample.push_back(i);
    }
    if (sample.size() < 2 * min_leaf) {
      sample.resize(n);
      for (std::size_t i = 0; i < n; ++i) sample[i] = i;
    }

    Tree tree;
    struct Pending {
      int node;
      int depth;
      std::vector<std::size_t> rows;
    };
    std::vector<Pending> stack;
    tree.push_back(Node{});
    stack.push_back(Pending{0, 0, std::move(sample)});
    while (!stack.empty()) {
      Pending item = std::move(stack.back());
      stack.pop_back();
      double g_all = 0, w_all = 0;
      for (auto i : item.rows) {
        g_all += weight(i) * residual[i];
        w_all += weight(i);
      }
      Split best;
      if (item.depth < options_.max_depth && item.rows.size() >= 2 * min_leaf) {
        const double parent_score = g_all * g_all / (w_all + lambda);
        for (std::size_t f = 0; f < f_count; ++f) {
          const std::size_t nb = thresholds[f].size() + 1;
          if (nb < 2) continue;
          std::fill_n(hist_w.begin(), nb, 0.0);
          std::fill_n(hist_g.begin(), nb, 0.0);
          std::fill_n(hist_n.begin(), nb, std::size_t{0});
          for (auto i : item.rows) {
            const auto b = bins[f][i];
            hist_w[b] += weight(i);
            hist_g[b] += weight(i) * residual[i];
            ++hist_n[b];
          }
          double g_left = 0, w_left = 0;
          std::size_t n_left = 0;
          for (std::size_t b = 0; b + 1 < nb; ++b) {
            g_left += hist_g[b];
            w_left += hist_w[b];
            n_left += hist_n[b];
            const std::size_t n_right = item.rows.size() - n_left;
            if (n_left < min_leaf) continue;
            if (n_right < min_leaf) break;
            const double g_right = g_all - g_left, w_right = w_all - w_left;
            const double gain =
                g_left * g_left / (w_left + lambda) + g_right * g_right / (w_right + lambda) - parent_score;
            if (gain > best.gain + 1e-12) best = Split{gain, static_cast<int>(f), b};
          }
        }
      }
      if (best.feature < 0) {
        tree[static_cast<std::size_t>(item.node)].value = options_.learning_rate * g_all / (w_all + lambda);
        continue;
      }
      std::vector<std::size_t> left, right;
      const auto& column = bins[static_cast<std::size_t>(best.feature)];
      for (auto i : item.rows) (column[i] <= best.bin ? left : right).push_back(i);
      const int left_id = static_cast<int>(tree.size());
      tree.push_back(Node{});
      tree.push_back(Node{});
      Node& node = tree[static_cast<std::size_t>(item.node)];
      node.feature = best.feature;
      node.threshold = thresholds[static_cast<std::size_t>(best.feature)][best.bin];
      node.left = left_id;
      node.right = left_id + 1;
      stack.push_back(Pending{left_id, item.depth + 1, std::move(left)});
      stack.push_back(Pending{left_id + 1, item.depth + 1, std::move(right)});
    }
    for (std::size_t i = 0; i < n; ++i) prediction[i] += predict_tree(tree, rows[i]);
    trees_.push_back(std::move(tree));
  }
}

double GradientBoostedTrees::predict_tree(const Tree& tree, const std::vector<double>& row) {
  std::size_t at = 0;
  while (tree[at].feature >= 0) {
    const Node& node = tree[at];
    at = static_cast<std::size_t>(row[static_cast<std::size_t>(node.feature)] <= node.threshold ? node.left
                                                                                                 : node.right);
  }
  return tree[at].value;
}

double GradientBoostedTrees::predict(const std::vector<double>& row) const {
  if (!fitted_) throw std::logic_error("gradient boosted trees: predict() before fit()");
  if (row.size() != features_)
    throw std::invalid_argument("gradient boosted trees: row has " + std::to_string(row.size()) +
                                " features, the model was fitted on " + std::to_string(features_));
  double sum = base_;
  for (const auto& tree : trees_) sum += predict_tree(tree, row);
  return sum;
}

}  // namespace qtune
