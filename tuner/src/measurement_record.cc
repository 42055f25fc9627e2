#include "qtune/tuner/measurement_record.h"

#include <nlohmann/json.hpp>

#include "qtune/kernels/build_info.h"

namespace qtune {

records::MeasurementRecord to_measurement_record(const MeasureResult& result, std::optional<std::int64_t> session_id,
                                                 const std::string& target_key) {
  records::MeasurementRecord record;
  record.session_id = session_id;
  record.workload_key = result.workload_key;
  record.target_key = target_key;
  record.config_key = result.config_key;
  if (result.ok()) {
    records::TimingStats stats;
    stats.median_ns = result.stats.median * 1e9;
    stats.min_ns = result.stats.min * 1e9;
    stats.max_ns = result.stats.max * 1e9;
    stats.mean_ns = result.stats.mean * 1e9;
    stats.stddev_ns = result.stats.stddev * 1e9;
    stats.cv = result.stats.cv;
    stats.repetitions = result.stats.repetitions;
    stats.iterations = result.stats.iterations;
    stats.gops = result.gops;
    record.stats = stats;
  } else {
    record.error_kind = std::string(to_string(result.error));
    record.error_message = result.error_message;
  }
  record.settings = to_json(result.settings);
  record.timestamp = result.timestamp;
  record.qtune_version = version();
  record.source = records::MeasurementSource::measured;
  return record;
}

std::optional<double> stored_gops(const records::MeasurementRecord& record) {
  if (!record.correct() || !record.stats || !(record.stats->gops > 0)) return std::nullopt;
  return record.stats->gops;
}

}  // namespace qtune
