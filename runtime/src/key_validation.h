// Key checks for records' log reader, built from search_space: a log line whose workload, target
// or configuration key does not parse is reported as a problem of that line. Internal.
#pragma once

#include "qtune/records/key_validators.h"

namespace qtune::runtime::detail {

records::KeyValidators search_space_validators();

}  // namespace qtune::runtime::detail
