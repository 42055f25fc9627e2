// Transfer between shapes: a new layer's search starts from what is already known about similar
// layers on the same target. Their measurements warm-start the cost model (the shape features let
// it tell shapes apart), and their best configurations, adapted to the new layer's space, are the
// first candidates measured.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"
#include "qtune/tuner/cost_model.h"
#include "qtune/tuner/trial_history.h"

namespace qtune {

struct PriorMeasurement {
  Workload workload;
  Config config;
  std::optional<double> gops;  // nullopt: failed
};

struct SimilarWorkload {
  Workload workload;
  double distance = 0;  // shape_distance to the workload being tuned
  std::vector<Observation> observations;
};

// Groups `measurements` by workload and returns up to `limit` workloads of the same operator as
// `workload` (never `workload` itself) that have at least one success, nearest shape first.
std::vector<SimilarWorkload> similar_workloads(const Workload& workload,
                                               const std::vector<PriorMeasurement>& measurements, std::size_t limit);

// The valid configuration of `space` closest to `foreign` (a configuration tuned for another
// shape): knob by knob, equal values cost nothing, numeric values cost their log2 distance, other
// values cost 1. nullopt only for an empty space.
std::optional<Config> adapt_config(const KnobSpace& space, const Config& foreign);

// The best configurations of `similar` (nearest workload first, up to `per_workload` each),
// adapted to `space`, without duplicates.
std::vector<Config> transfer_candidates(const KnobSpace& space, const std::vector<SimilarWorkload>& similar,
                                        std::size_t per_workload = 1);

// Adds the measurements of `similar` to the model as priors, nearer shapes weighing more (at most
// `max_weight`, which keeps the task's own measurements dominant once there are some).
void add_transfer_priors(CostModel& model, const std::vector<SimilarWorkload>& similar, double max_weight = 0.5);

}  // namespace qtune
