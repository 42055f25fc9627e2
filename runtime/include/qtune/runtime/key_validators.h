// search_space's key parsers as records::KeyValidators: the bridge that lets records (which knows
// nothing of knobs) check logs and databases. A workload, target or configuration key that does
// not parse, or is not in canonical form, is reported as a problem of its line or row. Used by the
// runtime's log loader and by `qtune import` / `qtune tune`.
#pragma once

#include "qtune/records/key_validators.h"

namespace qtune::runtime {

records::KeyValidators search_space_validators();

}  // namespace qtune::runtime
