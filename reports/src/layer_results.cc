#include "layer_results.h"

#include <algorithm>
#include <set>
#include <utility>

#include "qtune/records/best_selection.h"

namespace qtune::reports {

std::optional<double> measurement_gops(const records::MeasurementRecord& m, std::optional<double> gop_per_run) {
  if (!m.correct() || !m.stats || !(m.stats->median_ns > 0)) return std::nullopt;
  if (m.stats->gops > 0) return m.stats->gops;
  if (gop_per_run && *gop_per_run > 0) return *gop_per_run / (m.stats->median_ns * 1e-9);
  return std::nullopt;
}

void fill_layer_results(LayerReport& layer, const std::vector<records::MeasurementRecord>& measurements,
                        const std::map<std::int64_t, std::string>& strategy_of_session) {
  auto strategy_of = [&](const records::MeasurementRecord& m) -> std::string {
    if (!m.session_id) return "imported";
    auto it = strategy_of_session.find(*m.session_id);
    return it == strategy_of_session.end() || it->second.empty() ? "unknown" : it->second;
  };
  // A configuration's timing is its median measurement, as records defines the best.
  auto timing = [&](const records::MeasurementRecord& median) -> std::optional<ConfigTiming> {
    const std::optional<double> gops = measurement_gops(median, layer.gop_per_run);
    if (!gops) return std::nullopt;
    return ConfigTiming{median.config_key, median.stats->median_ns, *gops};
  };
  auto timing_of = [&](const std::string& config_key) -> std::optional<ConfigTiming> {
    std::vector<records::MeasurementRecord> of_config;
    for (const auto& m : measurements) {
      if (m.config_key == config_key) of_config.push_back(m);
    }
    const auto median = records::select_best(of_config);
    return median.empty() ? std::nullopt : timing(median.front());
  };

  // Trials are configurations: a configuration measured again (a session confirming its leaders)
  // adds no trial and no point to a tuning curve.
  std::set<std::string> tried;
  std::map<std::string, std::pair<std::string, std::int64_t>> first_trial;  // config -> (strategy, curve point)
  std::map<std::string, std::size_t> curve_of_strategy;  // strategy -> index in layer.curves
  for (const auto& m : measurements) {
    if (!tried.insert(m.config_key).second) continue;
    ++layer.trials;
    if (!m.correct()) ++layer.failures;
    const std::optional<double> gops = measurement_gops(m, layer.gop_per_run);
    const std::string strategy = strategy_of(m);
    if (layer.trials == 1) layer.untuned_config = m.config_key;

    auto [it, inserted] = curve_of_strategy.emplace(strategy, layer.curves.size());
    if (inserted) layer.curves.push_back(TuningCurve{strategy, {}, {}});
    TuningCurve& curve = layer.curves[it->second];
    if (m.session_id && std::find(curve.sessions.begin(), curve.sessions.end(), *m.session_id) == curve.sessions.end())
      curve.sessions.push_back(*m.session_id);
    CurvePoint point;
    point.trial = static_cast<std::int64_t>(curve.points.size()) + 1;
    point.best_gops = curve.points.empty() ? std::nullopt : curve.points.back().best_gops;
    if (gops && (!point.best_gops || *gops > *point.best_gops)) point.best_gops = gops;
    curve.points.push_back(point);
    first_trial[m.config_key] = {strategy, point.trial};
  }
  if (!layer.untuned_config.empty()) layer.untuned = timing_of(layer.untuned_config);
  layer.kinds = kind_margin(measurements);
  const auto best = records::select_best(measurements);
  if (!best.empty()) {
    layer.tuned = timing(best.front());  // select_best returns the winner's median measurement
    const auto& [strategy, trial] = first_trial[best.front().config_key];
    layer.tuned_strategy = strategy;
    layer.tuned_at_trial = trial;
  }
}

}  // namespace qtune::reports
