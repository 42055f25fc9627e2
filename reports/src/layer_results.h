// One layer's results from its measurements on the target: trial and failure counts, the untuned
// first trial, the best, and the best-so-far curve of each strategy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qtune/records/measurement.h"
#include "qtune/reports/report_data.h"

namespace qtune::reports {

// `measurements` are the layer's, in insertion (trial) order; `strategy_of_session` names the
// strategy of every session ("imported" is used for measurements without one).
void fill_layer_results(LayerReport& layer, const std::vector<records::MeasurementRecord>& measurements,
                        const std::map<std::int64_t, std::string>& strategy_of_session);

// GOP/s of a correct measurement: the stored throughput, or work / median when it was not stored.
std::optional<double> measurement_gops(const records::MeasurementRecord& m, std::optional<double> gop_per_run);

}  // namespace qtune::reports
