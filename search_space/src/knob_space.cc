// Config keys and the generic operations of a KnobSpace (parse, check, enumerate, sample,
// neighbours, features). Nothing here knows about particular operators.
#include "qtune/search_space/knob_space.h"

#include "qtune/search_space/key_hash.h"
#include "qtune/search_space/key_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <mutex>
#include <optional>
#include <set>

namespace qtune {
namespace {

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string make_key(const std::vector<std::pair<std::string, std::string>>& assignments) {
  std::string key;
  for (const auto& [knob, value] : assignments) {
    if (!key.empty()) key += ';';
    key += knob;
    key += '=';
    key += value;
  }
  return key;
}

std::optional<long long> parse_integer(const std::string& text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// "8x12" -> {8, 12}; nullopt for anything else.
std::optional<std::pair<long long, long long>> parse_shape(const std::string& value) {
  const auto x = value.find('x');
  if (x == std::string::npos) return std::nullopt;
  auto a = parse_integer(value.substr(0, x)), b = parse_integer(value.substr(x + 1));
  if (!a || !b || *a <= 0 || *b <= 0) return std::nullopt;
  return std::make_pair(*a, *b);
}

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

using Assignments = std::vector<std::pair<std::string, std::string>>;

// Whether `knob` applies given the values assigned so far (no Config: no key to build).
bool applies(const Knob& knob, const Assignments& assigned) {
  if (knob.depends_on.empty()) return true;
  for (const auto& [name, value] : assigned) {
    if (name == knob.depends_on) return contains(knob.when, value);
  }
  return false;  // the knob it depends on is itself inactive
}

// Rejection sampling is used above this many raw points, enumeration below.
constexpr std::uint64_t kEnumerateLimit = 400000;
constexpr int kRejectionAttempts = 200000;

}  // namespace

// ----------------------------------------------------------------------------------------------
// Config

Config::Config(std::vector<std::pair<std::string, std::string>> assignments)
    : assignments_(std::move(assignments)), key_(make_key(assignments_)) {}

std::uint64_t Config::hash() const { return key_hash(key_); }

const std::string& Config::get(const std::string& knob) const {
  for (const auto& [name, value] : assignments_) {
    if (name == knob) return value;
  }
  throw InvalidConfig("configuration '" + key_ + "' has no knob '" + knob + "'");
}

int Config::get_int(const std::string& knob) const {
  const std::string& value = get(knob);
  auto parsed = parse_integer(value);
  if (!parsed || *parsed < INT32_MIN || *parsed > INT32_MAX)
    throw InvalidConfig("knob " + knob + "=" + value + " is not an integer");
  return static_cast<int>(*parsed);
}

// ----------------------------------------------------------------------------------------------
// KnobSpace

struct KnobSpace::Cache {
  std::once_flag once;
  std::vector<Config> valid;
};

KnobSpace::KnobSpace(std::string op, std::vector<Knob> knobs, std::vector<Constraint> constraints)
    : op_(std::move(op)), knobs_(std::move(knobs)), constraints_(std::move(constraints)),
      cache_(std::make_shared<Cache>()) {
  std::set<std::string> seen;
  for (const Knob& k : knobs_) {
    if (k.name.empty() || k.name.find_first_of(";= ") != std::string::npos)
      throw std::invalid_argument("space " + op_ + ": bad knob name '" + k.name + "'");
    // A condition may only look back, so that enumeration can decide activity knob by knob.
    if (!k.depends_on.empty() && !seen.count(k.depends_on))
      throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' depends on '" + k.depends_on +
                                  "', which is not an earlier knob");
    if (!seen.insert(k.name).second) throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' twice");
    if (k.values.empty()) throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' has no values");
    if (k.default_value.empty() || k.default_value.find_first_of(";= ") != std::string::npos)
      throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' has no usable default value ('" +
                                  k.default_value + "'), which keys written before it existed need");
    std::set<std::string> distinct;
    for (const auto& v : k.values) {
      if (v.empty() || v.find_first_of(";= ") != std::string::npos)
        throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' has a bad value '" + v + "'");
      if (!distinct.insert(v).second)
        throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' lists '" + v + "' twice");
      if (k.numeric && !parse_integer(v))
        throw std::invalid_argument("space " + op_ + ": numeric knob '" + k.name + "' has value '" + v + "'");
    }
    if (!k.feature_values.empty() && k.feature_values.size() != k.values.size())
      throw std::invalid_argument("space " + op_ + ": knob '" + k.name + "' feature_values size mismatch");
  }
}

const Knob& KnobSpace::knob(const std::string& name) const {
  for (const Knob& k : knobs_) {
    if (k.name == name) return k;
  }
  std::vector<std::string> names;
  for (const Knob& k : knobs_) names.push_back(k.name);
  throw InvalidConfig("unknown knob '" + name + "' for " + op_ + " (knobs: " + join(names, ", ") + ")");
}

