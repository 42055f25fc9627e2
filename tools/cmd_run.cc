// `qtune run`: runs every layer of a network, in order, on synthetic data with the configuration
// the runtime picks (tuned, nearest tuned shape, or default), then with the untuned default, the
// best candidate of the other kind (a library where the choice runs on qtune's kernels, qtune's
// kernels where it runs on a library: other_kind_candidate.h) and oneDNN where the peer can express
// the layer, and prints per-layer and total times. With
// --model the layers are a quantized ONNX model's, with its own weights, bias and quantization,
// and --onnxruntime times the model in onnxruntime too, in rounds between the layers.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cache_option.h"
#include "cli.h"
#include "interleaved_timing.h"
#include "placement_timing.h"
#include "undisturbed_timing.h"
#include "model_cli.h"
#include "other_kind_candidate.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/number_text.h"
#include "qtune/records/best_selection.h"
#include "qtune/records/log_format.h"
#include "qtune/records/network_runs.h"
#include "qtune/records/tuning_db.h"
#include "qtune/reports/candidate_kinds.h"
#include "qtune/runtime/runtime.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/disturbance.h"
#include "records_cli.h"

#ifdef QTUNE_HAVE_ONNX
#include "onnxruntime_peer.h"
#include "qtune/onnx_import/model_workloads.h"
#endif

#ifdef QTUNE_HAVE_ONEDNN
#include "peers/onednn_conv.h"
#include "peers/onednn_matmul.h"
#endif

namespace {

using qtune::runtime::ConfigSource;
using qtune::runtime::Runtime;

template <typename T>
std::vector<T> random_values(std::size_t count, std::mt19937_64& rng) {
  std::vector<T> out(count);
  for (auto& v : out) v = static_cast<T>(rng());
  return out;
}

struct LayerResult {
  std::string name, description, workload_key;
  int count = 1;
  ConfigSource source = ConfigSource::heuristic;
  std::string computed_by = "qtune";  // what the runtime's choice runs on: qtune's kernels or a library
  std::optional<qtune::reports::KindMargin> won_by;  // qtune's kernels vs a library in the database's measurements
  std::string config_key, default_config_key, reason;
  qtune::cli::CaseTiming tuned, untuned;
  std::optional<qtune::cli::CaseTiming> onednn;
  std::string onednn_note;  // implementation, or why the peer was not run
  // The best candidate of the other kind, timed in the same run (other_kind_candidate.h), and why
  // it did not run where it has no timing.
  std::optional<qtune::cli::OtherKindCandidate> other_kind;
  std::optional<qtune::cli::CaseTiming> other;
  std::string other_note;
  bool onednn_dropped = false;  // oneDNN ran the layer without what it cannot express (onednn_note)
  std::optional<double> waiting_share;  // disturbance of the kept timing (undisturbed_timing.h)
  int retimed = 0;
  bool disturbed = false;
  int close_call_repetitions = 0;  // > 0: timed again with these repetitions (a close call)

  // The tuning database's comparison of the two: default time over tuned time (recorded_ratio).
  std::optional<double> recorded_ratio;

