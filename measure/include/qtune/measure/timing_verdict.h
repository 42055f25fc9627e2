// Comparing two timings: whether one case is faster, slower or the same as another, by a rule
// shared by every table that says so (`qtune run` per layer, its totals and its onnxruntime line,
// `qtune bench` against its peers, `qtune report` on stored runs): docs/measurement-protocol.md
// "Verdicts".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace qtune {

// A case's timings summarized: median and quartiles of its per-call (or per-repetition) times.
struct CaseTiming {
  double median_ns = 0;
  double low_ns = 0, high_ns = 0;  // first and third quartile of the per-call times
  int repetitions = 0;
};

// Median and quartiles of timings (one sample per repetition).
CaseTiming case_timing(std::vector<double> samples_ns);

// The smallest difference of medians that counts as an effect, whatever the spread: a share of the
// slower median. Below it, differences come and go between runs of one database (the interleaved
// quartiles of one run do not see what moves from run to run: the data's placement in memory, the
// machine's clock, what else the host runs), so a verdict there would not repeat. 5%: eight runs of
// one MobileNetV2 database moved a layer's tuned/default ratio by up to +-4% (docs/measurement-
// protocol.md "Verdicts").
inline constexpr double kMinimumEffect = 0.05;

// The difference of medians (as a share of the faster one) that `candidate` and `baseline` must
// exceed to differ: the larger of kMinimumEffect and each case's interquartile range as a share of
// its median (a wide spread needs a wide margin).
double minimum_effect(const CaseTiming& candidate, const CaseTiming& baseline);

// Whether a verdict on `candidate` against `baseline` from this sample is the most likely not to
// repeat in the next run: their medians differ by between half and twice their minimum effect (a
// true difference near the floor lands on either side of it), or a case's spread is wider than the
// floor (the minimum effect then comes from this sample's noise). Callers that can time more judge
// such pairs on a larger sample (kCloseCallRepetitions times the repetitions).
bool close_call(const CaseTiming& candidate, const CaseTiming& baseline);
inline constexpr int kCloseCallRepetitions = 3;

// "faster", "slower" or "same": `candidate` against `baseline`. Different only when their
// interquartile ranges do not overlap AND their medians differ by more than minimum_effect();
// "-" when either has fewer than three repetitions (no spread measured) or no positive median.
std::string verdict(const CaseTiming& candidate, const CaseTiming& baseline);

// The verdict of `candidate` against `baseline` where an earlier comparison of the same two is on
// record (`recorded_ratio`: the baseline's time over the candidate's there, e.g. the tuning
// database's interleaved confirmation of a layer's best and default configurations): the recorded
// verdict (its ratio against the minimum effect, kMinimumEffect) stands while this sample agrees
// with it, that is, for "faster" while the candidate is still more than half the floor faster
// here, for "same" while the two are less than twice the floor apart, for "slower" likewise; where
// this sample disagrees, or nothing is on record, this sample's verdict(). A margin near the floor
// then gets one verdict in every run instead of whichever side of the floor each run's sample
// lands on, while a run that measures something else than the record still says so.
std::string anchored_verdict(const CaseTiming& candidate, const CaseTiming& baseline,
                             std::optional<double> recorded_ratio);

}  // namespace qtune
