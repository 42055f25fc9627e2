#include "report_charts.h"

#include <algorithm>

#include "config_knobs.h"
#include "qtune/reports/text_format.h"

namespace qtune::reports {

namespace {

// A stable colour per strategy name, so the same strategy looks the same in every chart.
std::string strategy_color(const std::string& strategy) {
  if (strategy == "model") return "#0072B2";
  if (strategy == "random") return "#D55E00";
  if (strategy == "grid") return "#009E73";
  if (strategy == "imported") return "#7F7F7F";
  return "#CC79A7";
}

}  // namespace

svg::BarChart layer_throughput_chart(const ReportData& data) {
  svg::BarChart chart;
  chart.title = "Throughput per layer: untuned default vs tuned best" +
                std::string(data.summary.onednn_vs_tuned ? " vs oneDNN" : "");
  chart.x_label = "layer (network order)";
  chart.y_label = "throughput (GOP/s)";
  chart.value_unit = "GOP/s";
  chart.min_width = 960;
  svg::BarSeries untuned{"untuned default", kUntunedColor, {}};
  svg::BarSeries tuned{"tuned best", kTunedColor, {}};
  svg::BarSeries onednn{"oneDNN", kOneDnnColor, {}};
  bool any_onednn = false;
  for (const auto& l : data.layers) {
    chart.categories.push_back(std::to_string(l.index) + ". " + l.name);
    chart.category_details.push_back(std::to_string(l.index) + ". " + l.name + " (" + l.description + ", x" +
                                     std::to_string(l.count) + ")");
    untuned.values.push_back(gops_of(l.untuned));
    tuned.values.push_back(gops_of(l.tuned));
    onednn.values.push_back(gops_of(l.onednn));
    any_onednn |= l.onednn.has_value();
  }
  chart.series = {untuned, tuned};
  if (any_onednn) chart.series.push_back(onednn);
  return chart;
}

std::vector<std::size_t> layers_by_time(const ReportData& data) {
  std::vector<std::size_t> order(data.layers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return data.layers[a].network_ns().value_or(-1) > data.layers[b].network_ns().value_or(-1);
  });
  return order;
}

svg::LineChart tuning_curve_chart(const LayerReport& layer) {
  svg::LineChart chart;
  chart.title = std::to_string(layer.index) + ". " + layer.name;
  chart.title_tooltip = chart.title + " \u2014 " + layer.workload_key;
  chart.x_label = "trial (measurements of this layer by the strategy)";
  chart.y_label = "best so far (GOP/s)";
  chart.steps = true;
  chart.integer_x = true;
  for (const auto& curve : layer.curves) {
    svg::LineSeries series{curve.strategy, strategy_color(curve.strategy), {}};
    for (const auto& p : curve.points) {
      if (p.best_gops) series.points.emplace_back(static_cast<double>(p.trial), *p.best_gops);
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

svg::HeatMap focus_heat_map(const ReportData& data) {
  const FocusLayer& f = *data.focus;
  const LayerReport& layer = data.layers[f.layer];
  svg::HeatMap map;
  map.title = "GOP/s by tile and instruction set, layer " + std::to_string(layer.index) + " (best over the other knobs)";
  map.x_label = "tile (rows x columns of the micro-kernel)";
  map.y_label = "isa";
  map.value_label = "GOP/s";
  map.columns = f.heat_map.tiles;
  map.rows = f.heat_map.isas;
  map.values = f.heat_map.gops;
  map.tooltips = f.heat_map.best_config;
  return map;
}

svg::BarChart fuse_pairs_chart(const ReportData& data) {
  const FocusLayer& f = *data.focus;
  svg::BarChart chart;
  chart.title = "Fused vs separate requantization, layer " + std::to_string(data.layers[f.layer].index) +
                ": configurations that differ only in fuse";
  chart.y_label = "throughput (GOP/s)";
  chart.value_unit = "GOP/s";
  chart.label_chars = 30;
  chart.min_width = 960;
  svg::BarSeries fused{"fused (fuse=1)", "#009E73", {}};
  svg::BarSeries separate{"separate (fuse=0)", "#CC79A7", {}};
  // Label each pair by the knobs that differ between pairs (every pair shares the rest, and the
  // axis has room for little); the tooltip has the whole configuration.
  std::vector<KnobValues> knobs;
  for (const auto& p : f.fuse.pairs) knobs.push_back(split_config_key(p.shared_config));
  auto varies = [&](const std::string& knob) {
    for (const auto& k : knobs) {
      if (knob_value(k, knob) != knob_value(knobs.front(), knob)) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < f.fuse.pairs.size(); ++i) {
    std::string label;
    for (const auto& [knob, value] : knobs[i]) {
      if (!varies(knob)) continue;
      if (!label.empty()) label += ';';
      label += knob + "=" + value;
    }
    chart.categories.push_back(label.empty() ? f.fuse.pairs[i].shared_config : label);
    chart.category_details.push_back(f.fuse.pairs[i].shared_config);
    fused.values.push_back(f.fuse.pairs[i].fused_gops);
    separate.values.push_back(f.fuse.pairs[i].separate_gops);
  }
  chart.x_label = "configuration (knobs that differ between pairs; hover for all), fastest first";
  chart.series = {fused, separate};
  return chart;
}

}  // namespace qtune::reports
