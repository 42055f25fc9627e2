#include "qtune/reports/json_report.h"

namespace qtune::reports {

namespace {

using nlohmann::json;

template <typename T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json timing_json(const std::optional<ConfigTiming>& t) {
  if (!t) return nullptr;
  return {{"config", t->config_key}, {"median_ns", t->median_ns}, {"gops", t->gops}};
}

json kind_json(const KindBest& k) {
  return {{"kind", k.kind}, {"config", k.config_key}, {"median_ns", k.median_ns}};
}

// qtune's kernels vs a library: the winning kind, the best of the other kind, and the margin.
json kinds_json(const std::optional<KindMargin>& m) {
  if (!m) return nullptr;
  return {{"winner", kind_json(m->winner)}, {"runner_up", kind_json(m->runner_up)}, {"margin", m->margin()}};
}

json times_json(const NetworkTimes& t, const char* baseline) {
  return {{"layers", t.layers},
          {std::string(baseline) + "_ns", t.baseline_ns},
          {"tuned_ns", t.tuned_ns},
          {"speedup", t.tuned_ns > 0 ? json(t.speedup()) : json(nullptr)}};
}

json layer_json(const LayerReport& l, double network_total_ns) {
  json curves = json::array();
  for (const auto& c : l.curves) {
    json points = json::array();
    for (const auto& p : c.points) points.push_back({p.trial, optional_json(p.best_gops)});
    curves.push_back({{"strategy", c.strategy}, {"sessions", c.sessions}, {"points", points}});
  }
  const auto ns = l.network_ns();
  return {{"index", l.index},
          {"name", l.name},
          {"workload", l.workload_key},
          {"description", l.description},
          {"op", l.op},
          {"count", l.count},
          {"gop_per_run", optional_json(l.gop_per_run)},
          {"trials", l.trials},
          {"failures", l.failures},
          {"untuned_config", l.untuned_config},
          {"untuned", timing_json(l.untuned)},
          {"tuned", timing_json(l.tuned)},
          {"tuned_strategy", l.tuned_strategy},
          {"tuned_at_trial", optional_json(l.tuned_at_trial)},
          {"speedup", optional_json(l.speedup())},
          {"won_by", kinds_json(l.kinds)},
          {"network_ns", optional_json(ns)},
          {"share_of_time", ns && network_total_ns > 0 ? json(*ns / network_total_ns) : json(nullptr)},
          {"run",
           {{"uid", l.run_uid.empty() ? json(nullptr) : json(l.run_uid)},
            {"tuned", timing_json(l.run_tuned)},
            {"default", timing_json(l.run_default)},
            {"onednn", timing_json(l.onednn)},
            {"cache", l.run_uid.empty() || l.run_cache.empty() ? json(nullptr) : json(l.run_cache)},
            {"disturbed", l.run_disturbed},
            {"verdict_vs_default", l.run_vs_default},
            {"verdict_vs_onednn", l.run_vs_onednn}}},
          {"curves", curves}};
}

json focus_json(const FocusLayer& f, const ReportData& data) {
  const LayerReport& layer = data.layers[f.layer];
  json gops = json::array();
  for (const auto& row : f.heat_map.gops) {
    json cells = json::array();
    for (const auto& v : row) cells.push_back(optional_json(v));
    gops.push_back(cells);
  }
  json pairs = json::array();
  for (const auto& p : f.fuse.pairs) {
    pairs.push_back({{"config_without_fuse", p.shared_config},
                     {"fused_gops", p.fused_gops},
                     {"separate_gops", p.separate_gops},
                     {"ratio", p.fused_gops / p.separate_gops}});
  }
  return {{"layer", layer.index},
          {"workload", layer.workload_key},
          {"name", layer.name},
          {"chosen_by", f.chosen_by},
          {"heat_map",
           {{"isas", f.heat_map.isas},
            {"tiles", f.heat_map.tiles},
            {"gops", gops},
            {"best_config", f.heat_map.best_config},
            {"configs_without_tile", f.heat_map.configs_without_tile}}},
          {"fuse",
           {{"total_pairs", f.fuse.total_pairs},
            {"fused_faster", f.fuse.fused_faster},
            {"median_ratio", optional_json(f.fuse.median_ratio)},
            {"pairs", pairs}}}};
}

}  // namespace

json report_json(const ReportData& data) {
  const double total_ns = total_network_ns(data);

  json sessions = json::array();
  for (const auto& s : data.sessions) {
    sessions.push_back({{"id", s.id},
                        {"strategy", s.strategy},
                        {"status", s.status},
                        {"started_at", s.started_at},
                        {"ended_at", s.ended_at},
                        {"trials", s.trials},
                        {"failures", s.failures}});
  }
  json layers = json::array();
  for (const auto& l : data.layers) layers.push_back(layer_json(l, total_ns));

  const ReportSummary& s = data.summary;
  json summary = {{"layers", s.layers},
                  {"layers_tuned", s.layers_tuned},
                  {"sessions", data.sessions.size()},
                  {"trials", s.trials},
                  {"failures", s.failures},
                  {"failure_kinds", s.failure_kinds},
                  {"network_time", times_json(s.untuned_vs_tuned, "untuned")},
                  {"onednn", s.onednn_vs_tuned ? times_json(*s.onednn_vs_tuned, "onednn") : json(nullptr)}};

  return {{"format", kReportFormat},
          {"database", data.database},
          {"target", {{"key", data.target_key}, {"cpu", data.target_cpu}, {"arch", data.target_arch}}},
          {"other_targets", data.other_targets},
          {"network", data.network},
          {"workloads_file", data.workloads_origin},
          {"generated_at", data.generated_at},
          {"qtune_version", data.qtune_version},
          {"summary", summary},
          {"sessions", sessions},
          {"layers", layers},
          {"focus", data.focus ? focus_json(*data.focus, data) : json(nullptr)}};
}

std::string render_json(const ReportData& data) { return report_json(data).dump(2) + "\n"; }

}  // namespace qtune::reports
