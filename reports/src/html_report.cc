#include "qtune/reports/html_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "html_assets.h"
#include "qtune/reports/summary_rows.h"
#include "qtune/reports/svg_bar_chart.h"
#include "qtune/reports/svg_heat_map.h"
#include "qtune/reports/svg_line_chart.h"
#include "qtune/reports/text_format.h"
#include "report_charts.h"
#include "svg_writer.h"

namespace qtune::reports {

namespace {

using svg::xml_escape;

std::string raw_number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// A table cell whose sort key is `sort_value` (a number, or text).
std::string td(const std::string& text, const std::string& sort_value, bool numeric, const std::string& title = "") {
  std::string out = "<td";
  if (numeric) out += " class=\"num\"";
  out += " data-value=\"" + xml_escape(sort_value) + "\"";
  if (!title.empty()) out += " title=\"" + xml_escape(title) + "\"";
  return out + ">" + text + "</td>";
}

std::string number_td(const std::string& text, std::optional<double> value) {
  return td(xml_escape(text), value ? raw_number(*value) : "", true);
}

void summary_section(std::ostream& out, const ReportData& data) {
  out << "<section id=\"summary\"><h2>Summary</h2><table class=\"summary\"><tbody>";
  for (const auto& [label, text] : summary_rows(data)) {
    out << "<tr><th>" << xml_escape(label) << "</th><td>" << xml_escape(text) << "</td></tr>";
  }
  out << "</tbody></table>";
  out << "<p class=\"note\">Untuned = each layer's first trial (its default configuration); tuned = its best "
         "configuration. A configuration's time is the median of its measurements (a session re-measures its "
         "leaders). Network times weigh each layer by its count.</p></section>\n";
}

void layers_section(std::ostream& out, const ReportData& data) {
  out << "<section id=\"layers\"><h2>Throughput per layer</h2>";
  out << "<p class=\"note\">" << data.layers.size()
      << " layers; the chart scrolls sideways when they do not fit. Hover a bar or label for the full name and value.</p>";
  out << "<div class=\"scroll\">" << svg::render_bar_chart(layer_throughput_chart(data)) << "</div></section>\n";
}

void curves_section(std::ostream& out, const ReportData& data, const HtmlOptions& options) {
  out << "<section id=\"curves\"><h2>Tuning curves</h2>";
  out << "<p class=\"note\">Best GOP/s found so far against the number of trials, per strategy; layers with the most "
         "network time first.</p>";
  std::vector<std::size_t> order;
  for (std::size_t i : layers_by_time(data)) {
    if (!data.layers[i].curves.empty()) order.push_back(i);
  }
  if (order.empty()) {
    out << "<p>No trials yet.</p></section>\n";
    return;
  }
  const std::size_t per_page = std::max<std::size_t>(options.curves_per_page, 1);
  for (std::size_t first = 0; first < order.size(); first += per_page) {
    const std::size_t last = std::min(first + per_page, order.size());
    if (first > 0) {
      out << "<details class=\"curve-page\"><summary>Layers ranked " << first + 1 << "\u2013" << last << " of "
          << order.size() << " by time</summary>";
    }
    out << "<div class=\"grid\">";
    for (std::size_t k = first; k < last; ++k) {
      out << "<div>" << svg::render_line_chart(tuning_curve_chart(data.layers[order[k]])) << "</div>";
    }
    out << "</div>";
    if (first > 0) out << "</details>";
  }
  out << "</section>\n";
}

void focus_section(std::ostream& out, const ReportData& data) {
  const FocusLayer& f = *data.focus;
  const LayerReport& layer = data.layers[f.layer];
  out << "<section id=\"focus\"><h2>Layer " << layer.index << ": " << xml_escape(layer.name) << "</h2>";
  out << "<p class=\"meta\">Chosen by " << xml_escape(f.chosen_by) << " (another layer: <code>--layer KEY|INDEX</code>). "
      << "<code>" << xml_escape(layer.workload_key) << "</code></p>";
  out << "<h3>Tile size x instruction set</h3>";
  if (f.heat_map.isas.empty()) {
    out << "<p>No correct measurement of this layer has isa and tile knobs.</p>";
  } else {
    out << "<div class=\"scroll\">" << svg::render_heat_map(focus_heat_map(data)) << "</div>";
  }
  if (f.heat_map.configs_without_tile > 0) {
    out << "<p class=\"note\">" << f.heat_map.configs_without_tile
        << " correct configurations have no tile knob and are not in the heat map.</p>";
  }
  out << "<h3>Fused vs separate requantization</h3>";
  if (f.fuse.total_pairs == 0) {
    out << "<p>No pair of measured configurations differs only in <code>fuse</code>.</p></section>\n";
    return;
  }
  out << "<p>" << f.fuse.total_pairs << " pairs of configurations that differ only in <code>fuse</code>: fused is faster in "
      << f.fuse.fused_faster << "; median fused / separate throughput " << format_speedup(f.fuse.median_ratio) << ".";
  if (f.fuse.pairs.size() < f.fuse.total_pairs)
    out << " The chart shows the " << f.fuse.pairs.size() << " fastest pairs.";
  out << "</p><div class=\"scroll\">" << svg::render_bar_chart(fuse_pairs_chart(data)) << "</div></section>\n";
}

void table_section(std::ostream& out, const ReportData& data) {
  out << "<section id=\"configs\"><h2>Best configurations</h2>";
  out << "<p class=\"note\">Click a column header to sort.</p><div class=\"scroll\">";
  out << "<table class=\"sortable\" id=\"best-configs\"><thead><tr>";
  const char* headers[][2] = {{"#", "num"},        {"layer", ""},           {"count", "num"},     {"trials", "num"},
                              {"failures", "num"}, {"untuned GOP/s", "num"}, {"tuned GOP/s", "num"}, {"speedup", "num"},
                              {"oneDNN GOP/s", "num"}, {"time share", "num"}, {"best configuration", ""},
                              {"found by", ""},     {"won by", ""}};
  for (const auto& h : headers) out << "<th" << (h[1][0] ? " class=\"num\"" : "") << ">" << h[0] << "</th>";
  out << "</tr></thead><tbody>";
  const double total = total_network_ns(data);
  for (const auto& l : data.layers) {
    const auto ns = l.network_ns();
    const std::optional<double> share = ns && total > 0 ? std::optional<double>(*ns / total) : std::nullopt;
    out << "<tr>" << td(std::to_string(l.index), std::to_string(l.index), true)
        << td(xml_escape(l.name), l.name, false, l.workload_key) << number_td(std::to_string(l.count), l.count)
        << number_td(std::to_string(l.trials), static_cast<double>(l.trials))
        << number_td(std::to_string(l.failures), static_cast<double>(l.failures))
        << number_td(format_gops(gops_of(l.untuned)), gops_of(l.untuned))
        << number_td(format_gops(gops_of(l.tuned)), gops_of(l.tuned)) << number_td(format_speedup(l.speedup()), l.speedup())
        << number_td(format_gops(gops_of(l.onednn)), gops_of(l.onednn))
        << number_td(share ? format_percent(*share) : "-", share)
        << td(l.tuned ? "<code>" + xml_escape(l.tuned->config_key) + "</code>" : "-", l.tuned ? l.tuned->config_key : "", false)
        << td(xml_escape(l.tuned_strategy.empty() ? "-" : l.tuned_strategy), l.tuned_strategy, false)
        << td(xml_escape(format_kind_margin(l.kinds)), l.kinds ? l.kinds->winner.kind : "", false) << "</tr>";
  }
  out << "</tbody></table></div></section>\n";
}

void sessions_section(std::ostream& out, const ReportData& data) {
  out << "<section id=\"sessions\"><h2>Sessions</h2>";
  if (data.sessions.empty()) {
    out << "<p>No tuning session measured these layers (imported results only).</p></section>\n";
    return;
  }
  out << "<table><thead><tr><th class=\"num\">session</th><th>strategy</th><th>status</th><th>started</th><th>ended</th>"
         "<th class=\"num\">trials</th><th class=\"num\">failures</th></tr></thead><tbody>";
  for (const auto& s : data.sessions) {
    out << "<tr><td class=\"num\">" << s.id << "</td><td>" << xml_escape(s.strategy) << "</td><td>" << xml_escape(s.status)
        << "</td><td>" << xml_escape(s.started_at) << "</td><td>" << xml_escape(s.ended_at) << "</td><td class=\"num\">"
        << s.trials << "</td><td class=\"num\">" << s.failures << "</td></tr>";
  }
  out << "</tbody></table></section>\n";
}

}  // namespace

std::string render_html(const ReportData& data, const HtmlOptions& options) {
  std::ostringstream out;
  const std::string subject = report_subject(data);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>qtune report: " << xml_escape(subject) << "</title>\n<style>" << report_stylesheet() << "</style>\n"
      << "</head>\n<body>\n<header><h1>qtune report: " << xml_escape(subject) << "</h1>";
  out << "<p class=\"meta\">Database <code>" << xml_escape(data.database) << "</code>";
  if (!data.workloads_origin.empty()) out << ", layers from <code>" << xml_escape(data.workloads_origin) << "</code>";
  out << ", target <code>" << xml_escape(data.target_key) << "</code>. Generated " << xml_escape(data.generated_at)
      << " by qtune " << xml_escape(data.qtune_version) << ".</p>";
  if (!data.other_targets.empty()) {
    out << "<p class=\"note\">The database also holds " << data.other_targets.size()
        << " other target(s); choose one with <code>--target</code>.</p>";
  }
  out << "</header>\n";
  summary_section(out, data);
  layers_section(out, data);
  curves_section(out, data, options);
  if (data.focus) focus_section(out, data);
  table_section(out, data);
  sessions_section(out, data);
  out << "<footer>qtune " << xml_escape(data.qtune_version)
      << " \u2014 self-contained report: no network access needed.</footer>\n";
  out << "<script>" << table_sort_script() << "</script>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace qtune::reports