  // Tuned against the untuned default: one configuration is "same"; otherwise this run's verdict,
  // anchored on the database's where both are on record (timing_verdict.h: anchored_verdict).
  std::string verdict() const {
    return config_key == default_config_key ? "same" : qtune::anchored_verdict(tuned, untuned, recorded_ratio);
  }
};

// A layer's own weights and quantization (qtune run --model) instead of values drawn for its workload.
struct LayerValues {
  qtune::GemmProblem gemm;
  qtune::Conv2dProblem conv;
  std::vector<std::int8_t> weights;  // K x N (gemm) or HWIO (conv)
  std::vector<std::int32_t> bias;    // empty when the layer has none
  std::vector<std::string> onnx_nodes;  // the ONNX nodes it stands for (for onnxruntime's per-node times)
};

std::size_t element_bytes(qtune::DType t) { return t == qtune::DType::s32 ? 4 : 1; }

constexpr int kOpenMp = 1;  // oneDNN's thread runtime (TimedCase::runtime; qtune's pool is 0)

#ifdef QTUNE_HAVE_ONEDNN
using GemmPeer = qtune::peers::OnednnMatmul;
using ConvPeer = qtune::peers::OnednnConv;
#else
struct NoPeer {};
using GemmPeer = NoPeer;
using ConvPeer = NoPeer;
#endif

// A layer at one placement in memory (placement_timing.h): its input and outputs, then the tuned
// and the default implementation, each prepared behind a spacer, the other kind's candidate and
// the peer (made last, where they run). The GEMM's peer holds its own operands (out_peer stays
// empty).
template <class Tuned, class Plain, class Peer>
struct LayerPlacement {
  qtune::PlacedBytes input, out_tuned, out_default, out_other, out_peer;
  std::vector<std::uint8_t> spacer_tuned;
  Tuned tuned;
  std::vector<std::uint8_t> spacer_default;
  Plain plain;
  std::vector<std::uint8_t> spacer_other{};
  std::optional<Tuned> other{};
  std::unique_ptr<Peer> peer{};
};

// A new placement: the buffers and both implementations allocated in the order of LayerPlacement
// (designated initializers run in order), at random offsets.
template <class Placement, class MakeTuned, class MakePlain>
std::shared_ptr<Placement> make_placement(std::mt19937_64& rng, const std::vector<std::uint8_t>& input,
                                          std::size_t out_size, std::size_t other_out_size, std::size_t peer_out_size,
                                          MakeTuned&& make_tuned, MakePlain&& make_plain) {
  return std::make_shared<Placement>(Placement{.input = qtune::PlacedBytes(input, rng),
                                               .out_tuned = qtune::PlacedBytes(out_size, rng),
                                               .out_default = qtune::PlacedBytes(out_size, rng),
                                               .out_other = qtune::PlacedBytes(other_out_size, rng),
                                               .out_peer = qtune::PlacedBytes(peer_out_size, rng),
                                               .spacer_tuned = qtune::placement_spacer(rng),
                                               .tuned = make_tuned(),
                                               .spacer_default = qtune::placement_spacer(rng),
                                               .plain = make_plain(),
                                               .spacer_other = other_out_size > 0 ? qtune::placement_spacer(rng)
                                                                                  : std::vector<std::uint8_t>{}});
}

// One layer: the runtime's choice, the untuned default, the other kind's candidate and oneDNN on
// the same data, prepared first and then timed interleaved, at kPlacements placements in memory
// (placement_timing.h). won_by: the tuning's best of each kind for the layer, where it measured both.
LayerResult run_layer(const Runtime& rt, const qtune::Layer& layer, int repetitions, qtune::CacheState cache,
                      const qtune::DisturbancePolicy& policy, const LayerValues* values,
                      const std::optional<qtune::reports::KindMargin>& won_by) {
  const qtune::Workload& w = layer.workload;
  LayerResult r;
  r.name = layer.name;
  r.description = w.describe();
  r.workload_key = w.key();
  r.count = layer.count;
  std::mt19937_64 rng(std::hash<std::string>{}(r.workload_key));
  const qtune::Config untuned = qtune::default_config(w, qtune::cpu_features());
  r.default_config_key = untuned.key();
  // Makes one placement (everything the cases touch, allocated and prepared anew): its cases are
  // tuned, default, then the other kind's candidate and oneDNN where they run.
  std::function<std::vector<qtune::cli::TimedCase>()> place;
  int other_case = -1, peer_case = -1;  // their places among the cases, where they run
  const auto time_once = [&](int reps, int max_placements) {
    const auto kept = qtune::cli::time_undisturbed(
        [&] {
          return qtune::cli::time_at_placements(place, reps, static_cast<unsigned>(rng()), w.threads, cache,
                                                max_placements);
        },
        policy.max_waiting_share, policy.retries);
    const auto& timings = kept.timings;
    r.waiting_share = kept.waiting_share;
    r.retimed = kept.retimed;
    r.disturbed = kept.disturbed;
    r.tuned = timings[0];
    r.untuned = timings[1];
    if (other_case >= 0) r.other = timings[static_cast<std::size_t>(other_case)];
    if (peer_case >= 0) r.onednn = timings[static_cast<std::size_t>(peer_case)];
  };
  // A tuned configuration within a close call of its default is timed again on a larger sample
  // (timing_verdict.h), with as many more placements in memory (what moves a layer's time between
  // runs), whose figures and verdict replace the first: that verdict is the one a single run is the
  // most likely to get differently from the next.
  const auto time_cases = [&] {
    time_once(repetitions, qtune::cli::kPlacements);
    if (r.config_key != r.default_config_key && qtune::close_call(r.tuned, r.untuned)) {
      r.close_call_repetitions = repetitions * qtune::kCloseCallRepetitions;
      time_once(r.close_call_repetitions, qtune::cli::kPlacements * qtune::kCloseCallRepetitions);
    }
  };
  const auto select = [&](const auto& tuned) {
    r.source = tuned.selection().source;
    r.config_key = tuned.selection().config_key;
    r.reason = tuned.selection().reason;
    if (!tuned.library().empty()) r.computed_by = tuned.library();
  };
  // Every placement's outputs, compared after the timing.
  const auto check_agree = [&](const auto& placements) {
    for (const auto& at : placements) {
      if (at->out_tuned != at->out_default)
        throw std::runtime_error("layer " + r.name + ": the tuned and the default configuration disagree");
      if (at->other && at->out_tuned != at->out_other)
        throw std::runtime_error("layer " + r.name + ": the tuned configuration and the other kind's (" +
                                 r.other_kind->config_key + ") disagree");
    }
  };
  // The other kind's candidate, prepared by a runtime that holds only it (as the tuned choice is
  // prepared: a library layer falls back where it cannot run, and is then not timed).
  std::optional<Runtime> other_rt;
  const auto choose_other = [&](const qtune::runtime::Selection& tuned) {
    r.other_kind = qtune::cli::other_kind_candidate(w, qtune::reports::candidate_kind(tuned.config_key), won_by,
                                                    qtune::cpu_features());
    if (!r.other_kind) {
      r.other_note = "no candidate of another kind is offered for this layer";
      return;
    }
    qtune::runtime::RuntimeOptions options;
    options.target_key = qtune::current_target().key();
    options.warning_sink = [&r](const std::string& message) { r.other_note = message; };
    other_rt.emplace(Runtime::from_entries({{r.workload_key, options.target_key, r.other_kind->config_key}}, options));
  };
  // Adds the other kind's case where its preparation kept its kind (a library the runtime cannot
  // run falls back to qtune's kernels, which is not the other kind).
  const auto add_other = [&](auto& at, auto&& prepare, auto&& run, std::vector<qtune::cli::TimedCase>& cases) {
    if (!other_rt) return;
    auto prepared = prepare(*other_rt);
    const std::string kind = prepared.library().empty() ? "qtune" : prepared.library();
    if (kind != r.other_kind->kind) {
      if (r.other_note.empty()) r.other_note = "not run: " + r.other_kind->config_key + " prepared as " + kind;
      return;
    }
    at->other.emplace(std::move(prepared));
    other_case = static_cast<int>(cases.size());
    cases.push_back({[at, run] { run(*at->other, *at); }, kind == "qtune" ? 0 : kOpenMp});
  };

  if (w.op == qtune::OpKind::gemm) {
    const qtune::GemmProblem p = values ? values->gemm : w.gemm_problem();
    const auto a_values = random_values<std::uint8_t>(static_cast<std::size_t>(p.m * p.k), rng);
    const auto b = values ? values->weights : random_values<std::int8_t>(static_cast<std::size_t>(p.k * p.n), rng);
    const auto bias = random_values<std::int16_t>(static_cast<std::size_t>(p.n), rng);
    const std::vector<std::int32_t> bias32 = values ? values->bias : std::vector<std::int32_t>(bias.begin(), bias.end());
    const std::int32_t* bias_data = p.has_bias ? bias32.data() : nullptr;
    const std::size_t out_size = static_cast<std::size_t>(p.m * p.n) * element_bytes(p.out_type);
    const auto n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
#ifndef QTUNE_HAVE_ONEDNN
    r.onednn_note = "not run: oneDNN is not part of this build";
#endif
    using Placement = LayerPlacement<qtune::runtime::PreparedGemm, qtune::GemmOp, GemmPeer>;
    std::vector<std::shared_ptr<Placement>> placements;
    choose_other(rt.select_gemm(p, w.threads));
    place = [&] {
      auto at = make_placement<Placement>(
          rng, a_values, out_size, other_rt ? out_size : 0, 0,
          [&] { return rt.prepare_gemm(p, b.data(), n, bias_data, w.threads); },
          [&] { return qtune::GemmOp::prepare(p, qtune::to_gemm_config(untuned), b.data(), n, bias_data); });
      placements.push_back(at);
      select(at->tuned);
      // oneDNN (the one library candidate) runs on OpenMP's threads: timed with its peer's runtime.
      std::vector<qtune::cli::TimedCase> cases;
      cases.push_back({[at, k, n] { at->tuned.run(at->input.data(), k, at->out_tuned.data(), n); },
                       at->tuned.library().empty() ? 0 : kOpenMp});
      cases.push_back({[at, k, n] { at->plain.run(at->input.data(), k, at->out_default.data(), n); }});
      add_other(
          at, [&](const Runtime& other) { return other.prepare_gemm(p, b.data(), n, bias_data, w.threads); },
          [k, n](const qtune::runtime::PreparedGemm& op, Placement& on) { op.run(on.input.data(), k, on.out_other.data(), n); },
          cases);
#ifdef QTUNE_HAVE_ONEDNN
      at->peer = std::make_unique<GemmPeer>(p.m, p.n, p.k, p.out_type, w.threads, p.a_type);
      r.onednn_note = at->peer->implementation();
      peer_case = static_cast<int>(cases.size());
      cases.push_back({[at] { at->peer->run(); }, kOpenMp});
#endif
      return cases;
    };
    time_cases();
    check_agree(placements);
    return r;
  }

  const qtune::Conv2dProblem p = values ? values->conv : w.conv2d_problem();
  const auto input_values = random_values<std::uint8_t>(static_cast<std::size_t>(p.batch * p.in_h * p.in_w * p.in_c), rng);
  const auto weights = values ? values->weights
                              : random_values<std::int8_t>(
                                    static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c), rng);
  const auto bias = random_values<std::int16_t>(static_cast<std::size_t>(p.out_c), rng);
  const std::vector<std::int32_t> bias32 = values ? values->bias : std::vector<std::int32_t>(bias.begin(), bias.end());
  const std::int32_t* bias_data = p.has_bias ? bias32.data() : nullptr;
  const std::size_t out_size =
      static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * element_bytes(p.out_type);
  std::optional<qtune::Conv2dProblem> peer_problem;  // what oneDNN runs, where it can
#ifdef QTUNE_HAVE_ONEDNN
  std::string dropped;
  const qtune::Conv2dProblem runnable = qtune::peers::onednn_conv_runnable(p, dropped);
  if (const std::string why = qtune::peers::onednn_conv_unsupported(runnable); !why.empty()) {
    r.onednn_note = "not run: " + why;
  } else {
    peer_problem = runnable;
    r.onednn_dropped = !dropped.empty();
  }
#else
  r.onednn_note = "not run: oneDNN is not part of this build";
#endif
  using Placement = LayerPlacement<qtune::runtime::PreparedConv2d, qtune::Conv2dOp, ConvPeer>;
  std::vector<std::shared_ptr<Placement>> placements;
  choose_other(rt.select_conv2d(p, w.threads));
  place = [&] {
    auto at = make_placement<Placement>(
        rng, input_values, out_size, other_rt ? out_size : 0, peer_problem ? out_size : 0,
        [&] { return rt.prepare_conv2d(p, weights.data(), bias_data, w.threads); },
        [&] { return qtune::Conv2dOp::prepare(p, qtune::to_conv2d_config(untuned), weights.data(), bias_data); });
    placements.push_back(at);
    select(at->tuned);
    // oneDNN (the one library candidate) runs on OpenMP's threads: timed with its peer's runtime.
    std::vector<qtune::cli::TimedCase> cases;
    cases.push_back({[at] { at->tuned.run(at->input.data(), at->out_tuned.data()); },
                     at->tuned.library().empty() ? 0 : kOpenMp});
    cases.push_back({[at] { at->plain.run(at->input.data(), at->out_default.data()); }});
    add_other(
        at, [&](const Runtime& other) { return other.prepare_conv2d(p, weights.data(), bias_data, w.threads); },
        [](const qtune::runtime::PreparedConv2d& op, Placement& on) { op.run(on.input.data(), on.out_other.data()); },
        cases);
#ifdef QTUNE_HAVE_ONEDNN
    if (peer_problem) {
      at->peer = std::make_unique<ConvPeer>(*peer_problem, weights.data(), bias_data, w.threads);
      r.onednn_note = at->peer->implementation() + (dropped.empty() ? "" : " (" + dropped + ")");
      peer_case = static_cast<int>(cases.size());
      cases.push_back({[at] { at->peer->run(at->input.data(), at->out_peer.data()); }, kOpenMp});
    }
#endif
    return cases;
  };
  time_cases();
  check_agree(placements);
  return r;
}

