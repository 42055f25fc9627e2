#include "qtune/tuner/progress_printer.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "qtune/measure/number_text.h"

namespace qtune {
namespace {

std::string best_text(const LayerStatus& layer) {
  if (!layer.best_gops) return "best -";
  std::string s = "best " + fixed(*layer.best_gops, 1) + " GOP/s";
  if (auto speedup = layer.speedup()) s += " (" + fixed(*speedup, 2) + "x default)";
  return s;
}

std::string eta_text(const SessionProgress& p) {
  std::string s = "elapsed " + format_duration(p.elapsed_seconds);
  if (p.eta_seconds) s += ", ETA " + format_duration(*p.eta_seconds);
  return s;
}

}  // namespace

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long long s = std::llround(seconds);
  char buffer[32];
  if (s < 60) {
    std::snprintf(buffer, sizeof buffer, "%llds", s);
  } else if (s < 3600) {
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  }
  return buffer;
}

ProgressPrinter::ProgressPrinter(std::ostream& out, ProgressStyle style) : out_(out), style_(style) {}

void ProgressPrinter::on_start(const SessionProgress& p) {
  if (style_ == ProgressStyle::quiet) return;
  const auto& layers = *p.layers;
  std::size_t already = 0, open = 0;
  for (const auto& layer : layers) {
    already += layer.trials;
    open += layer.finished.empty() ? 1 : 0;
  }
  out_ << "tuning " << layers.size() << " distinct layer" << (layers.size() == 1 ? "" : "s") << " (" << open
       << " to search), up to " << p.trials_planned << " new trials";
  if (already > 0) out_ << "; " << already << " measurements already in the database are reused";
  out_ << "\n";
  out_.flush();
}

void ProgressPrinter::on_trial(const SessionProgress& p, const MeasureResult& result) {
  if (style_ == ProgressStyle::quiet || !p.current) return;
  const auto& layers = *p.layers;
  const std::size_t i = *p.current;
  const LayerStatus& layer = layers[i];
  std::ostringstream head;
  head << "layer " << i + 1 << "/" << layers.size() << " " << layer.name << ": trial " << layer.trials << "/"
       << layer.budget;
  if (style_ == ProgressStyle::terminal) {
    out_ << "\r\033[K" << head.str() << ", " << best_text(layer) << " | total " << p.trials_done << "/"
         << p.trials_planned << ", " << eta_text(p);
    out_.flush();
    line_open_ = true;
    return;
  }
  out_ << "[" << p.trials_done << "/" << p.trials_planned << " " << format_duration(p.elapsed_seconds) << "] "
       << head.str() << " " << result.config_key << " -> ";
  if (result.ok()) {
    out_ << fixed(result.gops, 1) << " GOP/s";
  } else {
    out_ << to_string(result.error) << (result.error_message.empty() ? "" : ": " + result.error_message);
  }
  out_ << "; " << best_text(layer) << "\n";
  out_.flush();
}

void ProgressPrinter::on_confirm(const SessionProgress& p, const MeasureResult& result) {
  if (style_ == ProgressStyle::quiet || !p.current) return;
  const auto& layers = *p.layers;
  const std::size_t i = *p.current;
  std::ostringstream head;
  head << "layer " << i + 1 << "/" << layers.size() << " " << layers[i].name << ": confirming the leaders";
  if (style_ == ProgressStyle::terminal) {
    out_ << "\r\033[K" << head.str() << ", " << best_text(layers[i]) << " | " << eta_text(p);
    out_.flush();
    line_open_ = true;
    return;
  }
  out_ << "[confirm " << format_duration(p.elapsed_seconds) << "] " << head.str() << " " << result.config_key << " -> ";
  if (result.ok()) {
    out_ << fixed(result.gops, 1) << " GOP/s";
  } else {
    out_ << to_string(result.error) << (result.error_message.empty() ? "" : ": " + result.error_message);
  }
  out_ << "; " << best_text(layers[i]) << "\n";
  out_.flush();
}

void ProgressPrinter::on_end(const SessionProgress& p, SessionEnd end) {
  if (line_open_) out_ << "\r\033[K";
  line_open_ = false;
  if (style_ == ProgressStyle::quiet) return;
  out_ << "session " << to_string(end) << " after " << p.trials_done << " new trial" << (p.trials_done == 1 ? "" : "s")
       << " in " << format_duration(p.elapsed_seconds) << "\n";
  out_.flush();
}

}  // namespace qtune
