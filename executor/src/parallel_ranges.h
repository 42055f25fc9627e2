// An operation's work split into ranges for the thread budget, on the kernels' pool (the same
// warm workers the convolutions use).
#pragma once

#include <algorithm>
#include <cstddef>

#include "qtune/kernels/parallel.h"

namespace qtune::executor {

// fn(begin, end) over [0, count) in pieces of at least `grain` items, on up to `threads` threads.
template <typename F>
void parallel_ranges(std::size_t count, std::size_t grain, int threads, const F& fn) {
  const std::size_t most = static_cast<std::size_t>(std::max(threads, 1)) * 4;
  const std::size_t pieces = std::max<std::size_t>(1, std::min(most, count / std::max<std::size_t>(grain, 1)));
  if (pieces == 1 || threads <= 1) {
    fn(std::size_t{0}, count);
    return;
  }
  parallel_for(pieces, threads, [&](std::size_t piece, int) {
    fn(count * piece / pieces, count * (piece + 1) / pieces);
  });
}

// fn(begin, end, thread) over [0, count) in one range per thread (at least `grain` items each), for
// work that keeps per-thread scratch (`thread` is below max(threads, 1)) and pays a start-up cost
// per range.
template <typename F>
void parallel_ranges_per_thread(std::size_t count, std::size_t grain, int threads, const F& fn) {
  const std::size_t pieces = std::max<std::size_t>(
      1, std::min(static_cast<std::size_t>(std::max(threads, 1)), count / std::max<std::size_t>(grain, 1)));
  if (pieces == 1) {
    fn(std::size_t{0}, count, 0);
    return;
  }
  parallel_for(pieces, threads, [&](std::size_t piece, int thread) {
    fn(count * piece / pieces, count * (piece + 1) / pieces, thread);
  });
}

}  // namespace qtune::executor
