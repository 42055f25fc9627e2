// `qtune run`: runs every layer of a network, in order, on synthetic data with the configuration
// the runtime picks (tuned, nearest tuned shape, or default), then with the untuned default, the
// best candidate of the other kind and oneDNN where the peer can express the layer, and prints
// per-layer and total times. With --model the layers are a quantized ONNX model's, with its own
// weights, bias and quantization, and --onnxruntime times the model in onnxruntime too, in rounds
// between the layers. The evaluation is qtune/evaluation/network_evaluation.h; this file parses
// the options and prints.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache_option.h"
#include "cli.h"
#include "model_cli.h"
#include "qtune/evaluation/network_evaluation.h"
#include "qtune/evaluation/placement_timing.h"
#include "qtune/measure/number_text.h"
#include "qtune/records/log_format.h"
#include "qtune/records/tuning_db.h"
#include "qtune/reports/candidate_kinds.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"
#include "records_cli.h"

#ifdef QTUNE_HAVE_ONNX
#include "qtune/evaluation/model_layer_values.h"
#include "qtune/evaluation/onnxruntime_comparison.h"
#include "qtune/evaluation/whole_model_evaluation.h"
#include "qtune/executor/model_executor.h"
#endif

namespace {

using qtune::CaseTiming;
using qtune::evaluation::LayerEvaluation;
using qtune::runtime::Runtime;

std::string ms(double ns) { return qtune::fixed(ns / 1e6, 3); }

// Half the interquartile range as a share of the median: "3%".
std::string spread(const CaseTiming& t) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << 50 * (t.high_ns - t.low_ns) / t.median_ns << "%";
  return out.str();
}

std::string ratio(double numerator, double denominator) { return qtune::fixed(numerator / denominator, 2) + "x"; }

nlohmann::json optional_json(bool present, const nlohmann::json& value) { return present ? value : nlohmann::json(); }

// The help of --rounds, from the whole model's timing options themselves.
std::string rounds_help() {
  std::string help = "R  with --model: alternations of the whole model's timing (qtune, its references and onnxruntime";
#ifdef QTUNE_HAVE_ONNX
  const qtune::evaluation::WholeModelOptions defaults;
  help += ", each at least " + std::to_string(defaults.min_runs_per_round) + " runs and " +
          qtune::fixed(defaults.min_round_seconds, 1) + " s per round); the median over every round's runs is reported " +
          "(default " + std::to_string(defaults.rounds) + ")";
#else
  help += "; this qtune was built without ONNX support)";
#endif
  return help;
}

void print_header(const qtune::WorkloadFile& network, const Runtime& rt, const std::string& source, int repetitions,
                  qtune::CacheState cache, const std::string& weights) {
  std::cout << "network " << network.network << ": " << network.layers.size() << " distinct layers\n"
            << "tuning data: " << (source.empty() ? "none (every layer uses the heuristic default)" : source)
            << ", " << rt.tuned_workloads() << " tuned workloads for target\n  " << rt.target_key() << "\n";
  if (!rt.target_differences().empty())
    std::cout << "  (the nearest compatible target of this process: " << rt.target_differences() << ")\n";
  if (rt.other_target_workloads() > 0)
    std::cout << "  (" << rt.other_target_workloads() << " tuned workloads of other targets ignored; --target KEY uses them)\n";
  const auto share = qtune::evaluation::share_among_placements(repetitions);
  std::cout << "times are the median of " << share.samples() << " repetitions per layer (" << share.repetitions_each
            << " at each of " << share.placements << " placements in memory), in ms, cache "
            << qtune::to_string(cache) << " (docs/measurement-protocol.md), of tuned, default "
            << "and oneDNN (and the other kind's candidate) interleaved in random order; +- is half the tuned time's interquartile range; a ratio is "
            << "called faster or slower only when the interquartile ranges do not overlap and the medians differ by more "
            << "than " << qtune::fixed(100 * qtune::kMinimumEffect, 0) << "% and than either's relative interquartile range, "
            << "else same (tuned against default: the database's own comparison of the two stands while this run "
            << "agrees with it, docs/measurement-protocol.md \"Verdicts\"); totals weight "
            << "each layer by its count; by is what the tuned choice runs on (qtune's kernels or a library); won by "
            << "is the kind whose best configuration won the layer's tuning and its margin over the best of the other "
            << "kind, where the database measured both; other kind is the best candidate of the kind the tuned "
            << "choice does not run on (a library for qtune's kernels, qtune's kernels for a library: the "
            << "tuning's best of that kind, else the library at the layer's thread budget or qtune's default), "
            << "bit-exact like the tuned, timed with them; dnn sums off is the share of oneDNN's int32 dot products "
            << "(its implementation run once to s32 on the layer's data) that differ from the exact ones; weights: "
            << weights << "\n\n"
            << std::left << std::setw(34) << "layer" << std::setw(30) << "shape" << std::right << std::setw(4)
            << "x" << std::setw(10) << "source" << std::setw(8) << "by" << std::setw(10) << "tuned" << std::setw(7)
            << "+-" << std::setw(10) << "default" << std::setw(10) << "oneDNN" << std::setw(14) << "def/tun" << std::setw(14) << "dnn/tun"
            << std::setw(14) << "won by" << std::setw(24) << "other kind/tun" << std::setw(16) << "dnn sums off" << "\n";
}

