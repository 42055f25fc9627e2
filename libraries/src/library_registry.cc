#include "qtune/libraries/library_registry.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include "qtune/kernels/cpu_features.h"

namespace qtune::libraries {
namespace {

std::mutex& hidden_mutex() {
  static std::mutex m;
  return m;
}

std::set<std::string, std::less<>>& hidden() {
  static std::set<std::string, std::less<>> names;
  return names;
}

// QTUNE_LIBRARIES, read once.
struct Restriction {
  bool restricted = false;
  std::set<std::string, std::less<>> allowed;
  std::string text, error;
};

const Restriction& restriction() {
  static const Restriction r = [] {
    Restriction out;
    const char* env = std::getenv("QTUNE_LIBRARIES");
    if (env == nullptr || *env == '\0') return out;
    out.restricted = true;
    out.text = env;
    if (out.text == "none") return out;
    std::stringstream list(out.text);
    const auto& known = known_libraries();
    for (std::string name; std::getline(list, name, ',');) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string names;
        for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
        out.error = "QTUNE_LIBRARIES: unknown library '" + name + "' (known: " + names + ", or none)";
        break;
      }
      out.allowed.insert(name);
    }
    return out;
  }();
  return r;
}

}  // namespace

std::string library_restriction_error() { return restriction().error; }

const std::vector<std::string>& known_libraries() {
  static const std::vector<std::string> names = {"onednn"};
  return names;
}

const std::vector<std::string>& compiled_libraries() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
#if defined(QTUNE_HAVE_ONEDNN)
    out.emplace_back("onednn");
#endif
    return out;
  }();
  return names;
}

std::string library_unavailable(std::string_view name) {
  const auto& compiled = compiled_libraries();
  if (std::find(compiled.begin(), compiled.end(), name) == compiled.end()) {
    return "library " + std::string(name) + " is not compiled into this build";
  }
  if (const Restriction& r = restriction(); r.restricted && r.allowed.count(name) == 0) {
    return "library " + std::string(name) + " is left out by QTUNE_LIBRARIES=" + r.text;
  }
  {
    std::lock_guard<std::mutex> lock(hidden_mutex());
    if (hidden().count(name) != 0) return "library " + std::string(name) + " is hidden in this process";
  }
  if (name == "onednn") {
    // Without vpdpbusd oneDNN's int8 kernels use vpmaddubsw on halved weights and rescale the
    // accumulators in float: its s32 output is then not the exact dot product.
    const CpuFeatures& cpu = cpu_features();
    if (cpu.arch != "x86_64") {
      // The exactness rules (onednn_support.h) know oneDNN's x86 implementations only. Its aarch64
      // int8 ones (matmul "gemm:jit", convolutions "jit_int8:sve_*" and "gemm_s8u8s32:ref") are
      // timed by `qtune bench` but not admitted as tuning candidates until checked.
      return "oneDNN's int8 implementations on " + cpu.arch +
             " are not checked for exact int32 output (only its x86 ones are): it is not a tuning candidate here";
    }
    if (!cpu.usable(Isa::avx512vnni) && !cpu.usable(Isa::avxvnni) && !cpu.usable(Isa::amx)) {
      return "oneDNN's int8 path is exact only with an int8 dot product instruction (avxvnni, avx512vnni, amx), "
             "which this CPU lacks";
    }
  }
  return "";
}

void set_library_hidden(std::string_view name, bool hide) {
  std::lock_guard<std::mutex> lock(hidden_mutex());
  if (hide) {
    hidden().emplace(name);
  } else if (auto it = hidden().find(name); it != hidden().end()) {
    hidden().erase(it);
  }
}

}  // namespace qtune::libraries
