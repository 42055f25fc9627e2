// The "field=value;field=value" body shared by workload and target keys. Internal.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace qtune::detail {

// Splits `body` into its fields. Every field must be in `expected` or `optional`, appear once,
// and every expected field must be present; otherwise std::invalid_argument naming the key (`what`
// is "workload key", "target key", ...), the field, and `context` (e.g. " for gemm") where given.
// Optional fields are those added after keys were first written: absent in older keys, which keep
// their meaning (and their identity: a key names an optional field only where it differs from the
// default).
std::map<std::string, std::string> parse_key_fields(const std::string& what, const std::string& key,
                                                    const std::string& body, const std::vector<std::string>& expected,
                                                    const std::string& context = "",
                                                    const std::vector<std::string>& optional = {});

}  // namespace qtune::detail
