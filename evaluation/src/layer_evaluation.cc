#include "qtune/evaluation/layer_evaluation.h"

#include <functional>
#include <memory>
#include <random>
#include <stdexcept>

#include "qtune/evaluation/placement_timing.h"
#include "qtune/evaluation/undisturbed_timing.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/measure/placed_bytes.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"

#ifdef QTUNE_HAVE_ONEDNN
#include "qtune/libraries/onednn_conv_peer.h"
#include "qtune/libraries/onednn_exactness.h"
#include "qtune/libraries/onednn_matmul_peer.h"
#endif

namespace qtune::evaluation {
namespace {

using runtime::Runtime;

template <typename T>
std::vector<T> random_values(std::size_t count, std::mt19937_64& rng) {
  std::vector<T> out(count);
  for (auto& v : out) v = static_cast<T>(rng());
  return out;
}

std::size_t element_bytes(DType t) { return t == DType::s32 ? 4 : 1; }

constexpr int kOpenMp = 1;  // oneDNN's thread runtime (TimedCase::runtime; qtune's pool is 0)

#ifdef QTUNE_HAVE_ONEDNN
using GemmPeer = libraries::OnednnMatmul;
using ConvPeer = libraries::OnednnConv;
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
  PlacedBytes input, out_tuned, out_default, out_other, out_peer;
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
  return std::make_shared<Placement>(Placement{.input = PlacedBytes(input, rng),
                                               .out_tuned = PlacedBytes(out_size, rng),
                                               .out_default = PlacedBytes(out_size, rng),
                                               .out_other = PlacedBytes(other_out_size, rng),
                                               .out_peer = PlacedBytes(peer_out_size, rng),
                                               .spacer_tuned = placement_spacer(rng),
                                               .tuned = make_tuned(),
                                               .spacer_default = placement_spacer(rng),
                                               .plain = make_plain(),
                                               .spacer_other = other_out_size > 0 ? placement_spacer(rng)
                                                                                  : std::vector<std::uint8_t>{}});
}

}  // namespace

std::string LayerEvaluation::verdict() const {
  return config_key == default_config_key ? "same" : anchored_verdict(tuned, untuned, recorded_ratio);
}