std::string ms(double ns) { return qtune::fixed(ns / 1e6, 3); }

// Half the interquartile range as a share of the median: "3%".
std::string spread(const qtune::cli::CaseTiming& t) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << 50 * (t.high_ns - t.low_ns) / t.median_ns << "%";
  return out.str();
}

std::string ratio(double numerator, double denominator) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << numerator / denominator << "x";
  return out.str();
}

// The layer's timings as network_runs rows (for `qtune report`): tuned, default and, when it ran,
// oneDNN, each with how it was measured (cache state, quartiles, the layer's disturbance). They
// belong to this machine, whichever target's tuning results were used.
void append_network_runs(std::vector<qtune::records::NetworkRunRecord>& rows, const LayerResult& r,
                         const qtune::Workload& w, const std::string& run_uid, const std::string& network,
                         qtune::CacheState cache) {
  auto row = [&](const char* impl, const std::string& config, const qtune::cli::CaseTiming& timing) {
    qtune::records::NetworkRunRecord out;
    out.run_uid = run_uid;
    out.target_key = qtune::current_target().key();
    out.network = network;
    out.workload_key = r.workload_key;
    out.impl = impl;
    out.config_key = config;
    out.median_ns = timing.median_ns;
    out.gops = w.gops() / (timing.median_ns * 1e-9);
    out.cache = std::string(qtune::to_string(cache));
    out.low_ns = timing.low_ns;
    out.high_ns = timing.high_ns;
    out.repetitions = timing.repetitions;
    out.waiting_share = r.waiting_share;
    out.retimed = r.retimed;
    out.disturbed = r.disturbed;
    return out;
  };
  rows.push_back(row(qtune::records::kImplTuned, r.config_key, r.tuned));
  rows.push_back(row(qtune::records::kImplDefault, r.default_config_key, r.untuned));
  if (r.onednn) rows.push_back(row(qtune::records::kImplOneDnn, "", *r.onednn));
}

