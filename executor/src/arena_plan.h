// Where each activation lives in the executor's one arena: buffers placed by size, largest first,
// at the lowest offset that overlaps no buffer whose lifetime (first write to last read, in step
// order) intersects its own. Buffers live whole steps, so two that meet at a step never share bytes.
#pragma once

#include <cstddef>
#include <vector>

namespace qtune::executor {

struct BufferLifetime {
  std::size_t bytes = 0;
  std::size_t first_step = 0, last_step = 0;  // inclusive
};

struct ArenaPlan {
  std::vector<std::size_t> offsets;  // per buffer, multiples of `alignment`
  std::size_t arena_bytes = 0;
  std::size_t peak_live_bytes = 0;   // the largest sum of the buffers live at one step
};

ArenaPlan plan_arena(const std::vector<BufferLifetime>& buffers, std::size_t alignment = 64);

}  // namespace qtune::executor
