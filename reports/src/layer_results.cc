#include "layer_results.h"

#include <algorithm>

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

  std::map<std::string, std::size_t> curve_of_strategy;  // strategy -> index in layer.curves
  for (const auto& m : measurements) {
    ++layer.trials;
    if (!m.correct()) ++layer.failures;
    const std::optional<double> gops = measurement_gops(m, layer.gop_per_run);
    const std::string strategy = strategy_of(m);

    if (layer.trials == 1) {
      layer.untuned_config = m.config_key;
      if (gops) layer.untuned = ConfigTiming{m.config_key, m.stats->median_ns, *gops};
    }

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

    // The best is the lowest median, as records defines it; ties keep the earlier trial.
    if (gops && (!layer.tuned || m.stats->median_ns < layer.tuned->median_ns)) {
      layer.tuned = ConfigTiming{m.config_key, m.stats->median_ns, *gops};
      layer.tuned_strategy = strategy;
      layer.tuned_at_trial = point.trial;
    }
  }
}

}  // namespace qtune::reports
