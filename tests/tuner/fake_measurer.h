// A deterministic stand-in for the real measurer in session tests: GOP/s is a fixed function of
// the configuration key (some configurations fail), every call is recorded, and a hook can act
// after a given call (e.g. request a stop as Ctrl-C would).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qtune/measure/measure.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune::testing {

class FakeMeasurer final : public Measurer {
 public:
  // GOP/s for a (workload, config); nullopt means the configuration gives a wrong answer.
  std::function<std::optional<double>(const std::string& workload_key, const std::string& config_key)> gops =
      [](const std::string&, const std::string& config_key) -> std::optional<double> {
    const std::uint64_t h = Config({{"k", config_key}}).hash();
    if (h % 13 == 0) return std::nullopt;
    return 10.0 + static_cast<double>(h % 1000) / 10.0;
  };
  std::function<void(std::size_t calls)> after_call;
  std::vector<std::pair<std::string, std::string>> calls;  // (workload key, config key)

  MeasureResult measure(const Workload& workload, const Config& config, const MeasureSettings& settings) override {
    calls.emplace_back(workload.key(), config.key());
    MeasureResult r;
    r.workload_key = workload.key();
    r.config_key = config.key();
    r.settings = settings;
    r.timestamp = utc_timestamp();
    if (auto g = gops(r.workload_key, r.config_key)) {
      const double seconds = workload.gops() / *g;
      r.stats = MeasureStats::from_samples({seconds, seconds, seconds}, 10);
      r.gops = *g;
    } else {
      r.error = ErrorKind::wrong_answer;
      r.error_message = "first mismatch at index 0 (fake)";
    }
    if (after_call) after_call(calls.size());
    return r;
  }
};

}  // namespace qtune::testing
