// The nearest compatible target: what a pinned or restricted process may use of other tuning.
#include "qtune/search_space/target_compatibility.h"

#include <gtest/gtest.h>

namespace qtune {
namespace {

Target machine() {
  return Target::parse_key(
      "arch=x86_64;cpu=Intel Xeon;isas=scalar,avx2,avx512vnni;cores=2;l1d=48K;l2=2048K;l3=266240K;cc=gcc 12.2.0;"
      "qtune=0.1.0");
}

TEST(TargetCompatibility, TheExactTargetIsItsOwnNeighbour) {
  const auto n = nearest_compatible_target(machine(), {machine().key()});
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->key, machine().key());
  EXPECT_TRUE(n->differences.empty());
  EXPECT_EQ(n->describe(), "");
}

TEST(TargetCompatibility, APinnedProcessUsesTheTuningOfAllCores) {
  Target pinned = machine();
  pinned.cores = 1;  // taskset -c 1
  const auto n = nearest_compatible_target(pinned, {machine().key()});
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->key, machine().key());
  EXPECT_EQ(n->describe(), "cores 2 -> 1");
}

TEST(TargetCompatibility, OtherCpuModelsAndArchitecturesAreNeverNeighbours) {
  Target epyc = machine();
  epyc.cpu = "AMD EPYC";
  Target arm = machine();
  arm.arch = "aarch64";
  arm.isas = {Isa::scalar, Isa::neon};
  EXPECT_FALSE(nearest_compatible_target(machine(), {epyc.key(), arm.key(), "not a key"}).has_value());
}

TEST(TargetCompatibility, InstructionSetsWeighMostThenCoresThenTheRest) {
  Target restricted = machine();
  restricted.isas = {Isa::scalar, Isa::avx2};  // QTUNE_ISAS=scalar,avx2
  Target other_cores = machine();
  other_cores.cores = 8;
  Target other_compiler_and_caches = machine();
  other_compiler_and_caches.compiler = "gcc 13.1.0";
  other_compiler_and_caches.l2 = 1024 * 1024;
  auto n = nearest_compatible_target(machine(), {restricted.key(), other_cores.key()});
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->key, other_cores.key()) << "a target tuned without AVX-512 loses those layers: farther";
  n = nearest_compatible_target(machine(), {other_cores.key(), other_compiler_and_caches.key()});
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->key, other_compiler_and_caches.key());
  EXPECT_EQ(n->describe(), "L2 1048576 -> 2097152, compiler gcc 13.1.0 -> gcc 12.2.0");
  // The restricted process itself finds the full machine's tuning (its AVX-512 layers fall back
  // in the runtime, layer by layer).
  n = nearest_compatible_target(restricted, {machine().key()});
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->describe(), "instruction sets scalar,avx2,avx512vnni -> scalar,avx2");
}

TEST(TargetCompatibility, TiesGoToTheSmallestKey) {
  Target a = machine(), b = machine();
  a.cores = 4;
  b.cores = 8;
  const auto first = nearest_compatible_target(machine(), {b.key(), a.key()});
  const auto second = nearest_compatible_target(machine(), {a.key(), b.key()});
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->key, second->key);
  EXPECT_EQ(first->key, std::min(a.key(), b.key()));
}

}  // namespace
}  // namespace qtune
