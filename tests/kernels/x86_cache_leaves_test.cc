// CPUID's cache leaves as read where sysfs has no cache sizes (platform/x86_cache_leaves.h).
#include <gtest/gtest.h>

#include "platform/x86_cache_leaves.h"

namespace {

using qtune::detail::CacheSizes;

// An "Oxide Virtual Turin-like Processor" guest (AMD family 26): no sysfs caches, the deterministic
// leaf 0x8000001D all zeros, the legacy leaves as below.
TEST(X86CacheLeaves, AmdLegacyLeavesOfAZen5Guest) {
  const CacheSizes sizes = qtune::detail::decode_amd_legacy_cache_leaves(0x300c0140u, 0x04006140u, 0x0fe09140u);
  EXPECT_EQ(sizes.l1d, 48 * 1024);
  EXPECT_EQ(sizes.l2, 1024 * 1024);
  EXPECT_EQ(sizes.l3, std::int64_t{1016} * 512 * 1024);  // as the guest reports it
}

// A Sapphire Rapids core's leaf 4: L1d 48 KiB (12 ways x 64 sets x 64 B), L1i, L2 2 MiB (16 ways x
// 2048 sets), L3 105 MiB (15 ways x 114688 sets), then the end of the list.
TEST(X86CacheLeaves, DeterministicSubleavesSumWaysPartitionsLinesAndSets) {
  CacheSizes sizes;
  const auto subleaf = [&](unsigned type, unsigned level, unsigned ways, unsigned line, unsigned sets) {
    return qtune::detail::add_cache_subleaf(type | (level << 5), ((ways - 1) << 22) | (line - 1), sets - 1, sizes);
  };
  EXPECT_TRUE(subleaf(1, 1, 12, 64, 64));
  EXPECT_TRUE(subleaf(2, 1, 8, 64, 64));  // instruction: ignored
  EXPECT_TRUE(subleaf(3, 2, 16, 64, 2048));
  EXPECT_TRUE(subleaf(3, 3, 15, 64, 114688));
  EXPECT_FALSE(qtune::detail::add_cache_subleaf(0, 0, 0, sizes));
  EXPECT_EQ(sizes.l1d, 48 * 1024);
  EXPECT_EQ(sizes.l2, 2 * 1024 * 1024);
  EXPECT_EQ(sizes.l3, std::int64_t{15} * 64 * 114688);
}

// What this machine's CPUID says, decoded: sizes of real caches (whole KiB, L1d 16 KiB to 1 MiB,
// L2 above L1d), or nothing at all where a guest hides every leaf.
TEST(X86CacheLeaves, ThisMachinesLeavesDecodeToPlausibleSizes) {
#if defined(__x86_64__)
  const CacheSizes sizes = qtune::detail::cpuid_cache_sizes();
  if (sizes.l1d == 0 && sizes.l2 == 0) GTEST_SKIP() << "this CPU's cache leaves report nothing";
  EXPECT_EQ(sizes.l1d % 1024, 0);
  EXPECT_GE(sizes.l1d, 16 * 1024);
  EXPECT_LE(sizes.l1d, 1024 * 1024);
  EXPECT_GT(sizes.l2, sizes.l1d);
#else
  GTEST_SKIP() << "CPUID is x86 only";
#endif
}

}  // namespace