// oneDNN's int32 sums that differ from the exact ones, as a share ("0" where none does).
std::string sums_off(const LayerEvaluation& r) {
  if (r.onednn_checked == 0) return "-";
  if (r.onednn_mismatched == 0) return "0";
  return qtune::fixed(100.0 * static_cast<double>(r.onednn_mismatched) / static_cast<double>(r.onednn_checked), 2) + "%";
}

void print_layer(const LayerEvaluation& r, qtune::CacheState cache, bool json) {
  const double tuned_ns = r.tuned.median_ns, default_ns = r.untuned.median_ns;
  const double onednn_ns = r.onednn ? r.onednn->median_ns : 0;  // only read where r.onednn
  const std::string vs_onednn = r.onednn ? qtune::verdict(r.tuned, *r.onednn) : "-";
  const double other_ns = r.other ? r.other->median_ns : tuned_ns;
  const std::string vs_other = r.other ? qtune::verdict(r.tuned, *r.other) : "-";
  if (!json) {
    std::cout << std::left << std::setw(34) << r.name.substr(0, 33) << std::setw(30) << r.description.substr(0, 29)
              << std::right << std::setw(4) << r.count << std::setw(10) << to_string(r.source) << std::setw(8)
              << r.computed_by << std::setw(10) << ms(tuned_ns) << std::setw(7) << spread(r.tuned) << std::setw(10)
              << ms(default_ns) << std::setw(10) << (r.onednn ? ms(onednn_ns) : "-") << std::setw(14)
              << ratio(default_ns, tuned_ns) + " " + r.verdict() << std::setw(14)
              << (r.onednn ? ratio(onednn_ns, tuned_ns) + " " + vs_onednn : "-") << std::setw(14)
              << qtune::reports::format_kind_margin(r.won_by) << std::setw(24)
              << (r.other ? r.other_kind->kind + " " + ratio(other_ns, tuned_ns) + " " + vs_other : "-")
              << std::setw(16) << sums_off(r) << "\n";
    std::cout.flush();
    return;
  }
  const nlohmann::json won_by =
      r.won_by ? nlohmann::json({{"winner", r.won_by->winner.kind},
                                 {"winner_config", r.won_by->winner.config_key},
                                 {"runner_up", r.won_by->runner_up.kind},
                                 {"runner_up_config", r.won_by->runner_up.config_key},
                                 {"margin", r.won_by->margin()}})
               : nlohmann::json();
  const nlohmann::json line = {
      {"type", "layer"},
      {"layer", r.name},
      {"workload", r.workload_key},
      {"description", r.description},
      {"count", r.count},
      {"source", std::string(to_string(r.source))},
      {"config", r.config_key},
      {"computed_by", r.computed_by},
      {"fallback_reason", r.reason},
      {"tuned_ns", tuned_ns},
      {"tuned_quartiles_ns", {r.tuned.low_ns, r.tuned.high_ns}},
      {"default_config", r.default_config_key},
      {"default_ns", default_ns},
      {"default_quartiles_ns", {r.untuned.low_ns, r.untuned.high_ns}},
      {"speedup_vs_default", default_ns / tuned_ns},
      {"verdict_vs_default", r.verdict()},
      {"onednn_ns", optional_json(r.onednn.has_value(), onednn_ns)},
      {"onednn_quartiles_ns", r.onednn ? nlohmann::json({r.onednn->low_ns, r.onednn->high_ns}) : nlohmann::json()},
      {"onednn", r.onednn_note},
      {"speedup_vs_onednn", optional_json(r.onednn.has_value(), onednn_ns / tuned_ns)},
      {"verdict_vs_onednn", vs_onednn},
      {"onednn_sums_checked", r.onednn_checked},
      {"onednn_sums_mismatched", r.onednn_mismatched},
      {"other_kind", r.other_kind ? nlohmann::json(r.other_kind->kind) : nlohmann::json()},
      {"other_kind_config", r.other_kind ? nlohmann::json(r.other_kind->config_key) : nlohmann::json()},
      {"other_kind_origin", r.other_kind ? nlohmann::json(r.other_kind->origin) : nlohmann::json()},
      {"other_kind_note", r.other_note},
      {"other_kind_ns", optional_json(r.other.has_value(), other_ns)},
      {"other_kind_quartiles_ns", r.other ? nlohmann::json({r.other->low_ns, r.other->high_ns}) : nlohmann::json()},
      {"speedup_vs_other_kind", optional_json(r.other.has_value(), other_ns / tuned_ns)},
      {"verdict_vs_other_kind", vs_other},
      {"tuned_share_of_best_of_kinds", std::min(tuned_ns, other_ns) / tuned_ns},
      {"cache", std::string(qtune::to_string(cache))},
      {"waiting_share", r.waiting_share ? nlohmann::json(*r.waiting_share) : nlohmann::json()},
      {"retimed", r.retimed},
      {"disturbed", r.disturbed},
      {"close_call_repetitions", r.close_call_repetitions},
      {"recorded_speedup_vs_default", r.recorded_ratio ? nlohmann::json(*r.recorded_ratio) : nlohmann::json()},
      {"won_by", won_by}};
  std::cout << line.dump() << "\n";
  std::cout.flush();
}

