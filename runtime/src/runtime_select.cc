// Choosing the configuration of a layer: tuned, else nearest tuned shape (adapted), else the
// heuristic default; configurations this CPU cannot run (a foreign instruction set, a library this
// build or CPU lacks) are skipped with a warning once per cause.
#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "config_adaptation.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/library_ops.h"
#include "qtune/runtime/shape_distance.h"
#include "qtune/runtime/workload_of.h"
#include "qtune/search_space/operator_spaces.h"
#include "runtime_state.h"

namespace qtune::runtime {
namespace {

// What differs between the operators, so that one selection procedure serves both.
struct GemmTraits {
  using Problem = GemmProblem;
  using KernelConfig = GemmConfig;
  static KernelConfig from(const Config& c) { return to_gemm_config(c); }
  static std::string key(const KernelConfig& c) { return from_gemm_config(c).key(); }
  static Isa isa(const KernelConfig& c) { return c.isa; }
  static int threads(const KernelConfig& c) { return c.threads; }
  static void set_threads(KernelConfig& c, int threads) { c.threads = threads; }
  static std::string check(const Problem& p, const KernelConfig& c) { return gemm_check_config(p, c); }
  static std::string library_unsupported(const std::string& library, const Problem& p) {
    return libraries::library_gemm_unsupported(library, p);
  }
  static detail::Adapted<KernelConfig> adapt(const KernelConfig& c, const Problem& p, int threads) {
    return detail::adapt_gemm_config(c, p, threads);
  }
  // The kernels' default is single-threaded; an untuned layer still gets its thread budget (as
  // qtune::default_config() gives it), or an application preparing with threads = 2 would get one.
  static KernelConfig builtin_default(const Problem& p, int threads) {
    KernelConfig c = gemm_default_config(p);
    c.threads = threads;
    return c;
  }
};

struct Conv2dTraits {
  using Problem = Conv2dProblem;
  using KernelConfig = Conv2dConfig;
  static KernelConfig from(const Config& c) { return to_conv2d_config(c); }
  static std::string key(const KernelConfig& c) { return from_conv2d_config(c).key(); }
  static Isa isa(const KernelConfig& c) { return c.gemm.isa; }
  static int threads(const KernelConfig& c) { return c.gemm.threads; }
  static void set_threads(KernelConfig& c, int threads) { c.gemm.threads = threads; }
  static std::string check(const Problem& p, const KernelConfig& c) { return conv2d_check_config(p, c); }
  static std::string library_unsupported(const std::string& library, const Problem& p) {
    return libraries::library_conv2d_unsupported(library, p);
  }
  static detail::Adapted<KernelConfig> adapt(const KernelConfig& c, const Problem& p, int threads) {
    return detail::adapt_conv2d_config(c, p, threads);
  }
  static KernelConfig builtin_default(const Problem& p, int threads) {
    KernelConfig c = conv2d_default_config(p);
    c.gemm.threads = threads;
    return c;
  }
};

template <typename KernelConfig>
struct Choice {
  Selection selection;
  KernelConfig config;                   // when qtune's kernels run the layer
  std::optional<LibraryConfig> library;  // when a library does
};

// Whether a tuned library configuration may run this layer here; warns once per library and cause
// (a build or CPU without the library, as for a foreign instruction set).
template <typename Traits>
bool runnable_library(const Runtime::State& state, const LibraryConfig& library, const typename Traits::Problem& problem,
                      const std::string& workload_key, std::string* why = nullptr) {
  const std::string unsupported = Traits::library_unsupported(library.library, problem);
  if (unsupported.empty()) return true;
  state.warn_once("library:" + library.library + ":" + unsupported,
                  "tuned configurations using library " + library.library + " are not run: " + unsupported +
                      "; those layers fall back (first: " + workload_key + ")");
  if (why != nullptr) *why = unsupported;
  return false;
}

// Whether a tuned configuration may run here; warns once per missing instruction set.
template <typename Traits>
bool runnable_isa(const Runtime::State& state, const typename Traits::KernelConfig& config,
                  const std::string& workload_key) {
  const Isa isa = Traits::isa(config);
  if (cpu_features().usable(isa)) return true;
  const std::string name(to_string(isa));
  state.warn_once("isa:" + name, "tuned configurations using isa " + name +
                                     " are not run: this CPU cannot execute " + name +
                                     " (the tuning data was made on another CPU or build); those layers fall "
                                     "back (first: " + workload_key + ")");
  return false;
}

// The selection of a layer that runs `entry`, tuned for exactly its workload.
void mark_tuned(Selection& sel, const TunedEntry& entry) {
  sel.source = ConfigSource::tuned;
  sel.config_key = entry.config.key();
  sel.tuned_workload_key = entry.lookup_key;
}

// Whether `entry`, tuned for exactly this workload, may run it here: then `choice` takes it (a
// tuned selection) and true; else false with `why` saying what stops it.
template <typename Traits>
bool run_exact(const Runtime::State& state, const typename Traits::Problem& problem, int threads, LibraryUse libraries,
               const TunedEntry& entry, Choice<typename Traits::KernelConfig>& choice, std::string& why) {
  using KernelConfig = typename Traits::KernelConfig;
  Selection& sel = choice.selection;
  if (const auto library = to_library_config(entry.config)) {
    if (libraries == LibraryUse::kernels_only) {
      why = "tuned configuration " + entry.config.key() + " not run: the caller runs qtune's kernels only";
      return false;
    }
    std::string unsupported;
    if (library->threads > threads) {
      why = "tuned configuration " + entry.config.key() + " exceeds the thread budget " + std::to_string(threads);
      return false;
    }
    if (!runnable_library<Traits>(state, *library, problem, sel.workload_key, &unsupported)) {
      why = "tuned configuration " + entry.config.key() + " not run: " + unsupported;
      return false;
    }
    mark_tuned(sel, entry);
    choice.library = library;
    return true;
  }
  const KernelConfig tuned = Traits::from(entry.config);
  if (!runnable_isa<Traits>(state, tuned, sel.workload_key)) {
    why = "tuned configuration " + entry.config.key() + " needs isa " + std::string(to_string(Traits::isa(tuned))) +
          ", not usable on this CPU";
    return false;
  }
  // A workload's tuned thread count is within its budget unless the entry was made by hand.
  const std::string problem_text = Traits::threads(tuned) > threads
                                       ? "threads=" + std::to_string(Traits::threads(tuned)) +
                                             " exceeds the thread budget " + std::to_string(threads)
                                       : Traits::check(problem, tuned);
  if (!problem_text.empty()) {
    state.warn_once("check:" + problem_text, "tuned configuration '" + entry.config.key() + "' of " +
                                                 sel.workload_key + " is rejected (" + problem_text +
                                                 "); the layer falls back");
    why = "tuned configuration " + entry.config.key() + " rejected: " + problem_text;
    return false;
  }
  mark_tuned(sel, entry);
  choice.config = tuned;
  return true;
}

template <typename Traits>
Choice<typename Traits::KernelConfig> choose(const Runtime::State& state, const typename Traits::Problem& problem,
                                             int threads, LibraryUse libraries) {
  using KernelConfig = typename Traits::KernelConfig;
  const Workload workload = workload_of(problem, threads);  // validates the problem and the budget
  Choice<KernelConfig> choice;
  Selection& sel = choice.selection;
  sel.workload_key = lookup_key(workload);

  // 1. Exactly this workload: one hash lookup; its best entry, else the best of another kind
  // measured for it (qtune's kernels where a library won but may not run here).
  std::string why = "not tuned";
  const auto exact = state.by_lookup_key.find(sel.workload_key);
  if (exact != state.by_lookup_key.end()) {
    const TunedEntry& best = state.entries[exact->second];
    why.clear();
    if (run_exact<Traits>(state, problem, threads, libraries, best, choice, why)) return choice;
    if (const auto others = state.other_kinds.find(sel.workload_key); others != state.other_kinds.end()) {
      for (const TunedEntry& other : others->second) {
        std::string other_why;
        if (run_exact<Traits>(state, problem, threads, libraries, other, choice, other_why)) {
          sel.reason = why + "; the best " + other.kind + " configuration measured for this workload runs instead";
          return choice;
        }
        why += "; " + other_why;
      }
    }
  }

  // 2. The nearest tuned shape of the family whose instruction set this CPU runs.
  const TunedEntry* nearest = nullptr;
  const auto family = state.by_family.find(family_key(workload));
  if (family != state.by_family.end()) {
    for (std::size_t index : family->second) {
      const TunedEntry& candidate = state.entries[index];
      if (candidate.lookup_key == sel.workload_key) continue;
      if (const auto library = to_library_config(candidate.config)) {
        if (libraries == LibraryUse::kernels_only || !runnable_library<Traits>(state, *library, problem, sel.workload_key))
          continue;
      } else if (!runnable_isa<Traits>(state, Traits::from(candidate.config), sel.workload_key)) {
        continue;
      }
      if (nearest == nullptr || nearer(workload, candidate.workload, nearest->workload)) nearest = &candidate;
    }
  }
  if (nearest != nullptr) {
    const double distance = shape_distance(workload, nearest->workload);
    if (auto library = to_library_config(nearest->config)) {
      // A library adapts itself to the shape; only its thread count follows the budget rule below.
      if (library->threads >= nearest->workload.threads && threads > nearest->workload.threads) library->threads = threads;
      library->threads = std::clamp(library->threads, 1, threads);
      sel.source = ConfigSource::nearest;
      sel.config_key = from_library_config(*library).key();
      sel.tuned_workload_key = nearest->lookup_key;
      sel.distance = distance;
      sel.reason = why + "; nearest tuned shape " + nearest->lookup_key + " (distance " + std::to_string(distance) +
                   "), configuration " + nearest->config.key() + " adapted";
      choice.library = library;
      return choice;
    }
    KernelConfig neighbour = Traits::from(nearest->config);
    // A neighbour that used its whole, smaller thread budget was limited by it, not tuned to it:
    // this layer gets its own budget (a network tuned on one thread and run on two uses both).
    if (Traits::threads(neighbour) >= nearest->workload.threads && threads > nearest->workload.threads) {
      Traits::set_threads(neighbour, threads);
    }
    const auto adapted = Traits::adapt(neighbour, problem, threads);
    if (adapted.problem.empty()) {
      sel.source = ConfigSource::nearest;
      sel.config_key = Traits::key(adapted.config);
      sel.tuned_workload_key = nearest->lookup_key;
      sel.distance = distance;
      sel.reason = why + "; nearest tuned shape " + nearest->lookup_key + " (distance " + std::to_string(distance) +
                   "), configuration " + nearest->config.key() + " adapted";
      choice.config = adapted.config;
      return choice;
    }
    why += "; nearest tuned shape " + nearest->lookup_key + " has a configuration that cannot be adapted (" +
           adapted.problem + ")";
  } else {
    why += "; no runnable tuned shape of the same operator and quantization kind";
  }

  // 3. The kernels' heuristic default for exactly this problem and thread budget (not snapped
  // into the search space's coarser blocking grid, which can cost it its register tile).
  const KernelConfig fallback = Traits::builtin_default(problem, threads);
  sel.source = ConfigSource::heuristic;
  sel.config_key = Traits::key(fallback);
  sel.reason = why + "; heuristic default";
  choice.config = fallback;
  return choice;
}

// A configuration of a family that clips weight pairs (isa_clips_weight_pairs) chosen for weights
// unlike a trained network's (kMaxClippedWeightPairShare), where it runs slower than the tuning
// measured: the layer runs its untuned default instead, says why, and the warning names the first
// such layer.
template <typename Traits>
void keep_clipping_affordable(const Runtime::State& state, const typename Traits::Problem& problem, int threads,
                              double clipped_share, Choice<typename Traits::KernelConfig>& choice) {
  if (choice.library || !isa_clips_weight_pairs(Traits::isa(choice.config))) return;
  if (clipped_share <= kMaxClippedWeightPairShare) return;
  Selection& sel = choice.selection;
  const std::string isa(to_string(Traits::isa(choice.config)));
  const auto percent = [](double share) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << share * 100.0 << "%";
    return out.str();
  };
  const std::string why = "the weights clip " + percent(clipped_share) + " of their pairs, past the " +
                          percent(kMaxClippedWeightPairShare) + " of any trained network's that " + isa +
                          " is tuned for";
  state.warn_once("clipping:" + isa, "configurations using isa " + isa + " are not run where " + why +
                                         "; those layers run their default (first: " + sel.workload_key + ")");
  // The untuned default as the tuner knows it (a configuration of the search space, as the tuned
  // one was: what `qtune run` records of the layer stays within the space's values).
  choice.config = Traits::from(default_config(workload_of(problem, threads), cpu_features()));
  sel.source = ConfigSource::heuristic;
  sel.config_key = Traits::key(choice.config);
  sel.reason = (sel.reason.empty() ? "" : sel.reason + "; ") + "configuration of isa " + isa + " not run: " + why +
               "; untuned default";
}

}  // namespace

