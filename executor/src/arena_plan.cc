#include "arena_plan.h"

#include <algorithm>
#include <numeric>

namespace qtune::executor {

ArenaPlan plan_arena(const std::vector<BufferLifetime>& buffers, std::size_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  const auto aligned = [&](std::size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; };
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return buffers[a].bytes > buffers[b].bytes; });
  std::vector<std::size_t> placed;
  for (const std::size_t index : order) {
    const BufferLifetime& buffer = buffers[index];
    // The placed buffers that are live with this one, by offset: take the first gap that fits.
    std::vector<std::pair<std::size_t, std::size_t>> busy;  // [begin, end)
    for (const std::size_t other : placed) {
      const BufferLifetime& o = buffers[other];
      if (o.first_step <= buffer.last_step && buffer.first_step <= o.last_step)
        busy.emplace_back(plan.offsets[other], plan.offsets[other] + aligned(o.bytes));
    }
    std::sort(busy.begin(), busy.end());
    std::size_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + aligned(buffer.bytes) <= begin) break;
      offset = std::max(offset, end);
    }
    plan.offsets[index] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + aligned(buffer.bytes));
    placed.push_back(index);
  }
  std::size_t steps = 0;
  for (const auto& b : buffers) steps = std::max(steps, b.last_step + 1);
  for (std::size_t step = 0; step < steps; ++step) {
    std::size_t live = 0;
    for (const auto& b : buffers) {
      if (b.first_step <= step && step <= b.last_step) live += b.bytes;
    }
    plan.peak_live_bytes = std::max(plan.peak_live_bytes, live);
  }
  return plan;
}

}  // namespace qtune::executor
