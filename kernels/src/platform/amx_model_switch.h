// Whether the AMX kernels of this process run over the portable model of the tile instructions
// (x86/amx_model/) instead of the instructions themselves. Tests turn it on; instruction set amx
// is then usable wherever AVX-512 is. The switch sits here, beneath the model, because CPU
// detection (cpu_features.cc) reads it and must not depend on the kernels above it.
#pragma once

namespace qtune::detail::amx_model {

void set_active(bool active);
bool active();

}  // namespace qtune::detail::amx_model