Selection Runtime::select_gemm(const GemmProblem& problem, int threads, LibraryUse libraries) const {
  auto choice = choose<GemmTraits>(*state_, problem, threads, libraries);
  state_->record(choice.selection);
  return std::move(choice.selection);
}

Selection Runtime::select_conv2d(const Conv2dProblem& problem, int threads, LibraryUse libraries) const {
  auto choice = choose<Conv2dTraits>(*state_, problem, threads, libraries);
  state_->record(choice.selection);
  return std::move(choice.selection);
}

PreparedGemm Runtime::prepare_gemm(const GemmProblem& problem, const std::int8_t* b, std::size_t ldb,
                                   const std::int32_t* bias, int threads, LibraryUse libraries) const {
  if (b == nullptr) throw std::invalid_argument("gemm prepare: weights (B) must not be null");
  if (problem.has_bias != (bias != nullptr))
    throw std::invalid_argument(problem.has_bias ? "gemm prepare: the problem has a bias but bias is null"
                                                 : "gemm prepare: bias given for a problem without bias");
  if (ldb < static_cast<std::size_t>(problem.n < 0 ? 0 : problem.n))
    throw std::invalid_argument("gemm prepare: ldb " + std::to_string(ldb) + " is smaller than N " +
                                std::to_string(problem.n));
  auto choice = choose<GemmTraits>(*state_, problem, threads, libraries);
  if (isa_clips_weight_pairs(choice.config.isa)) {
    keep_clipping_affordable<GemmTraits>(*state_, problem, threads,
                                         clipped_weight_pair_share(b, static_cast<std::size_t>(problem.k),
                                                                   static_cast<std::size_t>(problem.n), ldb),
                                         choice);
  }
  if (choice.library) {
    std::shared_ptr<const libraries::LibraryGemm> op =
        libraries::prepare_library_gemm(choice.library->library, problem, b, ldb, bias, choice.library->threads);
    state_->record(choice.selection);
    return PreparedGemm(std::move(op), choice.library->library, problem, std::move(choice.selection));
  }
  GemmOp op = GemmOp::prepare(problem, choice.config, b, ldb, bias);
  state_->record(choice.selection);
  return PreparedGemm(std::move(op), std::move(choice.selection));
}

