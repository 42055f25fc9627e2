// The summary of a report as (label, text) rows, shared by the HTML and Markdown renderers so
// that both say exactly the same thing.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "qtune/reports/report_data.h"

namespace qtune::reports {

using SummaryRow = std::pair<std::string, std::string>;

// target, sessions, layers tuned, trials (failures by kind), network time untuned / tuned /
// speedup, and oneDNN when `qtune run` timed it.
std::vector<SummaryRow> summary_rows(const ReportData& data);

// What a report is about, for its heading: the network, else the database file.
std::string report_subject(const ReportData& data);

}  // namespace qtune::reports