bool KnobSpace::active(const Knob& k, const Config& config) const { return applies(k, config.assignments()); }

std::string KnobSpace::check(const Config& config) const {
  // Structure first: the assignments must be exactly the active knobs, in order, with values
  // from their domains. Then the constraints, which may assume a well-formed configuration.
  std::size_t next = 0;
  const auto& a = config.assignments();
  std::vector<std::pair<std::string, std::string>> prefix;
  for (const Knob& k : knobs_) {
    if (!applies(k, prefix)) {
      if (next < a.size() && a[next].first == k.name)
        return "knob '" + k.name + "' does not apply here (it needs " + k.depends_on + " in " + join(k.when, "|") + ")";
      continue;
    }
    if (next >= a.size() || a[next].first != k.name) return "missing knob '" + k.name + "'";
    if (!contains(k.values, a[next].second))
      return "bad value " + k.name + "=" + a[next].second + " (allowed: " + join(k.values, ", ") + ")";
    prefix.push_back(a[next]);
    ++next;
  }
  if (next < a.size()) return "unknown or misplaced knob '" + a[next].first + "'";
  for (const auto& constraint : constraints_) {
    std::string why = constraint(config);
    if (!why.empty()) return why;
  }
  return "";
}

Config KnobSpace::parse(const std::string& key) const {
  if (std::string problem = key_text_problem("configuration", key); !problem.empty()) throw InvalidConfig(problem);
  // Not "every knob at its default": no qtune ever wrote an empty key, so it is a mistake.
  if (key.empty()) throw InvalidConfig("empty configuration key for " + op_);
  std::map<std::string, std::string> given;
  std::size_t start = 0;
  while (start <= key.size() && !key.empty()) {
    std::size_t end = key.find(';', start);
    if (end == std::string::npos) end = key.size();
    const std::string item = key.substr(start, end - start);
    const auto eq = item.find('=');
    if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InvalidConfig("malformed item '" + item + "' in configuration '" + key + "': expected knob=value");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    knob(name);  // throws naming the unknown knob and listing the known ones
    if (!given.emplace(name, value).second)
      throw InvalidConfig("knob '" + name + "' given twice in configuration '" + key + "'");
    start = end + 1;
  }
  std::vector<std::pair<std::string, std::string>> assignments;
  for (const Knob& k : knobs_) {
    auto it = given.find(k.name);
    if (!applies(k, assignments)) {
      if (it != given.end())
        throw InvalidConfig("knob '" + k.name + "' does not apply in configuration '" + key + "' (it needs " +
                            k.depends_on + " in " + join(k.when, "|") + ")");
      continue;
    }
    const bool defaulted = it == given.end();
    const std::string& value = defaulted ? k.default_value : it->second;
    if (!contains(k.values, value))
      throw InvalidConfig("bad value " + k.name + "=" + value + (defaulted ? " (the default for keys without it)" : "") +
                          " for " + op_ + " (allowed: " + join(k.values, ", ") + ")");
    assignments.emplace_back(k.name, value);
  }
  Config config(std::move(assignments));
  for (const auto& constraint : constraints_) {
    std::string why = constraint(config);
    if (!why.empty()) throw InvalidConfig("configuration '" + config.key() + "' violates a constraint: " + why);
  }
  return config;
}

std::uint64_t KnobSpace::raw_size() const {
  std::uint64_t n = 1;
  for (const Knob& k : knobs_) {
    const std::uint64_t d = k.values.size();
    n = n > UINT64_MAX / d ? UINT64_MAX : n * d;
  }
  return n;
}

const std::vector<Config>& KnobSpace::valid() const {
  std::call_once(cache_->once, [this] {
    // Depth-first over the knobs in order: a point's key order is the knob order, and the
    // result is sorted lexicographically by (knob, domain position) = canonical order.
    std::vector<std::pair<std::string, std::string>> current;
    std::vector<Config> out;
    auto recurse = [&](auto&& self, std::size_t i) -> void {
      if (i == knobs_.size()) {
        Config c(current);
        bool ok = true;
        for (const auto& constraint : constraints_) {
          if (!constraint(c).empty()) {
            ok = false;
            break;
          }
        }
        if (ok) out.push_back(std::move(c));
        return;
      }
      const Knob& k = knobs_[i];
      if (!applies(k, current)) {
        self(self, i + 1);
        return;
      }
      for (const auto& v : k.values) {
        current.emplace_back(k.name, v);
        self(self, i + 1);
        current.pop_back();
      }
    };
    recurse(recurse, 0);
    cache_->valid = std::move(out);
  });
  return cache_->valid;
}

std::uint64_t KnobSpace::size() const { return valid().size(); }

std::vector<Config> KnobSpace::enumerate() const { return valid(); }

