// One measurement: make the candidate, check it against the reference, time it.
#include <algorithm>
#include <chrono>

#include "benchmark_timing.h"
#include "cpu_pinning.h"
#include "qtune/measure/candidate.h"
#include "qtune/measure/measure.h"
#include "qtune/measure/run_queue_wait.h"
#include "qtune/search_space/key_text.h"
#include "qtune/search_space/target.h"

#include <unistd.h>

namespace qtune {

MeasureResult measure_in_process(const std::string& workload_key, const std::string& config_key,
                                 const MeasureSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  MeasureResult result;
  // A key that is not ASCII text is kept escaped: the result must stay serializable as JSON.
  const std::string workload_problem = key_text_problem("workload key", workload_key);
  const std::string config_problem = key_text_problem("configuration", config_key);
  const bool keys_are_text = workload_problem.empty() && config_problem.empty();
  result.workload_key = keys_are_text ? workload_key : printable(workload_key);
  result.config_key = keys_are_text ? config_key : printable(config_key);
  result.settings = settings;
  result.timestamp = utc_timestamp();
  result.worker_pid = static_cast<int>(getpid());
  static const std::string target_key = current_target().key();
  result.target_key = target_key;
  auto fail = [&](ErrorKind kind, const std::string& message) {
    result.error = kind;
    result.error_message = message;
  };
  try {
    if (!workload_problem.empty()) throw CandidateError(ErrorKind::invalid_workload, workload_problem);
    if (!config_problem.empty()) throw CandidateError(ErrorKind::invalid_config, config_problem);
    settings.validate();
    std::unique_ptr<Candidate> candidate = make_candidate(workload_key, config_key, settings.seed);
    detail::ScopedCpuPin pin(settings.pin_cpu);
    std::string mismatch;
    if (settings.check_correctness) mismatch = candidate->check();
    if (!mismatch.empty()) {
      fail(ErrorKind::wrong_answer, mismatch);
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
    fail(e.kind, e.what());
  } catch (const std::exception& e) {
    fail(ErrorKind::runtime_error, e.what());
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace qtune
