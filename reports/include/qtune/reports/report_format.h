// Choosing the report's output format by name ("html", "md", "json") and rendering it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "qtune/reports/report_data.h"

namespace qtune::reports {

enum class ReportFormat { html, markdown, json };

std::optional<ReportFormat> parse_report_format(std::string_view name);  // "html", "md"/"markdown", "json"
std::string render_report(const ReportData& data, ReportFormat format);

}  // namespace qtune::reports