LayerEvaluation evaluate_layer(const Runtime& rt, const Layer& layer, const LayerTiming& timing,
                               const LayerValues* values, const std::optional<reports::KindMargin>& won_by) {
  const int repetitions = timing.repetitions;
  const CacheState cache = timing.cache;
  const DisturbancePolicy& policy = timing.policy;
  const Workload& w = layer.workload;
  LayerEvaluation r;
  r.name = layer.name;
  r.description = w.describe();
  r.workload_key = w.key();
  r.count = layer.count;
  std::mt19937_64 rng(std::hash<std::string>{}(r.workload_key));
  const Config untuned = default_config(w, cpu_features());
  r.default_config_key = untuned.key();
  // Makes one placement (everything the cases touch, allocated and prepared anew): its cases are
  // tuned, default, then the other kind's candidate and oneDNN where they run.
  std::function<std::vector<TimedCase>()> place;
  int other_case = -1, peer_case = -1;  // their places among the cases, where they run
  const auto time_once = [&](int reps, int max_placements) {
    const auto kept = time_undisturbed(
        [&] {
          return time_at_placements(place, reps, static_cast<unsigned>(rng()), w.threads, cache,
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
    time_once(repetitions, kPlacements);
    if (r.config_key != r.default_config_key && close_call(r.tuned, r.untuned)) {
      r.close_call_repetitions = repetitions * kCloseCallRepetitions;
      time_once(r.close_call_repetitions, kPlacements * kCloseCallRepetitions);
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
  const auto choose_other = [&](const runtime::Selection& tuned) {
    r.other_kind = other_kind_candidate(w, reports::candidate_kind(tuned.config_key), won_by,
                                                    cpu_features());
    if (!r.other_kind) {
      r.other_note = "no candidate of another kind is offered for this layer";
      return;
    }
    runtime::RuntimeOptions options;
    options.target_key = current_target().key();
    options.warning_sink = [&r](const std::string& message) { r.other_note = message; };
    other_rt.emplace(Runtime::from_entries({{r.workload_key, options.target_key, r.other_kind->config_key}}, options));
  };
  // Adds the other kind's case where its preparation kept its kind (a library the runtime cannot
  // run falls back to qtune's kernels, which is not the other kind).
  const auto add_other = [&](auto& at, auto&& prepare, auto&& run, std::vector<TimedCase>& cases) {
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

  if (w.op == OpKind::gemm) {
    const GemmProblem p = values ? values->gemm : w.gemm_problem();
    const auto a_values = random_values<std::uint8_t>(static_cast<std::size_t>(p.m * p.k), rng);
    const auto b = values ? values->weights
                          : draw_weights(timing.weights, static_cast<std::size_t>(p.k * p.n), static_cast<std::size_t>(p.n), rng);
    const auto bias = random_values<std::int16_t>(static_cast<std::size_t>(p.n), rng);
    const std::vector<std::int32_t> bias32 = values ? values->bias : std::vector<std::int32_t>(bias.begin(), bias.end());
    const std::int32_t* bias_data = p.has_bias ? bias32.data() : nullptr;
    const std::size_t out_size = static_cast<std::size_t>(p.m * p.n) * element_bytes(p.out_type);
    const auto n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
#ifndef QTUNE_HAVE_ONEDNN
    r.onednn_note = "not run: oneDNN is not part of this build";
#endif
    using Placement = LayerPlacement<runtime::PreparedGemm, GemmOp, GemmPeer>;
    std::vector<std::shared_ptr<Placement>> placements;
    choose_other(rt.select_gemm(p, w.threads));
    place = [&] {
      auto at = make_placement<Placement>(
          rng, a_values, out_size, other_rt ? out_size : 0, 0,
          [&] { return rt.prepare_gemm(p, b.data(), n, bias_data, w.threads); },
          [&] { return GemmOp::prepare(p, to_gemm_config(untuned), b.data(), n, bias_data); });
      placements.push_back(at);
      select(at->tuned);
      // oneDNN (the one library candidate) runs on OpenMP's threads: timed with its peer's runtime.
      std::vector<TimedCase> cases;
      cases.push_back({[at, k, n] { at->tuned.run(at->input.data(), k, at->out_tuned.data(), n); },
                       at->tuned.library().empty() ? 0 : kOpenMp});
      cases.push_back({[at, k, n] { at->plain.run(at->input.data(), k, at->out_default.data(), n); }});
      add_other(
          at, [&](const Runtime& other) { return other.prepare_gemm(p, b.data(), n, bias_data, w.threads); },
          [k, n](const runtime::PreparedGemm& op, Placement& on) { op.run(on.input.data(), k, on.out_other.data(), n); },
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
#ifdef QTUNE_HAVE_ONEDNN
    const auto exactness = libraries::onednn_matmul_exactness(p, b.data(), a_values.data(), w.threads);
    r.onednn_checked = exactness.elements;
    r.onednn_mismatched = exactness.mismatched;
#endif
    return r;
  }

  const Conv2dProblem p = values ? values->conv : w.conv2d_problem();
  const auto input_values = random_values<std::uint8_t>(static_cast<std::size_t>(p.batch * p.in_h * p.in_w * p.in_c), rng);
  const auto weights = values ? values->weights
                              : draw_weights(timing.weights,
                                             static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c),
                                             static_cast<std::size_t>(p.out_c), rng);
  const auto bias = random_values<std::int16_t>(static_cast<std::size_t>(p.out_c), rng);
  const std::vector<std::int32_t> bias32 = values ? values->bias : std::vector<std::int32_t>(bias.begin(), bias.end());
  const std::int32_t* bias_data = p.has_bias ? bias32.data() : nullptr;
  const std::size_t out_size =
      static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * element_bytes(p.out_type);
  std::optional<Conv2dProblem> peer_problem;  // what oneDNN runs, where it can
#ifdef QTUNE_HAVE_ONEDNN
  std::string dropped;
  const Conv2dProblem runnable = libraries::onednn_conv_runnable(p, dropped);
  if (const std::string why = libraries::onednn_conv_unsupported(runnable); !why.empty()) {
    r.onednn_note = "not run: " + why;
  } else {
    peer_problem = runnable;
    r.onednn_dropped = !dropped.empty();
  }
#else
  r.onednn_note = "not run: oneDNN is not part of this build";
#endif
  using Placement = LayerPlacement<runtime::PreparedConv2d, Conv2dOp, ConvPeer>;
  std::vector<std::shared_ptr<Placement>> placements;
  choose_other(rt.select_conv2d(p, w.threads));
  place = [&] {
    auto at = make_placement<Placement>(
        rng, input_values, out_size, other_rt ? out_size : 0, peer_problem ? out_size : 0,
        [&] { return rt.prepare_conv2d(p, weights.data(), bias_data, w.threads); },
        [&] { return Conv2dOp::prepare(p, to_conv2d_config(untuned), weights.data(), bias_data); });
    placements.push_back(at);
    select(at->tuned);
    // oneDNN (the one library candidate) runs on OpenMP's threads: timed with its peer's runtime.
    std::vector<TimedCase> cases;
    cases.push_back({[at] { at->tuned.run(at->input.data(), at->out_tuned.data()); },
                     at->tuned.library().empty() ? 0 : kOpenMp});
    cases.push_back({[at] { at->plain.run(at->input.data(), at->out_default.data()); }});
    add_other(
        at, [&](const Runtime& other) { return other.prepare_conv2d(p, weights.data(), bias_data, w.threads); },
        [](const runtime::PreparedConv2d& op, Placement& on) { op.run(on.input.data(), on.out_other.data()); },
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
#ifdef QTUNE_HAVE_ONEDNN
  if (peer_problem) {
    const auto exactness = libraries::onednn_conv_exactness(p, weights.data(), input_values.data(), w.threads);
    r.onednn_checked = exactness.elements;
    r.onednn_mismatched = exactness.mismatched;
  }
#endif
  return r;
}

}  // namespace qtune::evaluation