void print_total_json(const qtune::WorkloadFile& network, const qtune::evaluation::NetworkEvaluation& run,
                      const Runtime& rt, std::size_t fallbacks, qtune::CacheState cache, int repetitions,
                      const std::string& stored_run) {
  const auto& t = run.totals;
  const bool onednn = t.onednn_layers > 0;
  const nlohmann::json total = {
      {"type", "total"},
      {"network", network.network},
      {"layers", network.layers.size()},
      {"tuned_ns", t.tuned.median_ns},
      {"default_ns", t.untuned.median_ns},
      {"speedup_vs_default", t.untuned.median_ns / t.tuned.median_ns},
      {"verdict_vs_default", qtune::verdict(t.tuned, t.untuned)},
      {"onednn_layers", t.onednn_layers},
      {"onednn_layers_without_weight_zero_points_or_clamp", t.onednn_dropped_layers},
      {"onednn_ns", optional_json(onednn, t.onednn.median_ns)},
      {"tuned_ns_where_onednn", t.tuned_where_onednn.median_ns},
      {"speedup_vs_onednn", optional_json(onednn, t.onednn.median_ns / t.tuned_where_onednn.median_ns)},
      {"verdict_vs_onednn", onednn ? qtune::verdict(t.tuned_where_onednn, t.onednn) : "-"},
      {"onednn_exactness_layers", t.onednn_checked_layers},
      {"onednn_inexact_layers", t.onednn_inexact_layers},
      {"onednn_sums_checked", t.onednn_checked_sums},
      {"onednn_sums_mismatched", t.onednn_mismatched_sums},
      {"other_kind_layers", t.other_kind_layers},
      {"best_of_kinds_ns", t.best_of_kinds_ns},
      {"tuned_share_of_best_of_kinds", t.best_of_kinds_ns / t.tuned.median_ns},
      {"layers_behind_other_kind", t.behind_other_kind},
      {"fallbacks", fallbacks},
      {"cache", std::string(qtune::to_string(cache))},
      {"retimed_layers", t.retimed_layers},
      {"disturbed_layers", t.disturbed_layers.size()},
      {"repetitions", repetitions},
      {"target", rt.target_key()},
      {"target_differences", rt.target_differences()},
      {"stored_run", stored_run.empty() ? nlohmann::json() : nlohmann::json(stored_run)}};
  std::cout << total.dump() << "\n";
}

void print_names(const std::vector<std::string>& names) {
  for (const auto& name : names) std::cout << " " << name;
  std::cout << "\n";
}

void print_total_text(const qtune::WorkloadFile& network, const qtune::evaluation::NetworkEvaluation& run) {
  const auto& t = run.totals;
  std::cout << "\ntotal: tuned " << ms(t.tuned.median_ns) << " ms, default " << ms(t.untuned.median_ns)
            << " ms (default/tuned " << ratio(t.untuned.median_ns, t.tuned.median_ns) << ", "
            << qtune::verdict(t.tuned, t.untuned) << ")";
  if (t.onednn_layers > 0) {
    std::cout << "; oneDNN " << ms(t.onednn.median_ns) << " ms on the " << t.onednn_layers
              << " layer(s) it can run, tuned " << ms(t.tuned_where_onednn.median_ns) << " ms on those (oneDNN/tuned "
              << ratio(t.onednn.median_ns, t.tuned_where_onednn.median_ns) << ", "
              << qtune::verdict(t.tuned_where_onednn, t.onednn) << ")";
  }
  std::cout << "\n";
  if (t.other_kind_layers > 0) {
    std::cout << "best of qtune's kernels and the libraries per layer, this run: " << ms(t.best_of_kinds_ns)
              << " ms (best/tuned " << ratio(t.best_of_kinds_ns, t.tuned.median_ns) << "; the other kind ran on "
              << t.other_kind_layers << " layer(s)); ";
    if (t.behind_other_kind.empty()) {
      std::cout << "no layer's tuned choice was slower than the other kind\n";
    } else {
      std::cout << t.behind_other_kind.size() << " layer(s) slower than the other kind (other/tuned):";
      print_names(t.behind_other_kind);
    }
  }
  // oneDNN's int8 primitives requantize with an fp32 scale; say when the layers ask for more.
  const auto exact_modes = qtune::evaluation::integer_rounding_modes(network);
  if (t.onednn_layers > 0 && !exact_modes.empty()) {
    std::cout << "note: oneDNN requantizes with an fp32 scale, qtune with the layers' own rounding (";
    for (std::size_t i = 0; i < exact_modes.size(); ++i) std::cout << (i == 0 ? "" : ", ") << exact_modes[i];
    std::cout << "): dnn/tun includes that difference; `--rounding fp32` compares the same math\n";
  }
  if (t.onednn_checked_layers > 0) {
    if (t.onednn_inexact_layers == 0) {
      std::cout << "oneDNN's int32 dot products were exact on all " << t.onednn_checked_layers
                << " layer(s) checked (each run once to s32 on the layer's data, against qtune's exact sums)\n";
    } else {
      std::cout << "oneDNN INEXACT: its int32 dot products differ from the exact ones on " << t.onednn_inexact_layers
                << " of " << t.onednn_checked_layers << " layer(s) checked, " << t.onednn_mismatched_sums << " of "
                << t.onednn_checked_sums << " sums ("
                << qtune::fixed(100.0 * static_cast<double>(t.onednn_mismatched_sums) /
                                    static_cast<double>(t.onednn_checked_sums), 2)
                << "%, weighted by count; column dnn sums off); qtune's are exact\n";
    }
  }
  if (t.onednn_dropped_layers > 0) {
    std::cout << "note: oneDNN ran " << t.onednn_dropped_layers << " layer(s) without what it cannot express (weight "
              << "zero points, clamp bounds narrower than the output type): the same work on other values\n";
  }
}

