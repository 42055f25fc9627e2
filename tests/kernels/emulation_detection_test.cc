// Emulation detection: emulated timings must never pass for a CPU's (tests/CMakeLists.txt runs
// the aarch64 tests under qemu with QTUNE_EXPECT_EMULATED=1).
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "platform/emulation.h"
#include "qtune/kernels/cpu_features.h"

namespace {

using qtune::detail::detect_emulation;

// setenv/unsetenv for one test, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

const std::string kX86CpuInfo = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n";
const std::string kArmCpuInfo = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd asimddp\nCPU implementer\t: 0x41\n";

TEST(EmulationDetection, AnotherArchitecturesCpuInfoMeansEmulated) {
  ScopedEnv unset("QTUNE_EMULATED", nullptr);
  EXPECT_NE(detect_emulation("aarch64", kX86CpuInfo, false), "");
  EXPECT_NE(detect_emulation("x86_64", kArmCpuInfo, false), "");
  EXPECT_EQ(detect_emulation("aarch64", kArmCpuInfo, false), "");
  EXPECT_EQ(detect_emulation("x86_64", kX86CpuInfo, false), "");
  EXPECT_EQ(detect_emulation("aarch64", "", false), "");  // unreadable: no evidence
}

TEST(EmulationDetection, QemusOwnCpuModelMeansEmulated) {
  ScopedEnv unset("QTUNE_EMULATED", nullptr);
  EXPECT_NE(detect_emulation("aarch64", kArmCpuInfo, true), "");
}

TEST(EmulationDetection, EnvironmentOverridesBothWays) {
  {
    ScopedEnv forced("QTUNE_EMULATED", "1");
    EXPECT_EQ(detect_emulation("aarch64", kArmCpuInfo, false), "QTUNE_EMULATED is set");
  }
  {
    ScopedEnv denied("QTUNE_EMULATED", "0");
    EXPECT_EQ(detect_emulation("aarch64", kX86CpuInfo, true), "");
  }
}

// What this process was detected as: the ctest entries that run under qemu say so.
TEST(EmulationDetection, ThisProcessIsLabelledAsTheTestExpects) {
  const char* expected = std::getenv("QTUNE_EXPECT_EMULATED");
  if (expected == nullptr) GTEST_SKIP() << "QTUNE_EXPECT_EMULATED is not set: only the qemu ctest entries know";
  const auto& f = qtune::cpu_features();
  const bool expect = std::string(expected) == "1";
  EXPECT_EQ(f.emulated(), expect) << "model " << f.model << ", emulation '" << f.emulation << "'";
  EXPECT_EQ(f.model.find("[emulated]") != std::string::npos, expect) << f.model;
}

}  // namespace