Config KnobSpace::sample(std::mt19937_64& rng) const {
  if (raw_size() > kEnumerateLimit) {
    // Uniform over valid points without enumerating: draw every knob, active or not, and accept
    // only when each inactive knob drew its first value. Every valid configuration then has
    // exactly one accepted raw draw, so acceptance is uniform over valid configurations.
    for (int attempt = 0; attempt < kRejectionAttempts; ++attempt) {
      std::vector<std::pair<std::string, std::string>> assignments;
      bool canonical = true;
      for (const Knob& k : knobs_) {
        std::uniform_int_distribution<std::size_t> pick(0, k.values.size() - 1);
        const std::size_t index = pick(rng);
        if (applies(k, assignments)) {
          assignments.emplace_back(k.name, k.values[index]);
        } else if (index != 0) {
          canonical = false;
        }
      }
      if (!canonical) continue;
      Config c(std::move(assignments));
      if (check(c).empty()) return c;
    }
    // The valid region is too sparse for rejection: fall back to enumeration below.
  }
  const auto& all = valid();
  if (all.empty()) throw InvalidConfig("the " + op_ + " space has no valid configuration");
  std::uniform_int_distribution<std::size_t> pick(0, all.size() - 1);
  return all[pick(rng)];
}

std::vector<Config> KnobSpace::neighbours(const Config& config) const {
  std::vector<Config> out;
  if (!check(config).empty()) return out;
  const auto& a = config.assignments();
  for (std::size_t changed = 0; changed < a.size(); ++changed) {
    const Knob& k = knob(a[changed].first);
    for (const auto& v : k.values) {
      if (v == a[changed].second) continue;
      // Rebuild in knob order: knobs that stay active keep their value; knobs that become active
      // (a condition changed) take their first value that gives a valid point.
      std::vector<std::pair<std::string, std::string>> next;
      std::vector<std::size_t> fresh;
      for (const Knob& kk : knobs_) {
        if (!applies(kk, next)) continue;
        if (kk.name == k.name) {
          next.emplace_back(kk.name, v);
          continue;
        }
        auto it = std::find_if(a.begin(), a.end(), [&](const auto& p) { return p.first == kk.name; });
        if (it != a.end()) {
          next.emplace_back(kk.name, it->second);
        } else {
          fresh.push_back(next.size());
          next.emplace_back(kk.name, kk.values.front());
        }
      }
      Config candidate(next);
      if (check(candidate).empty()) {
        out.push_back(std::move(candidate));
        continue;
      }
      if (fresh.empty()) continue;
      // Search the newly active knobs' values in order for the first valid combination.
      bool found = false;
      auto search = [&](auto&& self, std::size_t f) -> void {
        if (found) return;
        if (f == fresh.size()) {
          Config c(next);
          if (check(c).empty()) {
            out.push_back(std::move(c));
            found = true;
          }
          return;
        }
        for (const auto& value : knob(next[fresh[f]].first).values) {
          next[fresh[f]].second = value;
          self(self, f + 1);
          if (found) return;
        }
      };
      search(search, 0);
    }
  }
  return out;
}

std::vector<std::string> KnobSpace::feature_names() const {
  std::vector<std::string> names;
  for (const Knob& k : knobs_) {
    if (k.numeric) {
      names.push_back(k.name);
      continue;
    }
    const bool shaped = std::all_of(k.values.begin(), k.values.end(),
                                    [](const std::string& v) { return parse_shape(v).has_value(); });
    if (shaped) {
      names.push_back(k.name + ".rows");
      names.push_back(k.name + ".cols");
    }
    for (const auto& v : k.values) names.push_back(k.name + "=" + v);
  }
  return names;
}

std::vector<double> KnobSpace::features(const Config& config) const {
  std::vector<double> out;
  for (const Knob& k : knobs_) {
    const std::string* value = nullptr;
    for (const auto& [name, v] : config.assignments()) {
      if (name == k.name) value = &v;
    }
    std::size_t index = k.values.size();
    if (value) index = static_cast<std::size_t>(std::find(k.values.begin(), k.values.end(), *value) - k.values.begin());
    if (value && index == k.values.size())
      throw InvalidConfig("bad value " + k.name + "=" + *value + " (allowed: " + join(k.values, ", ") + ")");
    if (k.numeric) {
      double f = 0;
      if (value) {
        if (!k.feature_values.empty()) {
          f = k.feature_values[index];
        } else {
          const double x = static_cast<double>(*parse_integer(*value));
          f = x > 0 ? std::log2(x) : 0.0;
        }
      }
      out.push_back(f);
      continue;
    }
    const bool shaped = std::all_of(k.values.begin(), k.values.end(),
                                    [](const std::string& v) { return parse_shape(v).has_value(); });
    if (shaped) {
      auto shape = value ? parse_shape(*value) : std::nullopt;
      out.push_back(shape ? std::log2(static_cast<double>(shape->first)) : 0.0);
      out.push_back(shape ? std::log2(static_cast<double>(shape->second)) : 0.0);
    }
    for (std::size_t i = 0; i < k.values.size(); ++i) out.push_back(i == index ? 1.0 : 0.0);
  }
  return out;
}

}  // namespace qtune