void print_machine_and_fallbacks(const qtune::WorkloadFile& network, const qtune::evaluation::NetworkEvaluation& run,
                                 const std::vector<qtune::runtime::FallbackEntry>& fallbacks) {
  const auto& t = run.totals;
  if (!t.close_calls.empty()) {
    std::cout << "close calls: " << t.close_calls.size() << " layer(s) whose tuned and default times were between "
              << "half and twice the minimum effect apart, or spread wider than it, were timed again with "
              << qtune::kCloseCallRepetitions << "x the repetitions at " << qtune::kCloseCallRepetitions
              << "x the placements, and are judged on that:";
    print_names(t.close_calls);
  }
  if (t.retimed_layers == 0) {
    std::cout << "machine: no layer's timing was disturbed by other processes\n";
  } else {
    std::cout << "machine disturbed: " << t.retimed_layers << " layer(s) found other processes holding the CPU while "
              << "timed and were timed again";
    if (!t.disturbed_layers.empty()) {
      std::cout << "; " << t.disturbed_layers.size() << " stayed disturbed, their figures are of a busy machine:";
      for (const auto& name : t.disturbed_layers) std::cout << " " << name;
    }
    std::cout << "\n";
  }
  if (fallbacks.empty()) {
    std::cout << "every layer ran its own tuned configuration\n";
  } else {
    std::cout << fallbacks.size() << " of " << network.layers.size() << " layers fell back:\n";
    for (const auto& f : fallbacks) std::cout << "  " << f.workload_key << "\n    -> " << f.config_key << ": " << f.reason << "\n";
  }
}

