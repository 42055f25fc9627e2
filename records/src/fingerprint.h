// Content fingerprints: the identity of a measurement's results (and of config keys) that stays
// the same through export, import and merge, so the same data never lands twice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "qtune/records/measurement.h"

namespace qtune::records {

// FNV-1a 64, the hash search_space uses for Config::hash(); 16 lower-case hex digits.
std::uint64_t fnv1a64(std::string_view text);
std::string hex64(std::uint64_t value);

// Fingerprint of what was measured: stats, error, settings and qtune version (not the keys or
// timestamp, which are separate columns of the uniqueness constraint, and not the source or the
// session, which change when data moves between files).
std::string measurement_fingerprint(const MeasurementRecord& record);

}  // namespace qtune::records