Runtime load_runtime(const qtune::cli::Args& args) {
  qtune::runtime::RuntimeOptions options;
  if (auto target = qtune::cli::resolve_target_option(args)) options.target_key = *target;
  const auto db = args.value("db"), log = args.value("log");
  if (db && log) throw qtune::cli::UsageError("give --db or --log, not both");
  if (db) return Runtime::from_database(*db, std::move(options));
  if (log) return Runtime::from_log(*log, std::move(options));
  return Runtime(std::move(options));
}

// The model's distinct layers (first occurrence of each workload) with their own values.
std::vector<LayerValues> model_layer_values(const std::string& path, const qtune::cli::Args& args,
                                            qtune::WorkloadFile& network) {
#ifdef QTUNE_HAVE_ONNX
  const auto model = qtune::cli::load_model(path, args);
  network = qtune::onnx_import::model_workloads(model, std::filesystem::path(path).stem().string());
  std::vector<LayerValues> values;
  for (const qtune::Layer& layer : network.layers) {
    for (const auto& m : model.layers) {
      if (m.name != layer.name) continue;
      // A batched matrix product runs its first matrix; the table counts it once per batch.
      values.push_back({m.gemm, m.conv, {m.weights.begin(), m.weights.begin() + (m.op == qtune::OpKind::gemm ?
                                                                                m.gemm.k * m.gemm.n : static_cast<std::int64_t>(m.weights.size()))},
                        m.bias, m.nodes});
      break;
    }
  }
  return values;
#else
  network = qtune::cli::model_workload_file(path, args);  // says why models cannot be read here
  return {};
#endif
}

#ifdef QTUNE_HAVE_ONNX
// onnxruntime's rounds between qtune's layers: its `runs` runs per thread count spread evenly over
// the gaps after each of `layers` layers (qtune, onnxruntime, qtune, onnxruntime, ...).
int onnxruntime_runs_after_layer(std::size_t layer, std::size_t layers, int runs) {
  const auto share = [&](std::size_t i) { return static_cast<int>(i * static_cast<std::size_t>(runs) / layers); };
  return share(layer + 1) - share(layer);
}

