// Between measure/ and records/: a measurement result as the database stores it, and a stored
// measurement as the tuner's history sees it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "qtune/measure/result.h"
#include "qtune/records/measurement.h"

namespace qtune {

// Times become nanoseconds; errors keep their kind and message and carry no timing.
records::MeasurementRecord to_measurement_record(const MeasureResult& result, std::optional<std::int64_t> session_id,
                                                 const std::string& target_key);

// GOP/s of a stored measurement, nullopt for an error (or a record without timing).
std::optional<double> stored_gops(const records::MeasurementRecord& record);

}  // namespace qtune
