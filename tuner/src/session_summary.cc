#include "qtune/tuner/session_summary.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

#include "qtune/measure/number_text.h"

namespace qtune {
namespace {

std::string milliseconds(std::optional<double> seconds) {
  return seconds ? fixed(*seconds * 1e3, 3) + " ms" : std::string("-");
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

}  // namespace

NetworkEstimate estimate_network(const std::vector<LayerStatus>& layers) {
  NetworkEstimate e;
  double before = 0, after = 0;
  for (const auto& layer : layers) {
    const auto t_default = layer.seconds_at(layer.default_gops);
    const auto t_best = layer.seconds_at(layer.best_gops);
    if (!t_default || !t_best) {
      ++e.layers_missing;
      continue;
    }
    before += layer.count * *t_default;
    after += layer.count * *t_best;
  }
  if (e.layers_missing < layers.size()) {
    e.before_seconds = before;
    e.after_seconds = after;
  }
  return e;
}

void print_summary(std::ostream& out, const std::vector<LayerStatus>& layers, const MeasureSettings& measured,
                   const DisturbancePolicy& disturbance, std::optional<double> others_busy_cores) {
  struct Row {
    std::string cells[8];
  };
  std::vector<Row> rows;
  rows.push_back({{"#", "layer", "count", "trials", "default GOP/s", "best GOP/s", "speedup", "best configuration"}});
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    std::string trials = std::to_string(l.trials);
    if (l.failures) trials += " (" + std::to_string(l.failures) + " failed)";
    if (l.finished == "early stop" || l.finished == "space exhausted") trials += ", " + l.finished;
    rows.push_back({{std::to_string(i + 1), l.name + " [" + l.workload.describe() + "]", std::to_string(l.count), trials,
                     l.default_gops ? fixed(*l.default_gops, 1) : "-", l.best_gops ? fixed(*l.best_gops, 1) : "-",
                     l.speedup() ? fixed(*l.speedup(), 2) + "x" : "-", l.best_config ? l.best_config->key() : "-"}});
  }
  std::size_t width[8] = {};
  for (const auto& r : rows) {
    for (int c = 0; c < 8; ++c) width[c] = std::max(width[c], r.cells[c].size());
  }
  const bool numeric[8] = {true, false, true, false, true, true, true, false};
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (int c = 0; c < 8; ++c) {
      if (c) line += "  ";
      line += c == 7 ? rows[r].cells[c] : pad(rows[r].cells[c], width[c], numeric[c] && r > 0);
    }
    out << line << "\n";
  }
  const auto e = estimate_network(layers);
  out << "\nnetwork estimate (sum of count x median time per run, cache " << to_string(measured.cache)
      << ", as `qtune run --cache " << to_string(measured.cache) << "` measures): ";
  if (e.before_seconds && e.after_seconds) {
    out << milliseconds(e.before_seconds) << " with default configurations -> " << milliseconds(e.after_seconds)
        << " tuned";
    if (*e.after_seconds > 0) out << " (" << fixed(*e.before_seconds / *e.after_seconds, 2) << "x)";
    if (e.layers_missing) out << "; " << e.layers_missing << " layer(s) without a default and a best left out";
  } else {
    out << "unknown (no layer has both a measured default and a best)";
  }
  out << "\n";
  std::size_t disturbed = 0, still_disturbed = 0;
  for (const auto& layer : layers) {
    disturbed += layer.disturbed;
    still_disturbed += layer.still_disturbed;
  }
  if (others_busy_cores && *others_busy_cores >= 0.25) {
    out << "machine shared: other processes kept " << fixed(*others_busy_cores, 2)
        << " core(s) busy on average during the session; beside the measuring threads they share the caches, "
           "memory bandwidth and clock, so times may be higher than on a quiet machine\n";
  }
  if (disturbed == 0) {
    out << "machine: no measurement was disturbed by other processes\n";
    return;
  }
  out << "machine disturbed: " << disturbed << " measurement(s) found other processes holding the CPU (threads waited "
      << "more than " << fixed(100 * disturbance.max_waiting_share, 0) << "% of the time) and were taken again";
  if (still_disturbed > 0) {
    out << "; " << still_disturbed << " stayed disturbed (up to " << disturbance.retries
        << " retries, none while the machine stayed busy) and were kept: times of a busy machine, the estimate may be off";
  }
  out << "\n";
}

}  // namespace qtune