// The model in onnxruntime at 1 thread and the run's budget (2 for a budget of 1), timed in rounds
// between qtune's layers: per layer (its profiler's kernel times of the layer's nodes) against the
// tuned time, and the whole model.
void compare_with_onnxruntime(const std::vector<qtune::cli::OnnxRuntimeSamples>& samples, const std::string& version,
                              const std::vector<LayerResult>& results, const std::vector<LayerValues>& values,
                              int threads, bool json) {
  std::vector<qtune::cli::LayerNodes> nodes;
  for (std::size_t i = 0; i < results.size(); ++i) nodes.push_back({results[i].name, values[i].onnx_nodes});
  std::vector<qtune::cli::OnnxRuntimeRun> runs;
  for (const auto& s : samples) runs.push_back(qtune::cli::layer_timings(s, nodes));
  const int repetitions = results.empty() ? 0 : results.front().tuned.repetitions;
  qtune::cli::CaseTiming tuned_total{0, 0, 0, repetitions};
  std::vector<qtune::cli::CaseTiming> ort_totals(runs.size());
  const auto accumulate = [](qtune::cli::CaseTiming& total, const qtune::cli::CaseTiming& t, int count) {
    total.median_ns += count * t.median_ns;
    total.low_ns += count * t.low_ns;
    total.high_ns += count * t.high_ns;
    total.repetitions = t.repetitions;
  };
  nlohmann::json layers = nlohmann::json::object();
  if (!json) {
    std::cout << "\nonnxruntime " << version << " (Node.js) at";
    for (const auto& run : runs) std::cout << " " << run.threads << (&run == &runs.front() ? " and" : "");
    std::cout << " thread(s), " << runs.front().model.repetitions << " runs each, in rounds between qtune's layers; a "
              << "layer's time is the median of the sum of onnxruntime's profiler kernel times of its nodes; qtune "
              << "ran at " << threads << " thread(s)\n"
              << std::left << std::setw(34) << "layer" << std::right << std::setw(4) << "x" << std::setw(10) << "tuned";
    for (const auto& run : runs) std::cout << std::setw(10) << "ort " + std::to_string(run.threads) + "t";
    for (const auto& run : runs) std::cout << std::setw(18) << "ort" + std::to_string(run.threads) + "/tun";
    std::cout << "\n";
  }
  for (const LayerResult& r : results) {
    if (std::none_of(runs.begin(), runs.end(), [&](const auto& run) { return run.layers.count(r.name) > 0; })) continue;
    accumulate(tuned_total, r.tuned, r.count);
    nlohmann::json line = {{"tuned_ns", r.tuned.median_ns}};
    std::ostringstream times, ratios;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto it = runs[i].layers.find(r.name);
      const std::string key = "onnxruntime_" + std::to_string(runs[i].threads) + "t";
      if (it == runs[i].layers.end()) {
        times << std::setw(10) << "-";
        ratios << std::setw(18) << "-";
        continue;
      }
      accumulate(ort_totals[i], it->second, r.count);
      line[key + "_ns"] = it->second.median_ns;
      line[key + "_quartiles_ns"] = {it->second.low_ns, it->second.high_ns};
      line[key + "_verdict"] = qtune::cli::verdict(r.tuned, it->second);
      times << std::setw(10) << ms(it->second.median_ns);
      ratios << std::setw(18) << ratio(it->second.median_ns, r.tuned.median_ns) + " " + qtune::cli::verdict(r.tuned, it->second);
    }
    layers[r.name] = line;
    if (!json) {
      std::cout << std::left << std::setw(34) << r.name.substr(0, 33) << std::right << std::setw(4) << r.count
                << std::setw(10) << ms(r.tuned.median_ns) << times.str() << ratios.str() << "\n";
    }
  }
  if (json) {
    nlohmann::json line = {{"type", "onnxruntime"},   {"version", version}, {"threads", threads},
                           {"layers", layers},        {"layers_tuned_ns", tuned_total.median_ns}};
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string key = "onnxruntime_" + std::to_string(runs[i].threads) + "t";
      line[key] = {{"layers_ns", ort_totals[i].median_ns},
                   {"verdict", qtune::cli::verdict(tuned_total, ort_totals[i])},
                   {"model_ns", runs[i].model.median_ns},
                   {"other_nodes_ns", runs[i].other.median_ns}};
    }
    std::cout << line.dump() << "\n";
    return;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::cout << "layers at " << runs[i].threads << " onnxruntime thread(s): tuned " << ms(tuned_total.median_ns)
              << " ms, onnxruntime " << ms(ort_totals[i].median_ns) << " ms (onnxruntime/tuned "
              << ratio(ort_totals[i].median_ns, tuned_total.median_ns) << ", "
              << qtune::cli::verdict(tuned_total, ort_totals[i]) << "); the whole model in onnxruntime "
              << ms(runs[i].model.median_ns) << " ms (session.run from Node.js), of which " << ms(runs[i].other.median_ns)
              << " ms in nodes qtune does not compute (pooling, layout transposes, ...)\n";
  }
}
#endif