#ifdef QTUNE_HAVE_ONNX
// The model in onnxruntime at 1 thread and the run's budget (2 for a budget of 1): per layer (its
// profiler's kernel times of the layer's nodes) against the tuned time, and the whole model.
void print_onnxruntime(const qtune::evaluation::OnnxRuntimeComparison& c, int threads, bool json) {
  const std::string key_of = "onnxruntime_";
  if (json) {
    nlohmann::json layers = nlohmann::json::object();
    for (const auto& layer : c.layers) {
      nlohmann::json line = {{"tuned_ns", layer.tuned.median_ns}};
      for (std::size_t i = 0; i < c.runs.size(); ++i) {
        if (!layer.onnxruntime[i]) continue;
        const std::string key = key_of + std::to_string(c.runs[i].threads) + "t";
        line[key + "_ns"] = layer.onnxruntime[i]->median_ns;
        line[key + "_quartiles_ns"] = {layer.onnxruntime[i]->low_ns, layer.onnxruntime[i]->high_ns};
        line[key + "_verdict"] = qtune::verdict(layer.tuned, *layer.onnxruntime[i]);
      }
      layers[layer.name] = line;
    }
    nlohmann::json line = {{"type", "onnxruntime"}, {"version", c.version}, {"threads", threads},
                           {"layers", layers},      {"layers_tuned_ns", c.tuned_total.median_ns}};
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      const std::string key = key_of + std::to_string(c.runs[i].threads) + "t";
      line[key] = {{"layers_ns", c.onnxruntime_totals[i].median_ns},
                   {"verdict", qtune::verdict(c.tuned_total, c.onnxruntime_totals[i])},
                   {"model_ns", c.runs[i].model.median_ns},
                   {"other_nodes_ns", c.runs[i].other.median_ns}};
    }
    std::cout << line.dump() << "\n";
    return;
  }
  std::cout << "\nonnxruntime " << c.version << " (Node.js) at";
  for (const auto& run : c.runs) std::cout << " " << run.threads << (&run == &c.runs.front() ? " and" : "");
  std::cout << " thread(s), " << c.runs.front().model.repetitions << " runs each, in rounds between qtune's layers; a "
            << "layer's time is the median of the sum of onnxruntime's profiler kernel times of its nodes; qtune "
            << "ran at " << threads << " thread(s)\n"
            << std::left << std::setw(34) << "layer" << std::right << std::setw(4) << "x" << std::setw(10) << "tuned";
  for (const auto& run : c.runs) std::cout << std::setw(10) << "ort " + std::to_string(run.threads) + "t";
  for (const auto& run : c.runs) std::cout << std::setw(18) << "ort" + std::to_string(run.threads) + "/tun";
  std::cout << "\n";
  for (const auto& layer : c.layers) {
    std::ostringstream times, ratios;
    for (const auto& t : layer.onnxruntime) {
      times << std::setw(10) << (t ? ms(t->median_ns) : "-");
      ratios << std::setw(18) << (t ? ratio(t->median_ns, layer.tuned.median_ns) + " " + qtune::verdict(layer.tuned, *t) : "-");
    }
    std::cout << std::left << std::setw(34) << layer.name.substr(0, 33) << std::right << std::setw(4) << layer.count
              << std::setw(10) << ms(layer.tuned.median_ns) << times.str() << ratios.str() << "\n";
  }
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    std::cout << "layers at " << c.runs[i].threads << " onnxruntime thread(s): tuned " << ms(c.tuned_total.median_ns)
              << " ms, onnxruntime " << ms(c.onnxruntime_totals[i].median_ns) << " ms (onnxruntime/tuned "
              << ratio(c.onnxruntime_totals[i].median_ns, c.tuned_total.median_ns) << ", "
              << qtune::verdict(c.tuned_total, c.onnxruntime_totals[i]) << "); the whole model in onnxruntime "
              << ms(c.runs[i].model.median_ns) << " ms (session.run from Node.js), of which " << ms(c.runs[i].other.median_ns)
              << " ms in nodes qtune does not compute (pooling, layout transposes, ...)\n";
  }
}
#endif

