// The report as ONE self-contained HTML page: inline CSS, inline SVG charts, a few lines of inline
// JavaScript to sort the table; nothing is fetched from the network (no CDN, no web fonts).
#pragma once

#include <cstddef>
#include <string>

#include "qtune/reports/report_data.h"

namespace qtune::reports {

struct HtmlOptions {
  std::size_t curves_per_page = 12;  // tuning curves shown at once; further pages fold away
};

std::string render_html(const ReportData& data, const HtmlOptions& options = {});

}  // namespace qtune::reports
