// qtune's own kernels against the libraries (algo=onednn, ...), per layer: which kind of candidate
// a configuration is, and which kind won the layer's tuning by how much over the best of another
// kind. Read from configuration keys as stored, so that keys of any qtune version count.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qtune/records/measurement.h"

namespace qtune::reports {

// "qtune" for qtune's kernels, else the library's name ("onednn"): a key whose `algo` knob names
// a library qtune knows (libraries::known_libraries()).
std::string candidate_kind(const std::string& config_key);

// A kind's best configuration among a layer's measurements (records' definition of the best).
struct KindBest {
  std::string kind;
  std::string config_key;
  double median_ns = 0;
};

struct KindMargin {
  KindBest winner;     // the kind of the layer's best configuration
  KindBest runner_up;  // the fastest other kind
  // How much faster the winner is than the best of the other kind (>= 1).
  double margin() const { return winner.median_ns > 0 ? runner_up.median_ns / winner.median_ns : 0; }
};

// From one layer's measurements on one target: nullopt unless correct measurements of at least
// two kinds (qtune's kernels and a library) exist.
std::optional<KindMargin> kind_margin(const std::vector<records::MeasurementRecord>& layer_measurements);

// "onednn 1.31x": the winner and its margin, "-" without a margin.
std::string format_kind_margin(const std::optional<KindMargin>& margin);

}  // namespace qtune::reports
