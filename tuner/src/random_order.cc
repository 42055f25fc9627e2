#include "qtune/tuner/random_order.h"

#include <algorithm>

namespace qtune {

RandomOrder::RandomOrder(const KnobSpace& space, std::uint64_t seed)
    : space_(space), rng_(seed), shuffled_mode_(space.size() <= kShuffleLimit) {
  if (shuffled_mode_) {
    shuffled_ = space_.enumerate();
    // Fisher-Yates with our own index draws: std::shuffle's use of the engine is
    // implementation-defined, and the order must be reproducible across standard libraries.
    for (std::size_t i = shuffled_.size(); i > 1; --i) {
      const std::size_t j = static_cast<std::size_t>(rng_() % i);
      std::swap(shuffled_[i - 1], shuffled_[j]);
    }
  }
}

std::optional<Config> RandomOrder::next(const std::function<bool(const Config&)>& skip) {
  if (shuffled_mode_) {
    while (next_ < shuffled_.size()) {
      const Config& candidate = shuffled_[next_++];
      if (!skip(candidate)) return candidate;
    }
    return std::nullopt;
  }
  // A space this large is never close to exhausted by tuning; a long run of rejections means the
  // caller's filter rejects (nearly) everything, so give up instead of spinning.
  constexpr int kMaxConsecutiveRejections = 100000;
  for (int attempt = 0; attempt < kMaxConsecutiveRejections; ++attempt) {
    Config candidate = space_.sample(rng_);
    if (drawn_.count(candidate.key()) || skip(candidate)) continue;
    drawn_.insert(candidate.key());
    return candidate;
  }
  return std::nullopt;
}

}  // namespace qtune
