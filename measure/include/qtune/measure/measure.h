// Measuring candidates: in this process (tests, benchmarks) or in an isolated worker process that
// turns crashes and hangs into error results.
#pragma once

#include <memory>
#include <string>

#include "qtune/measure/result.h"
#include "qtune/measure/settings.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune {

// Checks the candidate against the reference, then times it on Google Benchmark's engine. Never
// throws for a bad candidate: errors become the result's kind and message (a configuration that
// is not a point of the workload's space on this CPU is invalid_config). A crash or hang takes
// the calling process with it: use IsolatedMeasurer for untrusted candidates. Uses (and clears)
// Google Benchmark's global registry, so calls are serialized internally.
MeasureResult measure_in_process(const Workload& workload, const Config& config, const MeasureSettings& settings);

// The same for keys that arrive as text (a command line, the isolated worker's request): they are
// checked to be printable ASCII and parsed here, once. Operators registered by tests
// (qtune/measure/candidate.h) exist only as keys, so this is their only way in.
MeasureResult measure_keys_in_process(const std::string& workload_key, const std::string& config_key,
                                      const MeasureSettings& settings);

// Takes the tuner's typed objects: only a measurer that crosses a process boundary turns them
// into text (their keys).
class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual MeasureResult measure(const Workload& workload, const Config& config, const MeasureSettings& settings) = 0;
};

class InProcessMeasurer final : public Measurer {
 public:
  MeasureResult measure(const Workload& workload, const Config& config, const MeasureSettings& settings) override {
    return measure_in_process(workload, config, settings);
  }
};

// A worker process (fork of this one, so test-registered operators exist there too) measures
// candidates one after another over a socket with length-prefixed JSON messages. It is reused
// while healthy; when a candidate kills it (signal, exit) or exceeds the time limit it is killed
// and a new worker is started for the next candidate. Not thread-safe: one per thread.
//
// Fork safety: the worker is forked from the calling thread only. Start the measurer before the
// process creates threads that hold locks, and keep kernel thread pools fork-aware.
class IsolatedMeasurer final : public Measurer {
 public:
  IsolatedMeasurer();  // starts the first worker
  ~IsolatedMeasurer() override;
  IsolatedMeasurer(const IsolatedMeasurer&) = delete;
  IsolatedMeasurer& operator=(const IsolatedMeasurer&) = delete;

  // The worker is another process: the workload and the configuration travel to it as their keys,
  // which it parses back.
  MeasureResult measure(const Workload& workload, const Config& config, const MeasureSettings& settings) override;
  // Keys that arrive as text: checked to be printable ASCII here, parsed by the worker
  // (measure_keys_in_process there).
  MeasureResult measure_keys(const std::string& workload_key, const std::string& config_key,
                             const MeasureSettings& settings);

  int worker_pid() const;     // 0 when no worker is running (after a failure, until the next call)
  int workers_started() const;

 private:
  struct Worker;
  std::unique_ptr<Worker> worker_;
  int started_ = 0;
  void start();
  void stop();
};

}  // namespace qtune
