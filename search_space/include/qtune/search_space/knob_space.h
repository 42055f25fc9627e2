// A declarative search space: named knobs with finite domains, constraints between them, and the
// operations every tuning strategy needs (enumerate, sample, neighbours, size, features).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace qtune {

// A bad configuration key or knob value; the message names the knob and the allowed values.
struct InvalidConfig : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Knob {
  std::string name;                 // "isa", "tile", "kc", ...
  std::vector<std::string> values;  // the domain, in a meaningful order (small to large)
  std::string help;                 // one line, for `qtune space`
  bool numeric = false;             // values parse as numbers (used as ordinal features)

  // What a configuration key that lacks this knob means: keys written before the knob existed
  // (older logs and databases) are read with it, so adding a knob keeps their history. Every
  // knob has one (KnobSpace rejects an empty one); it need not lie in a concrete space's domain
  // (then such a key is invalid there, like any other value outside the domain).
  std::string default_value{};

  // Conditional knob (additive extension): when `depends_on` is set, the knob exists only while
  // the earlier knob `depends_on` holds one of `when` (conv2d's tile/kc/... only for GEMM-based
  // algorithms, dw_ctile/dw_wtile only for algo=depthwise). An inactive knob is absent from the
  // configuration and its key, so equivalent configurations are never tried twice.
  std::string depends_on{};
  std::vector<std::string> when{};

  // Optional numeric feature of each value (same length as `values`); by default a numeric
  // knob's feature is log2(value) and 0 for the value 0. search_space sets log2(K) for "kc=0"
  // (whole K) so cost models see what 0 stands for.
  std::vector<double> feature_values{};
};

// One point of a space: a value for every knob, in the space's knob order.
class Config {
 public:
  Config() = default;
  explicit Config(std::vector<std::pair<std::string, std::string>> assignments);

  // Canonical, human-readable key: "isa=avx2;tile=8x12;kc=256;pack_a=1;fuse=1;threads=1".
  const std::string& key() const { return key_; }
  std::uint64_t hash() const;  // stable across runs and machines (FNV-1a 64 of key())
  const std::string& get(const std::string& knob) const;  // throws InvalidConfig if absent
  int get_int(const std::string& knob) const;
  const std::vector<std::pair<std::string, std::string>>& assignments() const { return assignments_; }
  friend bool operator==(const Config& a, const Config& b) { return a.key_ == b.key_; }
  friend bool operator<(const Config& a, const Config& b) { return a.key_ < b.key_; }

 private:
  std::vector<std::pair<std::string, std::string>> assignments_;
  std::string key_;
};

class KnobSpace {
 public:
  // Returns "" when the configuration is valid, else why not ("kc=100 is not a multiple of 4").
  using Constraint = std::function<std::string(const Config&)>;

  KnobSpace(std::string op, std::vector<Knob> knobs, std::vector<Constraint> constraints);

  const std::string& op() const { return op_; }
  const std::vector<Knob>& knobs() const { return knobs_; }
  const Knob& knob(const std::string& name) const;  // throws InvalidConfig naming the knob
  // Whether `knob` applies given the values `config` holds for the knobs before it.
  bool active(const Knob& knob, const Config& config) const;

  // Parses a key (any knob order, whitespace-free "k=v;k=v"); an active knob the key lacks takes
  // its default_value. InvalidConfig naming the unknown knob, the bad value (with the allowed
  // ones, and saying when it was the default) or the violated constraint.
  Config parse(const std::string& key) const;
  // "" when valid. Stricter than parse: a Config built in code must hold every active knob.
  std::string check(const Config& config) const;

  std::uint64_t size() const;                        // number of valid configurations
  std::vector<Config> enumerate() const;             // every valid configuration, canonical order
  Config sample(std::mt19937_64& rng) const;         // uniform over valid configurations
  std::vector<Config> neighbours(const Config& config) const;  // valid, exactly one knob changed
  // Numeric features for cost models: log2/ordinal value of each numeric knob, one-hot for
  // categorical ones, plus log2 of both sides for "AxB" shape values (tile); an inactive knob
  // contributes zeros. feature_names()[i] names features(c)[i].
  std::vector<double> features(const Config& config) const;
  std::vector<std::string> feature_names() const;

 private:
  std::string op_;
  std::vector<Knob> knobs_;
  std::vector<Constraint> constraints_;
  struct Cache;                    // the valid configurations, enumerated once on demand
  std::shared_ptr<Cache> cache_;   // shared by copies: knobs and constraints are immutable
  const std::vector<Config>& valid() const;
  std::uint64_t raw_size() const;  // product of the domain sizes (an upper bound of size())
};

}  // namespace qtune
