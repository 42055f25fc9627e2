#include "qtune/evaluation/placement_timing.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace qtune::evaluation {

PlacementShare share_among_placements(int repetitions, int max_placements) {
  const int placements = std::clamp(repetitions, 1, std::max(1, max_placements));
  return {placements, std::max(1, (repetitions + placements - 1) / placements)};
}

std::vector<CaseTiming> time_at_placements(const std::function<std::vector<TimedCase>()>& place, int repetitions,
                                           unsigned seed, int threads, CacheState cache, int max_placements) {
  const PlacementShare share = share_among_placements(repetitions, max_placements);
  // Every placement is made first, then all their cases are timed as one interleaved set, so that
  // with several threads each runtime has its few turns per layer (time_interleaved_samples), not
  // one per placement: a turn per placement put two repetitions after every pause, on a core the
  // pause had let slow down, and `qtune run --threads 2` timed MobileNetV2 at 2-4 times its time.
  std::vector<TimedCase> all;  // placement by placement; holds every placement until the end
  std::size_t per_placement = 0;
  for (int i = 0; i < share.placements; ++i) {
    std::vector<TimedCase> cases = place();
    if (i == 0) per_placement = cases.size();
    if (cases.size() != per_placement) throw std::logic_error("time_at_placements: placements differ in their cases");
    all.insert(all.end(), std::make_move_iterator(cases.begin()), std::make_move_iterator(cases.end()));
  }
  const auto samples = time_interleaved_samples(all, share.repetitions_each, seed, threads, cache);
  std::vector<std::vector<double>> pooled(per_placement);
  for (std::size_t c = 0; c < samples.size(); ++c) {
    pooled[c % per_placement].insert(pooled[c % per_placement].end(), samples[c].begin(), samples[c].end());
  }
  std::vector<CaseTiming> out;
  for (auto& pool : pooled) out.push_back(case_timing(std::move(pool)));
  return out;
}

}  // namespace qtune::evaluation
