// search_space's key parsers as records::KeyValidators: the bridge that lets records (which knows
// nothing of knobs) check logs and databases. A workload, target or configuration key that does
// not parse, or is not in canonical form, is reported as a problem of its line or row. A
// configuration key written before a knob existed is canonical when it is the canonical key minus
// that knob; the validator returns the key with the knob's default spelled out. Used by the
// runtime's loaders and by `qtune import` / `qtune tune` / `qtune export`.
#pragma once

#include "qtune/records/key_validators.h"

namespace qtune::runtime {

records::KeyValidators search_space_validators();

}  // namespace qtune::runtime
