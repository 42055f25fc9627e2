#include "qtune/reports/report_format.h"

#include "qtune/reports/html_report.h"
#include "qtune/reports/json_report.h"
#include "qtune/reports/markdown_report.h"

namespace qtune::reports {

std::optional<ReportFormat> parse_report_format(std::string_view name) {
  if (name == "html") return ReportFormat::html;
  if (name == "md" || name == "markdown") return ReportFormat::markdown;
  if (name == "json") return ReportFormat::json;
  return std::nullopt;
}

std::string render_report(const ReportData& data, ReportFormat format) {
  switch (format) {
    case ReportFormat::html: return render_html(data);
    case ReportFormat::markdown: return render_markdown(data);
    case ReportFormat::json: return render_json(data);
  }
  return render_html(data);
}

}  // namespace qtune::reports
