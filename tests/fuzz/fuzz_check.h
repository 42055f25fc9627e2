// What a fuzz target reports when an invariant fails: the message, then abort() so that libFuzzer
// saves the input as a crash (an exception would only be another way of failing).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace qtune::fuzz {

[[noreturn]] inline void invariant_failed(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what.c_str());
  std::abort();
}

inline void require(bool condition, const std::string& what) {
  if (!condition) invariant_failed(what);
}

}  // namespace qtune::fuzz
