// Reading a configuration key ("isa=avx2;tile=8x12;kc=256;...;fuse=1;threads=1") as knob/value
// pairs without a search space: reports must read keys of any qtune version, including knobs
// this build does not have.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qtune::reports {

using KnobValues = std::vector<std::pair<std::string, std::string>>;

KnobValues split_config_key(const std::string& key);
std::optional<std::string> knob_value(const KnobValues& knobs, const std::string& knob);
// The key with one knob left out, in the original order ("isa=avx2;tile=8x12;threads=1").
std::string key_without(const KnobValues& knobs, const std::string& knob);

}  // namespace qtune::reports
