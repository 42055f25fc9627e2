#include "qtune/tuner/cost_model.h"

#include <algorithm>
#include <cmath>

namespace qtune {

std::vector<double> relative_log_targets(const std::vector<Observation>& observations) {
  double best = 0, slowest = 0;
  for (const auto& o : observations) {
    if (!o.gops || !(*o.gops > 0)) continue;
    best = std::max(best, *o.gops);
    slowest = slowest == 0 ? *o.gops : std::min(slowest, *o.gops);
  }
  const double failure =
      best > 0 ? std::log(slowest / best) - std::log(kFailureSlowdown) : -std::log(kFailureSlowdown);
  std::vector<double> targets;
  targets.reserve(observations.size());
  for (const auto& o : observations) {
    targets.push_back(o.gops && *o.gops > 0 ? std::log(*o.gops / best) : failure);
  }
  return targets;
}

CostModel::CostModel(KnobSpace feature_space, GbtOptions options)
    : feature_space_(std::move(feature_space)), model_(options) {}

std::vector<double> CostModel::encode(const Config& config, const std::vector<double>& shape) const {
  std::vector<double> row = feature_space_.features(config);
  row.insert(row.end(), shape.begin(), shape.end());
  return row;
}

void CostModel::add_prior(const std::vector<double>& shape, const std::vector<Observation>& observations,
                          double weight) {
  const auto targets = relative_log_targets(observations);
  for (std::size_t i = 0; i < observations.size(); ++i) {
    prior_rows_.push_back(encode(observations[i].config, shape));
    prior_targets_.push_back(targets[i]);
    prior_weights_.push_back(weight);
  }
}

void CostModel::fit(const std::vector<double>& shape, const std::vector<Observation>& observations) {
  std::vector<std::vector<double>> rows = prior_rows_;
  std::vector<double> targets = prior_targets_, weights = prior_weights_;
  const auto own = relative_log_targets(observations);
  for (std::size_t i = 0; i < observations.size(); ++i) {
    rows.push_back(encode(observations[i].config, shape));
    targets.push_back(own[i]);
    weights.push_back(1.0);
  }
  if (rows.empty()) return;
  model_.fit(rows, targets, weights);
}

double CostModel::predict(const Config& config, const std::vector<double>& shape) const {
  return model_.predict(encode(config, shape));
}

}  // namespace qtune
