// Attaching `qtune run` timings (network_runs) to the report's layers: per layer, the latest run
// that timed it; the tuned, default and oneDNN timings all come from that one run.
#pragma once

#include <vector>

#include "qtune/records/network_runs.h"
#include "qtune/reports/report_data.h"

namespace qtune::reports {

// `runs` are the target's rows in insertion order.
void attach_network_runs(std::vector<LayerReport>& layers, const std::vector<records::NetworkRunRecord>& runs);

}  // namespace qtune::reports