#ifdef QTUNE_HAVE_ONNX
// The whole model through the executor, beside onnxruntime's session.run when timed.
void print_whole_model(const qtune::evaluation::WholeModelEvaluation& e, const qtune::executor::ModelExecutor& model, bool json) {
  const auto& arena = model.arena();
  if (json) {
    nlohmann::json types = nlohmann::json::array();
    for (const auto& t : e.op_types)
      types.push_back({{"op_type", t.op_type}, {"steps", t.steps}, {"median_ns", t.median_ns}, {"share", t.share}});
    nlohmann::json line = {{"type", "whole_model"},
                           {"threads", e.threads},
                           {"qtune_ns", e.qtune.median_ns},
                           {"qtune_quartiles_ns", {e.qtune.low_ns, e.qtune.high_ns}},
                           {"runs", e.qtune.repetitions},
                           {"op_types", types},
                           {"other_than_layers_share", e.other_than_layers_share},
                           {"arena_bytes", arena.arena_bytes},
                           {"peak_live_bytes", arena.peak_live_bytes},
                           {"all_tensor_bytes", arena.all_tensor_bytes},
                           {"fused_steps", e.fused_steps},
                           {"gops", e.gops}};
    if (e.peak_gops_per_core > 0) {
      line["peak_instruction"] = e.peak_instruction;
      line["peak_gops_per_core"] = e.peak_gops_per_core;
      line["share_of_limit"] = e.share_of_limit;
    }
    if (e.unfused) {
      line["unfused_ns"] = e.unfused->median_ns;
      line["unfused_quartiles_ns"] = {e.unfused->low_ns, e.unfused->high_ns};
      line["unfused_verdict"] = qtune::verdict(e.qtune, *e.unfused);
    }
    if (e.untuned) {
      line["untuned_ns"] = e.untuned->median_ns;
      line["untuned_quartiles_ns"] = {e.untuned->low_ns, e.untuned->high_ns};
      line["untuned_verdict"] = qtune::verdict(e.qtune, *e.untuned);
    }
    for (std::size_t i = 0; i < e.onnxruntime.size(); ++i) {
      const std::string key = "onnxruntime_" + std::to_string(e.onnxruntime_threads[i]) + "t";
      line[key + "_ns"] = e.onnxruntime[i].median_ns;
      line[key + "_quartiles_ns"] = {e.onnxruntime[i].low_ns, e.onnxruntime[i].high_ns};
      line[key + "_verdict"] = qtune::verdict(e.qtune, e.onnxruntime[i]);
    }
    if (!e.onnxruntime_version.empty()) line["onnxruntime_version"] = e.onnxruntime_version;
    std::cout << line.dump() << "\n";
    return;
  }
  std::cout << "\nwhole model (qtune's executor, " << model.steps().size() << " steps) at " << e.threads << " thread(s): "
            << ms(e.qtune.median_ns) << " ms (quartiles " << ms(e.qtune.low_ns) << " - " << ms(e.qtune.high_ns) << ", "
            << e.qtune.repetitions << " runs)\n";
  if (e.peak_gops_per_core > 0) {
    char limit[200];
    std::snprintf(limit, sizeof limit, "  of limit: %.1f%% (%.3f GOP in %.3f ms against %d x %.0f GOP/s, %s registers only)\n",
                  100 * e.share_of_limit, e.gops, e.qtune.median_ns / 1e6, e.threads, e.peak_gops_per_core,
                  e.peak_instruction.c_str());
    std::cout << limit;
  }
  if (e.unfused)
    std::cout << "  unfused (--no-fusion; " << e.fused_steps << " fused blocks run as their operations one by one): " << ms(e.unfused->median_ns)
              << " ms (quartiles " << ms(e.unfused->low_ns) << " - " << ms(e.unfused->high_ns) << "); unfused/fused "
              << ratio(e.unfused->median_ns, e.qtune.median_ns) << " (" << qtune::verdict(e.qtune, *e.unfused) << ")\n";
  if (e.untuned)
    std::cout << "  untuned (no tuning records: every layer's default configuration, no tuned block): "
              << ms(e.untuned->median_ns) << " ms (quartiles " << ms(e.untuned->low_ns) << " - " << ms(e.untuned->high_ns)
              << "); untuned/tuned " << ratio(e.untuned->median_ns, e.qtune.median_ns) << " ("
              << qtune::verdict(e.qtune, *e.untuned) << ")\n";
  for (std::size_t i = 0; i < e.onnxruntime.size(); ++i) {
    std::cout << "  onnxruntime " << e.onnxruntime_version << " session.run at " << e.onnxruntime_threads[i] << " thread(s): "
              << ms(e.onnxruntime[i].median_ns) << " ms (quartiles " << ms(e.onnxruntime[i].low_ns) << " - "
              << ms(e.onnxruntime[i].high_ns) << ")";
    // A ratio only between equal thread budgets; the other is shown for scale.
    if (e.onnxruntime_threads[i] == e.threads)
      std::cout << "; onnxruntime/qtune " << ratio(e.onnxruntime[i].median_ns, e.qtune.median_ns) << " ("
                << qtune::verdict(e.qtune, e.onnxruntime[i]) << ")";
    else
      std::cout << "; qtune at " << e.onnxruntime_threads[i] << " thread(s): --threads " << e.onnxruntime_threads[i];
    std::cout << "\n";
  }
  std::cout << "  by op type:";
  for (const auto& t : e.op_types) {
    std::ostringstream share;
    share << std::fixed << std::setprecision(1) << 100 * t.share;
    std::cout << " " << t.op_type << " " << share.str() << "% (" << t.steps << ")";
  }
  std::ostringstream other;
  other << std::fixed << std::setprecision(1) << 100 * e.other_than_layers_share;
  std::cout << "\n  operations other than conv/matmul: " << other.str() << "% of the steps' time\n"
            << "  arena " << arena.arena_bytes / 1024 << " KiB (largest set of live tensors " << arena.peak_live_bytes / 1024
            << " KiB; every tensor in its own buffer " << arena.all_tensor_bytes / 1024 << " KiB; " << arena.in_place_steps
            << " steps in place, " << arena.views << " views)\n";
}
#endif

