// The arena of a compiled model: a buffer per slot that owns its bytes, an output taking over the
// buffer of an input that dies at an elementwise step, and the buffers placed by plan_arena.
#include <algorithm>

#include "arena_plan.h"
#include "compiled_model.h"

namespace qtune::executor {

void plan_buffers(ModelExecutor::Compiled& c) {
  const std::size_t steps = c.steps.size();
  const auto root = [&](int slot) {
    while (c.slots[static_cast<std::size_t>(slot)].view_of >= 0) slot = c.slots[static_cast<std::size_t>(slot)].view_of;
    return slot;
  };
  // The last step reading each root slot (a view's readers read its root); outputs live to the end.
  std::vector<std::size_t> last_read(c.slots.size(), 0);
  std::vector<bool> pinned(c.slots.size(), false);
  for (std::size_t s = 0; s < steps; ++s) {
    for (const int r : c.steps[s].reads) last_read[static_cast<std::size_t>(root(r))] = s;
  }
  for (const int out : c.output_slots) pinned[static_cast<std::size_t>(root(out))] = true;

  std::vector<BufferLifetime> buffers;
  for (std::size_t s = 0; s < steps; ++s) {
    Step& step = c.steps[s];
    Slot& out = c.slots[static_cast<std::size_t>(step.write)];
    for (const int r : step.may_write_over) {
      const int source = root(r);
      const Slot& in = c.slots[static_cast<std::size_t>(source)];
      if (in.graph_input >= 0 || in.buffer < 0 || pinned[static_cast<std::size_t>(source)] || in.bytes != out.bytes ||
          last_read[static_cast<std::size_t>(source)] != s)
        continue;
      out.buffer = in.buffer;
      ++c.report.in_place_steps;
      break;
    }
    if (out.buffer < 0) {
      out.buffer = static_cast<int>(buffers.size());
      buffers.push_back({out.bytes, s, s});
    }
    if (step.scratch_bytes > 0) {
      step.scratch_buffer = static_cast<int>(buffers.size());
      buffers.push_back({step.scratch_bytes, s, s});
      c.report.scratch_bytes = std::max(c.report.scratch_bytes, step.scratch_bytes);
      c.report.all_tensor_bytes += step.scratch_bytes;
    }
  }
  // Each buffer lives from its first write to the last read of any slot in it.
  for (std::size_t i = 0; i < c.slots.size(); ++i) {
    const Slot& slot = c.slots[i];
    if (slot.view_of >= 0) ++c.report.views;
    if (slot.buffer < 0) continue;
    BufferLifetime& b = buffers[static_cast<std::size_t>(slot.buffer)];
    b.last_step = std::max(b.last_step, pinned[i] ? steps : last_read[i]);
  }
  const ArenaPlan plan = plan_arena(buffers);
  c.buffer_offsets = plan.offsets;
  c.report.arena_bytes = plan.arena_bytes;
  c.report.peak_live_bytes = plan.peak_live_bytes;
  for (const Slot& slot : c.slots) {
    if (slot.graph_input < 0 && slot.view_of < 0) c.report.all_tensor_bytes += slot.bytes;
  }
  c.arena_storage.assign(plan.arena_bytes + 64, 0);
}

}  // namespace qtune::executor
