// Shows a session's progress: on a terminal one status line updated in place (layer i/N, trials
// done/target, best GOP/s and speedup over the default, elapsed, ETA); elsewhere one plain log line
// per trial; nothing at all when quiet (the summary is printed by the caller).
#pragma once

#include <iosfwd>
#include <string>

#include "qtune/tuner/session.h"

namespace qtune {

enum class ProgressStyle { terminal, lines, quiet };

class ProgressPrinter final : public SessionObserver {
 public:
  ProgressPrinter(std::ostream& out, ProgressStyle style);

  void on_start(const SessionProgress& progress) override;
  void on_trial(const SessionProgress& progress, const MeasureResult& result) override;
  void on_confirm(const SessionProgress& progress, const MeasureResult& result) override;
  void on_end(const SessionProgress& progress, SessionEnd end) override;

 private:
  std::ostream& out_;
  ProgressStyle style_;
  bool line_open_ = false;  // terminal: a status line is showing and must be cleared
};

// "45s", "3m07s", "1h02m".
std::string format_duration(double seconds);

}  // namespace qtune
