// The report as Markdown tables (no pictures) for a CI job log or a pull-request comment.
#pragma once

#include <string>

#include "qtune/reports/report_data.h"

namespace qtune::reports {

std::string render_markdown(const ReportData& data);

}  // namespace qtune::reports