int run_network(const qtune::cli::Args& args) {
  const auto model_path = args.value("model");
  if (model_path && args.value("workloads")) throw qtune::cli::UsageError("give --workloads FILE or --model FILE, not both");
  if (args.flag("onnxruntime") && !model_path) throw qtune::cli::UsageError("--onnxruntime needs --model FILE");
#ifndef QTUNE_HAVE_ONNX
  if (args.flag("onnxruntime")) throw qtune::cli::UsageError("--onnxruntime: this qtune was built without ONNX support");
#endif
  if (model_path && args.value("rounding"))
    throw qtune::cli::UsageError("--rounding does not apply to --model: ONNX requantizes in fp32, as the model's layers do");
  const std::string workloads_path = model_path ? *model_path : args.required("workloads");
  const int repetitions = static_cast<int>(args.int_or("repetitions", 5, 1, 1000));
  const auto threads = args.value("threads");
  const int thread_budget = static_cast<int>(args.int_or("threads", 1, 1, 1024));
  const bool json = args.flag("json");
  const qtune::CacheState cache = qtune::cli::cache_from_args(args);

  qtune::WorkloadFile network;
  std::vector<LayerValues> model_values;
  if (model_path) {
    model_values = model_layer_values(*model_path, args, network);
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
  Runtime rt = [&] {
    try {
      return load_runtime(args);
    } catch (const qtune::records::LogError& e) {
      std::ostringstream problems;
      for (const auto& p : e.problems()) problems << "\n  " << p.to_string();
      throw std::runtime_error("the log has " + std::to_string(e.problems().size()) + " invalid line(s):" +
                               problems.str());
    }
  }();
  const std::string source = args.value("db") ? *args.value("db") : args.value("log") ? *args.value("log") : "";
#ifdef QTUNE_HAVE_ONNX
  // onnxruntime runs in rounds between the layers (at least 5 runs per thread count in all);
  // started before anything is printed, so that a missing onnxruntime is the only message.
  std::optional<qtune::cli::OnnxRuntimePeer> onnxruntime;
  const int onnxruntime_runs = std::max(repetitions, 5);
  if (args.flag("onnxruntime")) {
    onnxruntime.emplace(*model_path, qtune::cli::input_shapes(args), qtune::cli::onnxruntime_thread_counts(thread_budget));
  }
#endif
  // Which kind of candidate (qtune's kernels or a library) won each layer's tuning, by how much over
  // the best of the other kind: from the database's measurements of the layer on the runtime's target.
  std::optional<qtune::records::TuningDb> tuning_db;
  if (auto db_path = args.value("db")) tuning_db.emplace(qtune::records::TuningDb::open(*db_path, qtune::records::OpenMode::existing));
  const auto won_by = [&](const std::string& workload_key) -> std::optional<qtune::reports::KindMargin> {
    if (!tuning_db) return std::nullopt;
    qtune::records::MeasurementFilter filter;
    filter.workload_key = workload_key;
    filter.target_key = rt.target_key();
    return qtune::reports::kind_margin(tuning_db->measurements(filter));
  };

  // The database's own comparison of a layer's chosen configuration with its default: each one's
  // time as the database defines it for this target (best_selection.h: over its measurements; the
  // tuner's confirmation times the leaders and the default interleaved), as default time over
  // chosen time; none unless both are on record.
  const auto recorded_ratio = [&](const LayerResult& r) -> std::optional<double> {
    if (!tuning_db || r.config_key == r.default_config_key) return std::nullopt;
    const auto median_of = [&](const std::string& config_key) -> std::optional<double> {
      qtune::records::MeasurementFilter filter;
      filter.workload_key = r.workload_key;
      filter.target_key = rt.target_key();
      filter.config_key = config_key;
      const auto time = qtune::records::select_best(tuning_db->measurements(filter));
      if (time.empty() || !time.front().stats || !(time.front().stats->median_ns > 0)) return std::nullopt;
      return time.front().stats->median_ns;
    };
    const std::optional<double> chosen = median_of(r.config_key), plain = median_of(r.default_config_key);
    if (!chosen || !plain) return std::nullopt;
    return *plain / *chosen;
  };

  if (!json) {
    std::cout << "network " << network.network << ": " << network.layers.size() << " distinct layers\n"
              << "tuning data: " << (source.empty() ? "none (every layer uses the heuristic default)" : source)
              << ", " << rt.tuned_workloads() << " tuned workloads for target\n  " << rt.target_key() << "\n";
    if (!rt.target_differences().empty())
      std::cout << "  (the nearest compatible target of this process: " << rt.target_differences() << ")\n";
    if (rt.other_target_workloads() > 0)
      std::cout << "  (" << rt.other_target_workloads()
                << " tuned workloads of other targets ignored; --target KEY uses them)\n";
    const auto share = qtune::cli::share_among_placements(repetitions);
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
              << "bit-exact like the tuned, timed with them\n\n"
              << std::left << std::setw(34) << "layer" << std::setw(30) << "shape" << std::right << std::setw(4)
              << "x" << std::setw(10) << "source" << std::setw(8) << "by" << std::setw(10) << "tuned" << std::setw(7)
              << "+-" << std::setw(10) << "default" << std::setw(10) << "oneDNN" << std::setw(14) << "def/tun" << std::setw(14) << "dnn/tun"
              << std::setw(14) << "won by" << std::setw(24) << "other kind/tun" << "\n";
  }

  // Totals weight each layer by its count; their quartiles add up the layers' (a conservative spread).
  qtune::cli::CaseTiming total_tuned{0, 0, 0, repetitions}, total_default{0, 0, 0, repetitions},
      total_onednn{0, 0, 0, repetitions}, tuned_where_onednn{0, 0, 0, repetitions};
  // The best of the two kinds per layer (the faster of tuned and the other kind's candidate in this
  // run, the tuned time where the other did not run), and the layers where the other kind was faster.
  double total_best_of_kinds_ns = 0;
  std::size_t other_kind_layers = 0;
  std::vector<std::string> behind_other_kind;
  const auto accumulate = [](qtune::cli::CaseTiming& total, const qtune::cli::CaseTiming& t, int count) {
    total.median_ns += count * t.median_ns;
    total.low_ns += count * t.low_ns;
    total.high_ns += count * t.high_ns;
  };
  std::size_t onednn_layers = 0, onednn_dropped_layers = 0;
  const std::string run_uid = qtune::records::new_run_uid();
  std::vector<qtune::records::NetworkRunRecord> run_rows;  // stored with --db, for `qtune report`
  std::vector<LayerResult> results;
  std::size_t retimed_layers = 0;            // timed again because other processes held the CPU
  std::vector<std::string> disturbed_layers;  // still so after the retries
  int busy_streak = 0;                        // layers in a row kept disturbed
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const qtune::Layer& layer = network.layers[i];
    // The tuner's policy: a layer is timed again as a measurement is measured again.
    const auto tuning_kinds = won_by(layer.workload.key());
    LayerResult r = run_layer(rt, layer, repetitions, cache, qtune::DisturbancePolicy{}.after_streak(busy_streak),
                              model_values.empty() ? nullptr : &model_values[i], tuning_kinds);
    r.won_by = tuning_kinds;
    r.recorded_ratio = recorded_ratio(r);
    busy_streak = r.disturbed ? busy_streak + 1 : 0;
    results.push_back(r);
    if (r.retimed > 0 || r.disturbed) ++retimed_layers;
    if (r.disturbed) disturbed_layers.push_back(r.name);
#ifdef QTUNE_HAVE_ONNX
    if (const int runs = onnxruntime_runs_after_layer(i, network.layers.size(), onnxruntime_runs); onnxruntime && runs > 0) {
      // Each side's idle workers spin for a while after a run (qtune's pool, OpenMP's after oneDNN,
      // onnxruntime's), on the cores the other side needs next: a pause before and after its turn.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      onnxruntime->time_round(runs, 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
#endif
    append_network_runs(run_rows, r, layer.workload, run_uid, network.network.empty() ? workloads_path : network.network,
                        cache);
    accumulate(total_tuned, r.tuned, r.count);
    accumulate(total_default, r.untuned, r.count);
    if (r.onednn) {
      accumulate(total_onednn, *r.onednn, r.count);
      accumulate(tuned_where_onednn, r.tuned, r.count);
      ++onednn_layers;
      if (r.onednn_dropped) ++onednn_dropped_layers;
    }
    const double tuned_ns = r.tuned.median_ns, default_ns = r.untuned.median_ns;
    const double onednn_ns = r.onednn ? r.onednn->median_ns : 0;  // only read where r.onednn
    const std::string vs_onednn = r.onednn ? qtune::cli::verdict(r.tuned, *r.onednn) : "-";
    const double other_ns = r.other ? r.other->median_ns : tuned_ns;
    const std::string vs_other = r.other ? qtune::cli::verdict(r.tuned, *r.other) : "-";
    total_best_of_kinds_ns += r.count * std::min(tuned_ns, other_ns);
    if (r.other) ++other_kind_layers;
    if (vs_other == "slower") behind_other_kind.push_back(r.name + " (" + ratio(other_ns, tuned_ns) + ")");
    if (json) {
      nlohmann::json line = {{"type", "layer"},
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
                             {"onednn_ns", r.onednn ? nlohmann::json(onednn_ns) : nlohmann::json()},
                             {"onednn_quartiles_ns",
                              r.onednn ? nlohmann::json({r.onednn->low_ns, r.onednn->high_ns}) : nlohmann::json()},
                             {"onednn", r.onednn_note},
                             {"speedup_vs_onednn", r.onednn ? nlohmann::json(onednn_ns / tuned_ns) : nlohmann::json()},
                             {"verdict_vs_onednn", vs_onednn},
                             {"other_kind", r.other_kind ? nlohmann::json(r.other_kind->kind) : nlohmann::json()},
                             {"other_kind_config", r.other_kind ? nlohmann::json(r.other_kind->config_key) : nlohmann::json()},
                             {"other_kind_origin", r.other_kind ? nlohmann::json(r.other_kind->origin) : nlohmann::json()},
                             {"other_kind_note", r.other_note},
                             {"other_kind_ns", r.other ? nlohmann::json(other_ns) : nlohmann::json()},
                             {"other_kind_quartiles_ns",
                              r.other ? nlohmann::json({r.other->low_ns, r.other->high_ns}) : nlohmann::json()},
                             {"speedup_vs_other_kind", r.other ? nlohmann::json(other_ns / tuned_ns) : nlohmann::json()},
                             {"verdict_vs_other_kind", vs_other},
                             {"tuned_share_of_best_of_kinds", std::min(tuned_ns, other_ns) / tuned_ns},
                             {"cache", std::string(qtune::to_string(cache))},
                             {"waiting_share", r.waiting_share ? nlohmann::json(*r.waiting_share) : nlohmann::json()},
                             {"retimed", r.retimed},
                             {"disturbed", r.disturbed},
                             {"close_call_repetitions", r.close_call_repetitions},
                             {"recorded_speedup_vs_default",
                              r.recorded_ratio ? nlohmann::json(*r.recorded_ratio) : nlohmann::json()},

{"won_by", r.won_by ? nlohmann::json({{"winner", r.won_by->winner.kind},
                                                                   {"winner_config", r.won_by->winner.config_key},
                                                                   {"runner_up", r.won_by->runner_up.kind},
                                                                   {"runner_up_config", r.won_by->runner_up.config_key},
                                                                   {"margin", r.won_by->margin()}})
                                                 : nlohmann::json()}};
      std::cout << line.dump() << "\n";
    } else {
      std::cout << std::left << std::setw(34) << r.name.substr(0, 33) << std::setw(30) << r.description.substr(0, 29)
                << std::right << std::setw(4) << r.count << std::setw(10) << to_string(r.source) << std::setw(8)
                << r.computed_by << std::setw(10)
                << ms(tuned_ns) << std::setw(7) << spread(r.tuned) << std::setw(10) << ms(default_ns) << std::setw(10)
                << (r.onednn ? ms(onednn_ns) : "-") << std::setw(14) << ratio(default_ns, tuned_ns) + " " + r.verdict()
                << std::setw(14) << (r.onednn ? ratio(onednn_ns, tuned_ns) + " " + vs_onednn : "-") << std::setw(14)
                << qtune::reports::format_kind_margin(r.won_by) << std::setw(24)
                << (r.other ? r.other_kind->kind + " " + ratio(other_ns, tuned_ns) + " " + vs_other : "-") << "\n";
    }
    std::cout.flush();
  }

  std::string stored_run;
  if (auto db_path = args.value("db"); db_path && !args.flag("no-store")) {
    qtune::records::add_network_runs(*tuning_db, run_rows);
    std::cerr << "qtune run: stored " << run_rows.size() << " timings (run " << run_uid << ") in " << *db_path
              << " for qtune report\n";
    stored_run = run_uid;
  }

  const auto fallbacks = rt.fallbacks();
  if (json) {
    nlohmann::json total = {{"type", "total"},
                            {"network", network.network},
                            {"layers", network.layers.size()},
                            {"tuned_ns", total_tuned.median_ns},
                            {"default_ns", total_default.median_ns},
                            {"speedup_vs_default", total_default.median_ns / total_tuned.median_ns},
                            {"verdict_vs_default", qtune::cli::verdict(total_tuned, total_default)},
                            {"onednn_layers", onednn_layers},
                            {"onednn_layers_without_weight_zero_points_or_clamp", onednn_dropped_layers},
                            {"onednn_ns", onednn_layers ? nlohmann::json(total_onednn.median_ns) : nlohmann::json()},
                            {"tuned_ns_where_onednn", tuned_where_onednn.median_ns},
                            {"speedup_vs_onednn", onednn_layers ? nlohmann::json(total_onednn.median_ns /
                                                                                 tuned_where_onednn.median_ns)
                                                                : nlohmann::json()},
                            {"verdict_vs_onednn",
                             onednn_layers ? qtune::cli::verdict(tuned_where_onednn, total_onednn) : "-"},
                            {"other_kind_layers", other_kind_layers},
                            {"best_of_kinds_ns", total_best_of_kinds_ns},
                            {"tuned_share_of_best_of_kinds", total_best_of_kinds_ns / total_tuned.median_ns},
                            {"layers_behind_other_kind", behind_other_kind},
                            {"fallbacks", fallbacks.size()},
                            {"cache", std::string(qtune::to_string(cache))},
                            {"retimed_layers", retimed_layers},
                            {"disturbed_layers", disturbed_layers.size()},
                            {"repetitions", repetitions},
                            {"target", rt.target_key()},
                            {"target_differences", rt.target_differences()},
                            {"stored_run", stored_run.empty() ? nlohmann::json() : nlohmann::json(stored_run)}};
    std::cout << total.dump() << "\n";
#ifdef QTUNE_HAVE_ONNX
    if (onnxruntime) compare_with_onnxruntime(onnxruntime->finish(), onnxruntime->version(), results, model_values, thread_budget, true);
#endif
    return 0;
  }
  std::cout << "\ntotal: tuned " << ms(total_tuned.median_ns) << " ms, default " << ms(total_default.median_ns)
            << " ms (default/tuned " << ratio(total_default.median_ns, total_tuned.median_ns) << ", "
            << qtune::cli::verdict(total_tuned, total_default) << ")";
  if (onednn_layers > 0) {
    std::cout << "; oneDNN " << ms(total_onednn.median_ns) << " ms on the " << onednn_layers
              << " layer(s) it can run, tuned " << ms(tuned_where_onednn.median_ns) << " ms on those (oneDNN/tuned "
              << ratio(total_onednn.median_ns, tuned_where_onednn.median_ns) << ", "
              << qtune::cli::verdict(tuned_where_onednn, total_onednn) << ")";
  }
  std::cout << "\n";
  if (other_kind_layers > 0) {
    std::cout << "best of qtune's kernels and the libraries per layer, this run: " << ms(total_best_of_kinds_ns)
              << " ms (best/tuned " << ratio(total_best_of_kinds_ns, total_tuned.median_ns) << "; the other kind ran on "
              << other_kind_layers << " layer(s)); ";
    if (behind_other_kind.empty()) {
      std::cout << "no layer's tuned choice was slower than the other kind\n";
    } else {
      std::cout << behind_other_kind.size() << " layer(s) slower than the other kind (other/tuned):";
      for (const auto& name : behind_other_kind) std::cout << " " << name;
      std::cout << "\n";
    }
  }
  // oneDNN's int8 primitives requantize with an fp32 scale; say when the layers ask for more.
  std::set<std::string_view> exact_modes;
  for (const qtune::Layer& layer : network.layers) {
    if (layer.workload.quant.rounding != qtune::RoundingMode::fp32)
      exact_modes.insert(qtune::to_string(layer.workload.quant.rounding));
  }
  if (onednn_layers > 0 && !exact_modes.empty()) {
    std::cout << "note: oneDNN requantizes with an fp32 scale, qtune with the layers' own rounding (";
    for (auto it = exact_modes.begin(); it != exact_modes.end(); ++it)
      std::cout << (it == exact_modes.begin() ? "" : ", ") << *it;
    std::cout << "): dnn/tun includes that difference; `--rounding fp32` compares the same math\n";
  }
  if (onednn_dropped_layers > 0) {
    std::cout << "note: oneDNN ran " << onednn_dropped_layers << " layer(s) without what it cannot express (weight "
              << "zero points, clamp bounds narrower than the output type): the same work on other values\n";
  }
#ifdef QTUNE_HAVE_ONNX
  if (onnxruntime) compare_with_onnxruntime(onnxruntime->finish(), onnxruntime->version(), results, model_values, thread_budget, false);
#endif
  std::vector<std::string> close_calls;
  for (const auto& r : results) {
    if (r.close_call_repetitions > 0) close_calls.push_back(r.name);
  }
  if (!close_calls.empty()) {
    std::cout << "close calls: " << close_calls.size() << " layer(s) whose tuned and default times were between "
              << "half and twice the minimum effect apart, or spread wider than it, were timed again with "
              << qtune::kCloseCallRepetitions << "x the repetitions at " << qtune::kCloseCallRepetitions
              << "x the placements, and are judged on that:";
    for (const auto& name : close_calls) std::cout << " " << name;
    std::cout << "\n";
  }
  if (retimed_layers == 0) {
    std::cout << "machine: no layer's timing was disturbed by other processes\n";
  } else {
    std::cout << "machine disturbed: " << retimed_layers << " layer(s) found other processes holding the CPU while "
              << "timed and were timed again";
    if (!disturbed_layers.empty()) {
      std::cout << "; " << disturbed_layers.size() << " stayed disturbed, their figures are of a busy machine:";
      for (const auto& name : disturbed_layers) std::cout << " " << name;
    }
    std::cout << "\n";
  }
  if (fallbacks.empty()) {
    std::cout << "every layer ran its own tuned configuration\n";
  } else {
    std::cout << fallbacks.size() << " of " << network.layers.size() << " layers fell back:\n";
    for (const auto& f : fallbacks) std::cout << "  " << f.workload_key << "\n    -> " << f.config_key << ": " << f.reason << "\n";
  }
  return 0;
}

}  // namespace

QTUNE_COMMAND("run", "run every layer of a network with its tuned configuration, the default and oneDNN",
              "qtune run (--workloads FILE | --model FILE [--input-shape NAME=DIMS]) [--db FILE | --log FILE] [--target current|KEY] [--threads T] "
              "[--rounding MODE] [--repetitions N] [--cache warm|cold] [--no-store] [--onnxruntime] [--json]",
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
                                        std::to_string(qtune::cli::kPlacements) +
                                        " placements, then shared among them; the median is reported (default 5)"},
               qtune::cli::cache_option(),
               {"no-store", false, "with --db: do not store the timings in the database's network_runs table"},
               {"onnxruntime", false, "with --model: also time the model in onnxruntime (Node.js, onnxruntime-node from "
                                      "scripts/setup.sh) at 1 thread and the budget (2 for 1), per layer and whole, "
                                      "in rounds between qtune's layers"},
               {"json", false, "one JSON object per line: each layer (type \"layer\"), then the total (type \"total\")"}},
              run_network);
