// The report as JSON ("format": "qtune-report/1") for scripts: the same data the HTML and
// Markdown reports show, with raw numbers (nanoseconds, GOP/s) instead of formatted text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "qtune/reports/report_data.h"

namespace qtune::reports {

inline constexpr const char* kReportFormat = "qtune-report/1";

nlohmann::json report_json(const ReportData& data);
std::string render_json(const ReportData& data);  // indented, with a final newline

}  // namespace qtune::reports
