#include "platform/amx_model_switch.h"

#include <atomic>

namespace qtune::detail::amx_model {
namespace {

std::atomic<bool> model_active{false};

}  // namespace

void set_active(bool active) { model_active.store(active); }
bool active() { return model_active.load(std::memory_order_relaxed); }

}  // namespace qtune::detail::amx_model
