#include "qtune/measure/settings.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace qtune {

MeasureSettings MeasureSettings::tuning() { return MeasureSettings{}; }

MeasureSettings MeasureSettings::stable() {
  MeasureSettings s;
  s.warmup_seconds = 0.1;
  s.min_repetition_seconds = 0.05;
  s.repetitions = 10;
  s.timeout_seconds = 120;
  return s;
}

void MeasureSettings::validate() const {
  auto fail = [](const std::string& field, const std::string& why) {
    throw std::invalid_argument("measure settings: field '" + field + "' " + why);
  };
  if (!(warmup_seconds >= 0) || !std::isfinite(warmup_seconds)) fail("warmup_seconds", "must be >= 0");
  if (!(min_repetition_seconds > 0) || !std::isfinite(min_repetition_seconds))
    fail("min_repetition_seconds", "must be > 0");
  if (repetitions < 1 || repetitions > 100000) fail("repetitions", "must be in [1, 100000]");
  if (pin_cpu < -1) fail("pin_cpu", "must be -1 (no pinning) or a CPU number");
  if (!(timeout_seconds > 0) || !std::isfinite(timeout_seconds)) fail("timeout_seconds", "must be > 0");
}

nlohmann::json to_json(const MeasureSettings& s) {
  return {{"warmup_seconds", s.warmup_seconds},
          {"min_repetition_seconds", s.min_repetition_seconds},
          {"repetitions", s.repetitions},
          {"flush_cache", s.flush_cache},
          {"cache", std::string(to_string(s.cache))},
          {"pin_cpu", s.pin_cpu},
          {"timeout_seconds", s.timeout_seconds},
          {"check_correctness", s.check_correctness},
          {"seed", s.seed}};
}

MeasureSettings settings_from_json(const nlohmann::json& j) {
  MeasureSettings s;
  if (!j.is_object()) throw std::invalid_argument("measure settings: expected a JSON object");
  auto field = [&](const char* name, auto& out) {
    if (!j.contains(name)) return;
    try {
      j.at(name).get_to(out);
    } catch (const nlohmann::json::exception&) {
      throw std::invalid_argument(std::string("measure settings: field '") + name + "' has the wrong type: " +
                                  j.at(name).dump());
    }
  };
  field("warmup_seconds", s.warmup_seconds);
  field("min_repetition_seconds", s.min_repetition_seconds);
  field("repetitions", s.repetitions);
  field("flush_cache", s.flush_cache);
  // Absent in measurements of qtune before the setting existed: they timed calls back to back.
  std::string cache = "warm";
  field("cache", cache);
  const auto state = parse_cache_state(cache);
  if (!state) throw std::invalid_argument("measure settings: field 'cache' must be \"warm\" or \"cold\", got \"" + cache + "\"");
  s.cache = *state;
  field("pin_cpu", s.pin_cpu);
  field("timeout_seconds", s.timeout_seconds);
  field("check_correctness", s.check_correctness);
  field("seed", s.seed);
  s.validate();
  return s;
}

}  // namespace qtune
