// Target keys: where results were tuned.
#include <gtest/gtest.h>

#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/target.h"

namespace qtune {
namespace {

TEST(TargetKey, CurrentTargetRoundTrips) {
  const Target t = current_target();
  const Target back = Target::parse_key(t.key());
  EXPECT_EQ(back.key(), t.key());
  EXPECT_EQ(back.isas, t.isas);
  EXPECT_EQ(back.l3, t.l3);
  EXPECT_TRUE(t.can_run(Isa::scalar));
  for (Isa isa : kAllIsas) EXPECT_EQ(t.can_run(isa), cpu_features().usable(isa)) << to_string(isa);
}

TEST(TargetKey, DocumentedFormParses) {
  const Target t = Target::parse_key(
      "arch=x86_64;cpu=AMD EPYC;isas=scalar,avx2;cores=2;l1d=32K;l2=512K;l3=32768K;cc=gcc 12.2.0;qtune=0.1.0");
  EXPECT_EQ(t.cpu, "AMD EPYC");
  EXPECT_EQ(t.l1d, 32 * 1024);
  EXPECT_EQ(t.l3, 32768LL * 1024);
  EXPECT_TRUE(t.can_run(Isa::avx2));
  EXPECT_FALSE(t.can_run(Isa::amx));
  EXPECT_EQ(t.key(),
            "arch=x86_64;cpu=AMD EPYC;isas=scalar,avx2;cores=2;l1d=32K;l2=512K;l3=32768K;cc=gcc 12.2.0;qtune=0.1.0");
}

TEST(TargetKey, SeparatorsInFreeTextAreNeutralised) {
  Target t;
  t.arch = "x86_64";
  t.cpu = "Weird;CPU=1";
  t.isas = {Isa::scalar};
  EXPECT_EQ(Target::parse_key(t.key()).cpu, "Weird CPU 1");
}

TEST(TargetKey, ErrorsNameTheField) {
  auto error = [](const std::string& key) -> std::string {
    try {
      Target::parse_key(key);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string good = "arch=x86_64;cpu=X;isas=scalar;cores=2;l1d=32K;l2=1M;l3=0;cc=gcc;qtune=0.1.0";
  EXPECT_EQ(error(good), "(no error)");
  EXPECT_NE(error("arch=x86_64;cpu=X;isas=scalar;cores=2;l1d=32K;l2=1M;l3=0;cc=gcc").find("'qtune'"), std::string::npos);
  EXPECT_NE(error("arch=x86_64;cpu=X;isas=sse9;cores=2;l1d=32K;l2=1M;l3=0;cc=gcc;qtune=0.1.0").find("sse9"),
            std::string::npos);
  EXPECT_NE(error("arch=x86_64;cpu=X;isas=scalar;cores=two;l1d=32K;l2=1M;l3=0;cc=gcc;qtune=0.1.0").find("'cores'"),
            std::string::npos);
  EXPECT_NE(error(good + ";gpu=none").find("'gpu'"), std::string::npos);
}

// Found by the workload_key fuzz target (tests/fuzz/regressions/workload_key/): a cache size whose
// K or M suffix takes it beyond 64 bits overflowed (undefined behaviour) instead of being an error.
TEST(TargetKey, CacheSizesBeyondSixtyFourBitsAreErrors) {
  auto error = [](const std::string& l3) -> std::string {
    try {
      Target::parse_key("arch=aarch64;cpu=X;isas=scalar;cores=2;l1d=32K;l2=512K;l3=" + l3 + ";cc=gcc;qtune=0.1.0");
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error("327633333333333338K").find("field 'l3' is too large, got '327633333333333338K'"), std::string::npos)
      << error("327633333333333338K");
  EXPECT_NE(error("9007199254740992M").find("field 'l3' is too large"), std::string::npos);
  // The largest sizes that fit are still accepted.
  EXPECT_EQ(error("9007199254740991K"), "(no error)");
  EXPECT_EQ(error("8796093022207M"), "(no error)");
  EXPECT_EQ(error("9223372036854775807"), "(no error)");
}

}  // namespace
}  // namespace qtune
