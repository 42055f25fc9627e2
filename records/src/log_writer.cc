#include "qtune/records/log_format.h"

namespace qtune::records {

nlohmann::ordered_json to_log_json(const MeasurementRecord& r) {
  nlohmann::ordered_json line;
  line["format"] = kLogFormat;
  line["workload"] = r.workload_key;
  line["target"] = r.target_key;
  line["config"] = r.config_key;
  if (r.stats) {
    const auto& s = *r.stats;
    line["stats"] = {{"median_ns", s.median_ns}, {"min_ns", s.min_ns},         {"max_ns", s.max_ns},
                     {"mean_ns", s.mean_ns},     {"stddev_ns", s.stddev_ns},   {"cv", s.cv},
                     {"repetitions", s.repetitions}, {"iterations", s.iterations}, {"gops", s.gops}};
  } else {
    line["stats"] = nullptr;
  }
  if (r.correct()) {
    line["error"] = nullptr;
  } else {
    line["error"] = {{"kind", r.error_kind}, {"message", r.error_message}};
  }
  line["timestamp"] = r.timestamp;
  line["qtune_version"] = r.qtune_version;
  if (!r.settings.is_null()) line["settings"] = nlohmann::ordered_json::parse(r.settings.dump());
  return line;
}

std::string to_log_line(const MeasurementRecord& record) { return to_log_json(record).dump(); }

}  // namespace qtune::records
