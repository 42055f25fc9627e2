#include "fingerprint.h"

#include <cstdio>

namespace qtune::records {

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string hex64(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string measurement_fingerprint(const MeasurementRecord& r) {
  // Doubles as %a (exact hexadecimal) so that a value that survived a JSON round trip bit for
  // bit gives the same text.
  std::string canonical;
  char buffer[64];
  auto add = [&](const char* name, double v) {
    std::snprintf(buffer, sizeof buffer, "%s=%a;", name, v);
    canonical += buffer;
  };
  if (r.stats) {
    const auto& s = *r.stats;
    add("median", s.median_ns);
    add("min", s.min_ns);
    add("max", s.max_ns);
    add("mean", s.mean_ns);
    add("stddev", s.stddev_ns);
    add("cv", s.cv);
    add("gops", s.gops);
    canonical += "reps=" + std::to_string(s.repetitions) + ";iters=" + std::to_string(s.iterations) + ";";
  } else {
    canonical += "nostats;";
  }
  canonical += "error=" + r.error_kind + "\n" + r.error_message + "\n";
  canonical += "settings=" + (r.settings.is_null() ? std::string() : r.settings.dump()) + "\n";
  canonical += "version=" + r.qtune_version;
  return hex64(fnv1a64(canonical));
}

}  // namespace qtune::records
