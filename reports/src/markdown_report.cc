#include "qtune/reports/markdown_report.h"

#include <sstream>

#include "qtune/reports/summary_rows.h"
#include "qtune/reports/text_format.h"

namespace qtune::reports {

namespace {

// A table cell: pipes escaped and line breaks flattened, so the row stays one row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(const std::string& text) {
  if (text.empty()) return "-";
  // Appended rather than "`" + ... + "`": GCC 12 warns falsely (-Wrestrict) on that expression.
  std::string out(1, '`');
  out.append(cell(text)).push_back('`');
  return out;
}

void row(std::ostream& out, const std::vector<std::string>& cells) {
  out << "|";
  for (const auto& c : cells) out << " " << c << " |";
  out << "\n";
}

void header(std::ostream& out, const std::vector<std::string>& names, const std::vector<bool>& numeric) {
  row(out, names);
  out << "|";
  for (std::size_t i = 0; i < names.size(); ++i) out << (i < numeric.size() && numeric[i] ? "---:|" : "---|");
  out << "\n";
}

void focus_section(std::ostream& out, const ReportData& data) {
  const FocusLayer& f = *data.focus;
  const LayerReport& layer = data.layers[f.layer];
  out << "\n## Layer " << layer.index << ": " << cell(layer.name) << " (chosen by " << f.chosen_by << ")\n\n";
  out << "`" << cell(layer.workload_key) << "`\n\n";
  out << "### GOP/s by instruction set and tile (best over the other knobs)\n\n";
  if (f.heat_map.isas.empty()) {
    out << "No correct measurement with isa and tile knobs.\n";
  } else {
    std::vector<std::string> names{"isa \\ tile"};
    std::vector<bool> numeric{false};
    for (const auto& t : f.heat_map.tiles) {
      names.push_back(cell(t));
      numeric.push_back(true);
    }
    header(out, names, numeric);
    for (std::size_t r = 0; r < f.heat_map.isas.size(); ++r) {
      std::vector<std::string> cells{cell(f.heat_map.isas[r])};
      for (const auto& v : f.heat_map.gops[r]) cells.push_back(format_gops(v));
      row(out, cells);
    }
  }
  if (f.heat_map.configs_without_tile > 0)
    out << "\n" << f.heat_map.configs_without_tile << " correct configurations have no tile knob (not in the table).\n";

  out << "\n### Fused vs separate requantization\n\n";
  if (f.fuse.total_pairs == 0) {
    out << "No pair of measured configurations differs only in `fuse`.\n";
    return;
  }
  out << f.fuse.total_pairs << " pairs of configurations that differ only in `fuse`; fused is faster in "
      << f.fuse.fused_faster << "; median fused / separate throughput " << format_speedup(f.fuse.median_ratio) << ".\n\n";
  header(out, {"configuration (without fuse)", "fused GOP/s", "separate GOP/s", "fused / separate"}, {false, true, true, true});
  for (const auto& p : f.fuse.pairs) {
    row(out, {code(p.shared_config), format_gops(p.fused_gops), format_gops(p.separate_gops),
              format_speedup(p.fused_gops / p.separate_gops)});
  }
  if (f.fuse.pairs.size() < f.fuse.total_pairs)
    out << "\n(the " << f.fuse.pairs.size() << " fastest pairs of " << f.fuse.total_pairs << ")\n";
}

}  // namespace

std::string render_markdown(const ReportData& data) {
  std::ostringstream out;
  out << "# qtune report: " << cell(report_subject(data)) << "\n\n";
  out << "Database `" << cell(data.database) << "`, target `" << cell(data.target_key) << "`, generated "
      << data.generated_at << " by qtune " << data.qtune_version << ".\n";
  if (!data.other_targets.empty())
    out << "The database also holds " << data.other_targets.size() << " other target(s); choose with `--target`.\n";

  out << "\n## Summary\n\n";
  header(out, {"", ""}, {false, false});
  for (const auto& [label, text] : summary_rows(data)) row(out, {cell(label), cell(text)});

  out << "\n## Layers\n\n";
  const double total = total_network_ns(data);
  header(out,
         {"#", "layer", "count", "trials", "failures", "untuned GOP/s", "tuned GOP/s", "speedup", "oneDNN GOP/s",
          "time share", "best configuration", "found by", "won by"},
         {true, false, true, true, true, true, true, true, true, true, false, false, false});
  for (const auto& l : data.layers) {
    const auto ns = l.network_ns();
    row(out, {std::to_string(l.index), cell(l.name), std::to_string(l.count), std::to_string(l.trials),
              std::to_string(l.failures), format_gops(gops_of(l.untuned)), format_gops(gops_of(l.tuned)),
              format_speedup(l.speedup()), format_gops(gops_of(l.onednn)),
              ns && total > 0 ? format_percent(*ns / total) : "-", code(l.tuned ? l.tuned->config_key : ""),
              l.tuned_strategy.empty() ? "-" : cell(l.tuned_strategy), cell(format_kind_margin(l.kinds))});
  }

  if (data.focus) focus_section(out, data);

  out << "\n## Sessions\n\n";
  if (data.sessions.empty()) {
    out << "No tuning session measured these layers (imported results only).\n";
  } else {
    header(out, {"session", "strategy", "status", "started", "trials", "failures"}, {true, false, false, false, true, true});
    for (const auto& s : data.sessions) {
      row(out, {std::to_string(s.id), cell(s.strategy), s.status, s.started_at, std::to_string(s.trials),
                std::to_string(s.failures)});
    }
  }
  return out.str();
}

}  // namespace qtune::reports