PreparedConv2d Runtime::prepare_conv2d(const Conv2dProblem& problem, const std::int8_t* weights,
                                       const std::int32_t* bias, int threads, LibraryUse libraries) const {
  if (weights == nullptr) throw std::invalid_argument("conv2d prepare: weights must not be null");
  if (problem.has_bias != (bias != nullptr))
    throw std::invalid_argument(problem.has_bias ? "conv2d prepare: the problem has a bias but bias is null"
                                                 : "conv2d prepare: bias given for a problem without bias");
  auto choice = choose<Conv2dTraits>(*state_, problem, threads, libraries);
  if (isa_clips_weight_pairs(choice.config.gemm.isa)) {
    // HWIO weights are the convolution's GEMM B: its K rows of out_c columns (every group's).
    const auto k = static_cast<std::size_t>(problem.as_gemm().k);
    const auto n = static_cast<std::size_t>(problem.out_c);
    keep_clipping_affordable<Conv2dTraits>(*state_, problem, threads, clipped_weight_pair_share(weights, k, n, n),
                                           choice);
  }
  if (choice.library) {
    std::shared_ptr<const libraries::LibraryConv2d> op =
        libraries::prepare_library_conv2d(choice.library->library, problem, weights, bias, choice.library->threads);
    state_->record(choice.selection);
    return PreparedConv2d(std::move(op), choice.library->library, problem, std::move(choice.selection));
  }
  Conv2dOp op = Conv2dOp::prepare(problem, choice.config, weights, bias);
  state_->record(choice.selection);
  return PreparedConv2d(std::move(op), std::move(choice.selection));
}

}  // namespace qtune::runtime
