// One measurement: make the candidate, check it against the reference, time it. Typed objects and
// keys that arrive as text differ only in how the candidate is made.
#include <algorithm>
#include <chrono>
#include <functional>

#include "benchmark_timing.h"
#include "candidate_from_keys.h"
#include "cpu_pinning.h"
#include "qtune/measure/candidate.h"
#include "qtune/measure/measure.h"
#include "qtune/measure/run_queue_wait.h"
#include "qtune/search_space/key_text.h"
#include "qtune/search_space/target.h"

#include <unistd.h>

namespace qtune {
namespace {

using MeasureClock = std::chrono::steady_clock;
using MakeCandidate = std::function<std::unique_ptr<Candidate>()>;

// What every result of this process says, whatever becomes of the candidate. A key that is not
// ASCII text is kept escaped: the result must stay serializable as JSON.
MeasureResult result_for(const std::string& workload_key, const std::string& config_key,
                         const MeasureSettings& settings) {
  const bool keys_are_text =
      key_text_problem("workload key", workload_key).empty() && key_text_problem("configuration", config_key).empty();
  MeasureResult result;
  result.workload_key = keys_are_text ? workload_key : printable(workload_key);
  result.config_key = keys_are_text ? config_key : printable(config_key);
  result.settings = settings;
  result.timestamp = utc_timestamp();
  result.worker_pid = static_cast<int>(getpid());
  static const std::string target_key = current_target().key();
  result.target_key = target_key;
  return result;
}

void fail(MeasureResult& result, ErrorKind kind, const std::string& message) {
  result.error = kind;
  result.error_message = message;
}

double seconds_since(MeasureClock::time_point start) {
  return std::chrono::duration<double>(MeasureClock::now() - start).count();
}

// Makes the candidate once the settings are known to be valid (bad settings fail a request
// whatever its candidate), checks it and times it.
MeasureResult measure_candidate(MeasureResult result, MeasureClock::time_point start, const MeasureSettings& settings,
                                const MakeCandidate& make) {
  try {
    settings.validate();
    std::unique_ptr<Candidate> candidate = make();
    detail::ScopedCpuPin pin(settings.pin_cpu);
    std::string mismatch;
    if (settings.check_correctness) mismatch = candidate->check();
    if (!mismatch.empty()) {
      fail(result, ErrorKind::wrong_answer, mismatch);
    } else {
      const auto wait_before = run_queue_wait_ns();
      const auto timing_start = std::chrono::steady_clock::now();
      result.stats = detail::time_with_benchmark([&] { candidate->run(); }, settings);
      const double timing_ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - timing_start).count();
      const auto wait_after = run_queue_wait_ns();
      if (wait_before && wait_after && timing_ns > 0)
        result.waiting_share = std::max(0.0, *wait_after - *wait_before) / timing_ns;
      result.gops = result.stats.median > 0 ? candidate->gops() / result.stats.median : 0.0;
    }
  } catch (const CandidateError& e) {
    fail(result, e.kind, e.what());
  } catch (const std::exception& e) {
    fail(result, ErrorKind::runtime_error, e.what());
  }
  result.wall_seconds = seconds_since(start);
  return result;
}

}  // namespace

MeasureResult measure_in_process(const Workload& workload, const Config& config, const MeasureSettings& settings) {
  const auto start = MeasureClock::now();
  return measure_candidate(result_for(workload.key(), config.key(), settings), start, settings,
                           [&] { return make_candidate(workload, config, settings.seed); });
}

MeasureResult measure_keys_in_process(const std::string& workload_key, const std::string& config_key,
                                      const MeasureSettings& settings) {
  const auto start = MeasureClock::now();
  MeasureResult result = result_for(workload_key, config_key, settings);
  // Text that is not a key is refused before anything else is looked at.
  auto refuse = [&](ErrorKind kind, const std::string& problem) {
    fail(result, kind, problem);
    result.wall_seconds = seconds_since(start);
    return result;
  };
  if (std::string problem = key_text_problem("workload key", workload_key); !problem.empty())
    return refuse(ErrorKind::invalid_workload, problem);
  if (std::string problem = key_text_problem("configuration", config_key); !problem.empty())
    return refuse(ErrorKind::invalid_config, problem);
  return measure_candidate(std::move(result), start, settings,
                           [&] { return detail::make_candidate_from_keys(workload_key, config_key, settings.seed); });
}

}  // namespace qtune
