// Timestamps of measurements: ISO-8601 in UTC with microseconds, "2024-05-01T12:00:00.123456Z",
// so that text order is time order and the same instant always has the same spelling.
#pragma once

#include <optional>
#include <string>

namespace qtune::records {

std::string utc_now_iso8601();

// Accepts "YYYY-MM-DDTHH:MM:SS[.fraction]Z" (fraction up to 9 digits, 'Z' required) and returns
// the canonical microsecond spelling; nullopt when malformed or out of range.
std::optional<std::string> canonical_timestamp(const std::string& text);

}  // namespace qtune::records
