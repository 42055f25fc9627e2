#include "qtune/evaluation/network_evaluation.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "qtune/measure/number_text.h"
#include "qtune/records/best_selection.h"
#include "qtune/search_space/target.h"

namespace qtune::evaluation {

void accumulate(CaseTiming& total, const CaseTiming& layer, int count) {
  total.median_ns += count * layer.median_ns;
  total.low_ns += count * layer.low_ns;
  total.high_ns += count * layer.high_ns;
  total.repetitions = layer.repetitions;
}

namespace {

// Which kind of candidate (qtune's kernels or a library) won a layer's tuning, by how much over the
// best of the other kind: from the database's measurements of the layer on the runtime's target.
std::optional<reports::KindMargin> tuning_kind_margin(const records::TuningRecords* db, const std::string& target_key,
                                                      const std::string& workload_key) {
  if (!db) return std::nullopt;
  records::MeasurementFilter filter;
  filter.workload_key = workload_key;
  filter.target_key = target_key;
  return reports::kind_margin(db->measurements(filter));
}

// The database's own comparison of a layer's chosen configuration with its default: each one's
// time as the database defines it for this target (best_selection.h: over its measurements; the
// tuner's confirmation times the leaders and the default interleaved), as default time over
// chosen time; none unless both are on record.
std::optional<double> recorded_ratio(const records::TuningRecords* db, const std::string& target_key,
                                     const LayerEvaluation& r) {
  if (!db || r.config_key == r.default_config_key) return std::nullopt;
  const auto median_of = [&](const std::string& config_key) -> std::optional<double> {
    records::MeasurementFilter filter;
    filter.workload_key = r.workload_key;
    filter.target_key = target_key;
    filter.config_key = config_key;
    const auto time = records::select_best(db->measurements(filter));
    if (time.empty() || !time.front().stats || !(time.front().stats->median_ns > 0)) return std::nullopt;
    return time.front().stats->median_ns;
  };
  const std::optional<double> chosen = median_of(r.config_key), plain = median_of(r.default_config_key);
  if (!chosen || !plain) return std::nullopt;
  return *plain / *chosen;
}

std::string ratio_text(double numerator, double denominator) {
  return fixed(numerator / denominator, 2) + "x";
}

void append_run_rows(std::vector<records::NetworkRunRecord>& rows, const LayerEvaluation& r, const Workload& w,
                     const std::string& run_uid, const std::string& network, CacheState cache) {
  const auto row = [&](const char* impl, const std::string& config, const CaseTiming& timing) {
    records::NetworkRunRecord out;
    out.run_uid = run_uid;
    out.target_key = current_target().key();
    out.network = network;
    out.workload_key = r.workload_key;
    out.impl = impl;
    out.config_key = config;
    out.median_ns = timing.median_ns;
    out.gops = w.gops() / (timing.median_ns * 1e-9);
    out.cache = std::string(to_string(cache));
    out.low_ns = timing.low_ns;
    out.high_ns = timing.high_ns;
    out.repetitions = timing.repetitions;
    out.waiting_share = r.waiting_share;
    out.retimed = r.retimed;
    out.disturbed = r.disturbed;
    return out;
  };
  rows.push_back(row(records::kImplTuned, r.config_key, r.tuned));
  rows.push_back(row(records::kImplDefault, r.default_config_key, r.untuned));
  if (r.onednn) rows.push_back(row(records::kImplOneDnn, "", *r.onednn));
}

void add_to_totals(NetworkTotals& totals, const LayerEvaluation& r) {
  accumulate(totals.tuned, r.tuned, r.count);
  accumulate(totals.untuned, r.untuned, r.count);
  if (r.onednn_checked > 0) {
    ++totals.onednn_checked_layers;
    if (r.onednn_mismatched > 0) ++totals.onednn_inexact_layers;
    totals.onednn_checked_sums += r.count * r.onednn_checked;
    totals.onednn_mismatched_sums += r.count * r.onednn_mismatched;
  }
  if (r.onednn) {
    accumulate(totals.onednn, *r.onednn, r.count);
    accumulate(totals.tuned_where_onednn, r.tuned, r.count);
    ++totals.onednn_layers;
    if (r.onednn_dropped) ++totals.onednn_dropped_layers;
  }
  const double tuned_ns = r.tuned.median_ns;
  const double other_ns = r.other ? r.other->median_ns : tuned_ns;
  totals.best_of_kinds_ns += r.count * std::min(tuned_ns, other_ns);
  if (r.other) {
    ++totals.other_kind_layers;
    if (verdict(r.tuned, *r.other) == "slower")
      totals.behind_other_kind.push_back(r.name + " (" + ratio_text(other_ns, tuned_ns) + ")");
  }
  if (r.retimed > 0 || r.disturbed) ++totals.retimed_layers;
  if (r.disturbed) totals.disturbed_layers.push_back(r.name);
  if (r.close_call_repetitions > 0) totals.close_calls.push_back(r.name);
}

}  // namespace

NetworkEvaluation evaluate_network(const WorkloadFile& network, const std::vector<LayerValues>& values,
                                   const runtime::Runtime& rt, const NetworkEvaluationOptions& options) {
  if (!values.empty() && values.size() != network.layers.size())
    throw std::invalid_argument("evaluate_network: " + std::to_string(values.size()) + " layer values for " +
                                std::to_string(network.layers.size()) + " layers");
  NetworkEvaluation out;
  out.run_uid = records::new_run_uid();
  for (CaseTiming* t : {&out.totals.tuned, &out.totals.untuned, &out.totals.onednn, &out.totals.tuned_where_onednn})
    t->repetitions = options.repetitions;
  int busy_streak = 0;  // layers in a row kept disturbed
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const Layer& layer = network.layers[i];
    // The tuner's policy: a layer is timed again as a measurement is measured again.
    const LayerTiming timing{options.repetitions, options.cache, DisturbancePolicy{}.after_streak(busy_streak),
                             options.weights};
    const auto won_by = tuning_kind_margin(options.database, rt.target_key(), layer.workload.key());
    LayerEvaluation r = evaluate_layer(rt, layer, timing, values.empty() ? nullptr : &values[i], won_by);
    r.won_by = won_by;
    r.recorded_ratio = recorded_ratio(options.database, rt.target_key(), r);
    busy_streak = r.disturbed ? busy_streak + 1 : 0;
    append_run_rows(out.run_rows, r, layer.workload, out.run_uid, options.network_name, options.cache);
    add_to_totals(out.totals, r);
    out.layers.push_back(std::move(r));
    if (options.after_layer) options.after_layer(i, out.layers.back());
  }
  return out;
}

std::vector<std::string> integer_rounding_modes(const WorkloadFile& network) {
  std::set<std::string> modes;
  for (const Layer& layer : network.layers) {
    if (layer.workload.quant.rounding != RoundingMode::fp32) modes.insert(std::string(to_string(layer.workload.quant.rounding)));
  }
  return {modes.begin(), modes.end()};
}

}  // namespace qtune::evaluation