int run_network(const qtune::cli::Args& args) {
  const auto model_path = args.value("model");
  if (model_path && args.value("workloads")) throw qtune::cli::UsageError("give --workloads FILE or --model FILE, not both");
  if (args.flag("onnxruntime") && !model_path) throw qtune::cli::UsageError("--onnxruntime needs --model FILE");
  if (args.value("rounds") && !model_path) throw qtune::cli::UsageError("--rounds times the whole model: it needs --model FILE");
#ifndef QTUNE_HAVE_ONNX
  if (args.flag("onnxruntime")) throw qtune::cli::UsageError("--onnxruntime: this qtune was built without ONNX support");
#endif
  if (model_path && args.value("rounding"))
    throw qtune::cli::UsageError("--rounding does not apply to --model: ONNX requantizes in fp32, as the model's layers do");
  const std::string only = args.value_or("only", "");
  if (!only.empty() && only != "layers" && only != "whole")
    throw qtune::cli::UsageError("option --only: expected layers or whole, got '" + only + "'");
  if (only == "whole" && !model_path) throw qtune::cli::UsageError("--only whole needs --model FILE");
#ifndef QTUNE_HAVE_ONNX
  if (only == "whole") throw qtune::cli::UsageError("--only whole: this qtune was built without ONNX support");
#endif
  const std::string workloads_path = model_path ? *model_path : args.required("workloads");
  const int repetitions = static_cast<int>(args.int_or("repetitions", 5, 1, 1000));
#ifdef QTUNE_HAVE_ONNX
  // Read before anything is timed: a bad value is refused before the layers are.
  const int whole_model_rounds =
      static_cast<int>(args.int_or("rounds", qtune::evaluation::WholeModelOptions{}.rounds, 1, 1000));
#endif
  const auto threads = args.value("threads");
  const int thread_budget = static_cast<int>(args.int_or("threads", 1, 1, 1024));
  const bool json = args.flag("json");
  const qtune::CacheState cache = qtune::cli::cache_from_args(args);
  const std::string weights_name = args.value_or("weights", "trained");
  const auto weights = qtune::parse_weight_distribution(weights_name);
  if (!weights) throw qtune::cli::UsageError("option --weights: expected trained or uniform, got '" + weights_name + "'");
  if (model_path && args.value("weights"))
    throw qtune::cli::UsageError("--weights does not apply to --model: a model's layers run on its own weights");

  qtune::WorkloadFile network;
  std::vector<qtune::evaluation::LayerValues> model_values;
#ifdef QTUNE_HAVE_ONNX
  std::optional<qtune::executor::ModelExecutor> whole_model, unfused_model, untuned_model;
  const Runtime no_records;  // the untuned compilation's
#endif
  if (model_path && only == "whole") {
    // The whole model only: the executor reads the model below.
  } else if (model_path) {
#ifdef QTUNE_HAVE_ONNX
    auto layers = qtune::evaluation::model_layers(qtune::cli::load_model(*model_path, args),
                                                  std::filesystem::path(*model_path).stem().string());
    network = std::move(layers.network);
    model_values = std::move(layers.values);
#else
    network = qtune::cli::model_workload_file(*model_path, args);  // says why models cannot be read here
#endif
  } else {
    network = qtune::load_workload_file(workloads_path);
  }
  if (threads) {
    for (auto& layer : network.layers) layer.workload.threads = thread_budget;
  }
  // oneDNN's math for a like-for-like comparison: every layer requantized with its fp32 scale.
  if (auto r = args.value("rounding")) {
    const auto mode = qtune::parse_rounding_mode(*r);
    if (!mode) {
      throw qtune::cli::UsageError("option --rounding: expected tflite, upward, tonearest, arm or fp32, got '" + *r + "'");
    }
    for (auto& layer : network.layers) layer.workload.quant.rounding = *mode;
  }
  const Runtime rt = qtune::cli::load_runtime(args);
#ifdef QTUNE_HAVE_ONNX
  if (model_path && only != "layers") {
    // Loaded (and checked) before anything is timed: a model the executor cannot run fails here.
    qtune::executor::ExecutorOptions executor_options;
    executor_options.threads = thread_budget;
    executor_options.import.input_shapes = qtune::cli::input_shapes(args);
    executor_options.fusion = qtune::cli::fusion_from_args(args);
    try {
      whole_model.emplace(qtune::executor::ModelExecutor::load(*model_path, rt, executor_options));
      // The reference a fused run is compared with, timed in the same rounds.
      if (std::any_of(whole_model->steps().begin(), whole_model->steps().end(),
                                                 [](const auto& step) { return step.fused; })) {
        executor_options.fusion = qtune::executor::ExecutorOptions::Fusion::off;
        unfused_model.emplace(qtune::executor::ModelExecutor::load(*model_path, rt, executor_options));
      }
      // With tuning records, what they give the whole model: the model compiled without them.
      if (rt.tuned_workloads() + rt.tuned_blocks() > 0) {
        executor_options.fusion = qtune::cli::fusion_from_args(args);
        untuned_model.emplace(qtune::executor::ModelExecutor::load(*model_path, no_records, executor_options));
      }
    } catch (const std::exception& e) {
      // The layers can still be timed one by one; the whole model needs every node.
      if (only == "whole") throw;
      std::cerr << "qtune run: the whole model is not timed: " << e.what() << "\n";
    }
  }
  const auto time_whole_model = [&] {
    if (!whole_model) return;
    qtune::evaluation::WholeModelOptions whole_options;
    whole_options.onnxruntime = args.flag("onnxruntime");
    whole_options.rounds = whole_model_rounds;
    whole_options.input_shapes = qtune::cli::input_shapes(args);
    if (unfused_model) whole_options.unfused = &*unfused_model;
    if (untuned_model) whole_options.untuned = &*untuned_model;
    print_whole_model(qtune::evaluation::evaluate_whole_model(*model_path, *whole_model, thread_budget, whole_options),
                      *whole_model, json);
  };
  if (only == "whole") {
    time_whole_model();
    return 0;
  }
#endif
  const std::string source = args.value("db") ? *args.value("db") : args.value("log") ? *args.value("log") : "";
  qtune::evaluation::NetworkEvaluationOptions options;
  options.repetitions = repetitions;
  options.cache = cache;
  options.weights = *weights;
  options.network_name = network.network.empty() ? workloads_path : network.network;
  options.after_layer = [&](std::size_t, const LayerEvaluation& r) { print_layer(r, cache, json); };
#ifdef QTUNE_HAVE_ONNX
  // onnxruntime runs in rounds between the layers (at least 5 runs per thread count in all);
  // started before anything is printed, so that a missing onnxruntime is the only message.
  std::optional<qtune::evaluation::OnnxRuntimePeer> onnxruntime;
  if (args.flag("onnxruntime")) {
    onnxruntime.emplace(*model_path, qtune::cli::input_shapes(args), qtune::evaluation::onnxruntime_thread_counts(thread_budget));
    const int onnxruntime_runs = std::max(repetitions, 5);
    options.after_layer = [&, onnxruntime_runs](std::size_t i, const LayerEvaluation& r) {
      print_layer(r, cache, json);
      qtune::evaluation::time_onnxruntime_after_layer(*onnxruntime, i, network.layers.size(), onnxruntime_runs);
    };
  }
#endif
  // The database's measurements say which kind won each layer's tuning and anchor the verdicts.
  std::optional<qtune::records::TuningDb> tuning_db;
  if (auto db_path = args.value("db")) tuning_db.emplace(qtune::cli::open_database(*db_path, qtune::records::OpenMode::existing));
  options.database = tuning_db ? &*tuning_db : nullptr;

  if (!json) {
    print_header(network, rt, source, repetitions, cache,
                 model_path ? "the model's own"
                            : std::string(qtune::to_string(*weights)) + " (--weights), activations uniform");
  }
  const auto run = qtune::evaluation::evaluate_network(network, model_values, rt, options);

  std::string stored_run;
  if (auto db_path = args.value("db"); db_path && !args.flag("no-store")) {
    qtune::records::add_network_runs(*tuning_db, run.run_rows);
    std::cerr << "qtune run: stored " << run.run_rows.size() << " timings (run " << run.run_uid << ") in " << *db_path
              << " for qtune report\n";
    stored_run = run.run_uid;
  }
  const auto fallbacks = rt.fallbacks();
  if (json) {
    print_total_json(network, run, rt, fallbacks.size(), cache, repetitions, stored_run);
  } else {
    print_total_text(network, run);
  }
#ifdef QTUNE_HAVE_ONNX
  if (onnxruntime) {
    print_onnxruntime(qtune::evaluation::compare_with_onnxruntime(onnxruntime->finish(), onnxruntime->version(),
                                                                  run.layers, model_values),
                      thread_budget, json);
  }
#endif
  if (!json) print_machine_and_fallbacks(network, run, fallbacks);
#ifdef QTUNE_HAVE_ONNX
  time_whole_model();
#endif
  return 0;
}

}  // namespace

