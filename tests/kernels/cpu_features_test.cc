// Run-time dispatch as a given CPU sees it: the aarch64 ctest entries run this binary once per qemu
// CPU model, and native x86 builds run it once more restricted by QTUNE_ISAS (an AVX2-only
// machine); each passes the instruction sets that CPU offers in QTUNE_EXPECTED_ISAS (see
// tests/CMakeLists.txt). cpu_features() must report exactly that set, so a kernel the CPU cannot
// (or may not) execute is never offered and one it can execute is never hidden.
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qtune/kernels/cpu_features.h"

namespace {

std::vector<qtune::Isa> parse_isa_list(const std::string& list) {
  std::vector<qtune::Isa> isas;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    const auto isa = qtune::parse_isa(name);
    if (!isa) ADD_FAILURE() << "QTUNE_EXPECTED_ISAS names an unknown instruction set '" << name << "'";
    else isas.push_back(*isa);
  }
  return isas;
}

std::string join(const std::vector<qtune::Isa>& isas) {
  std::string out;
  for (auto isa : isas) {
    if (!out.empty()) out.push_back(',');
    out.append(qtune::to_string(isa));
  }
  return out;
}

TEST(CpuFeatures, UsableIsasMatchTheExpectedSet) {
  const char* expected = std::getenv("QTUNE_EXPECTED_ISAS");
  if (expected == nullptr) {
    GTEST_SKIP() << "QTUNE_EXPECTED_ISAS is not set: only the per-CPU-model and restricted-ISA ctest "
                    "entries know which instruction sets the CPU offers";
  }
  const auto& f = qtune::cpu_features();
  const char* model = std::getenv("QEMU_CPU");
  EXPECT_EQ(join(f.usable_isas()), join(parse_isa_list(expected)))
      << "cpu model " << (model ? model : "(default)") << ", detected " << f.model << " (" << f.arch << ")";
  EXPECT_TRUE(f.isa_restriction_error.empty()) << f.isa_restriction_error;
  if (const char* restriction = std::getenv("QTUNE_ISAS"); restriction != nullptr && *restriction != '\0') {
    EXPECT_TRUE(f.isa_restricted);
    for (auto isa : f.usable_isas()) {
      EXPECT_NE(std::find(f.isa_allowlist.begin(), f.isa_allowlist.end(), isa), f.isa_allowlist.end())
          << qtune::to_string(isa) << " is usable but not allowed by QTUNE_ISAS=" << restriction;
    }
  }
}

#if defined(__aarch64__)
TEST(ArmCpuFeatures, ExtensionsImplyTheirBase) {
  const auto& f = qtune::cpu_features();
  EXPECT_EQ(f.arch, "aarch64");
  EXPECT_TRUE(f.neon) << "every Armv8-A Linux CPU has Advanced SIMD";
  if (f.dotprod || f.i8mm) {
    EXPECT_TRUE(f.usable(qtune::Isa::neon));
  }
  EXPECT_FALSE(f.usable(qtune::Isa::avx2));
  EXPECT_FALSE(f.usable(qtune::Isa::amx));
}

// The model string names the core from MIDR_EL1 and the int8 extensions from HWCAP, so target keys
// of different boards differ ("Neoverse-N1 r4p1 (MIDR implementer 0x41 part 0xd0c), asimd asimddp").
TEST(ArmCpuFeatures, ModelNamesTheCoreAndItsExtensions) {
  const auto& f = qtune::cpu_features();
  EXPECT_NE(f.model.find("MIDR implementer 0x"), std::string::npos) << f.model;
  EXPECT_EQ(f.model.find(" asimddp") != std::string::npos, f.dotprod) << f.model;
  EXPECT_EQ(f.model.find(" i8mm") != std::string::npos, f.i8mm) << f.model;
  const char* core = std::getenv("QTUNE_EXPECTED_CORE");
  if (core == nullptr) GTEST_SKIP() << "QTUNE_EXPECTED_CORE is not set: only the qemu ctest entries know the core";
  EXPECT_EQ(f.model.rfind(core, 0), 0u) << "expected core " << core << ", detected " << f.model;
}
#endif

}  // namespace