QTUNE_COMMAND("run", "run every layer of a network with its tuned configuration, the default and oneDNN",
              "qtune run (--workloads FILE | --model FILE [--input-shape NAME=DIMS]) [--db FILE | --log FILE] [--target current|KEY] [--threads T] "
              "[--rounding MODE] [--repetitions N] [--rounds R] [--cache warm|cold] [--weights trained|uniform] [--no-store] [--onnxruntime] "
              "[--only layers|whole] [--fusion | --no-fusion] [--json]",
              {{"workloads", true, "FILE  the network's layers (workloads/<network>.json)"},
               {"model", true, "FILE  a quantized ONNX model: its conv / matmul layers with their own weights and quantization"},
               qtune::cli::input_shape_option(),
               {"db", true, "FILE  tuning database to take the tuned configurations from"},
               {"log", true, "FILE  best-config log (qtune export) to take them from instead"},
               {"target", true, "KEY  use the entries of this target ('current', the default, = this machine)"},
               {"threads", true, "T  thread budget of every layer (default: each layer's own, from the file)"},
               {"rounding", true,
                "MODE  requantize every layer in this rounding (fp32: oneDNN's math, a like-for-like comparison; "
                "default: each layer's own, from the file); tuning of the layer's own rounding applies as its "
                "nearest tuned shape"},
               {"repetitions", true, "N  timed repetitions per layer and variant, one per placement in memory up to " +
                                        std::to_string(qtune::evaluation::kPlacements) +
                                        " placements, then shared among them; the median is reported (default 5)"},
               {"rounds", true, rounds_help()},
               qtune::cli::cache_option(),
               {"weights", true,
                "trained|uniform  the weights drawn for a workload file's layers: trained (default), per channel "
                "mostly small with the largest at 127, as quantized trained networks have them; uniform, every "
                "int8 value equally likely (the tests' draw)"},
               {"no-store", false, "with --db: do not store the timings in the database's network_runs table"},
               {"onnxruntime", false, "with --model: also time the model in onnxruntime (Node.js, onnxruntime-node from "
                                      "scripts/setup.sh) at 1 thread and the budget (2 for 1), per layer and whole, "
                                      "in rounds between qtune's layers"},
               {"only", true, "layers|whole  with --model: only the layers one by one, or only the whole model end to end "
                              "(qtune's executor; default: both, the whole model last)"},
               qtune::cli::fusion_option(),
               qtune::cli::no_fusion_option(),
               {"json", false, "one JSON object per line: each layer (type \"layer\"), then the total (type \"total\"), "
                               "then the whole model (type \"whole_model\")"}},
              run_network);
