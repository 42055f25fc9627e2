// big.LITTLE clusters from /proc/cpuinfo text and the affinity mask (platform/cpu_clusters.h):
// the target key's cluster and the CPUs `qtune tune --cluster` pins to. Portable: a phone's
// cpuinfo is fed as text, so the test runs on every build.
#include <gtest/gtest.h>

#include <string>

#include "platform/cpu_clusters.h"

namespace {

using qtune::detail::choose_cluster;
using qtune::detail::cores_from_cpuinfo;
using qtune::detail::CpuCluster;
using qtune::detail::CpuCore;
using qtune::detail::group_clusters;
using qtune::detail::model_cluster_suffix;

// A Cortex-A55 + Cortex-A76 phone (4 + 4), as its arm64 kernel prints /proc/cpuinfo.
std::string phone_cpuinfo() {
  std::string text;
  for (int cpu = 0; cpu < 8; ++cpu) {
    const bool big = cpu >= 4;
    text += "processor\t: " + std::to_string(cpu) +
            "\nBogoMIPS\t: 52.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
            "asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: " +
            std::string(big ? "0x4" : "0x2") + "\nCPU part\t: " + (big ? "0xd0b" : "0xd05") + "\nCPU revision\t: 0\n\n";
  }
  return text;
}

std::vector<int> all_cpus() { return {0, 1, 2, 3, 4, 5, 6, 7}; }

TEST(CpuClusters, ReadsEveryProcessorBlockOfAnArmCpuinfo) {
  const std::vector<CpuCore> cores = cores_from_cpuinfo(phone_cpuinfo());
  ASSERT_EQ(cores.size(), 8u);
  EXPECT_EQ(cores[0].cpu, 0);
  EXPECT_EQ(cores[0].implementer, 0x41u);
  EXPECT_EQ(cores[0].part, 0xd05u);
  EXPECT_EQ(cores[7].cpu, 7);
  EXPECT_EQ(cores[7].part, 0xd0bu);
}

TEST(CpuClusters, AnX86CpuinfoHasNoArmCores) {
  const std::string x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n\n";
  EXPECT_TRUE(cores_from_cpuinfo(x86).empty());
  EXPECT_TRUE(group_clusters(cores_from_cpuinfo(x86)).empty());
}

TEST(CpuClusters, GroupsThePhoneIntoItsTwoClusters) {
  const std::vector<CpuCluster> clusters = group_clusters(cores_from_cpuinfo(phone_cpuinfo()));
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(clusters[0].core, "Cortex-A55");
  EXPECT_EQ(clusters[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(clusters[1].core, "Cortex-A76");
  EXPECT_EQ(clusters[1].cpus, (std::vector<int>{4, 5, 6, 7}));
}

TEST(CpuClusters, TheModelStringNamesTheClusterOnlyOnAHeterogeneousMachine) {
  const auto phone = group_clusters(cores_from_cpuinfo(phone_cpuinfo()));
  EXPECT_EQ(model_cluster_suffix(phone, 5), " cluster cpus 4-7");
  EXPECT_EQ(model_cluster_suffix(phone, 2), " cluster cpus 0-3");
  // A homogeneous board (a Raspberry Pi 4's four Cortex-A72) keeps the key it always had.
  std::vector<CpuCore> pi;
  for (int cpu = 0; cpu < 4; ++cpu) pi.push_back({cpu, 0x41, 0xd08, 0});
  EXPECT_EQ(model_cluster_suffix(group_clusters(pi), 1), "");
}

TEST(CpuClusters, SameCoreAtAnotherCapacityIsAnotherCluster) {
  // A "1 + 3" prime/gold layout: the same Cortex-A78 at two frequencies, told apart by sysfs.
  std::vector<CpuCore> cores = {{0, 0x41, 0xd41, 1024}, {1, 0x41, 0xd41, 870}, {2, 0x41, 0xd41, 870},
                                {3, 0x41, 0xd41, 870}};
  const auto clusters = group_clusters(cores);
  ASSERT_EQ(clusters.size(), 2u);
  const auto big = choose_cluster(clusters, {0, 1, 2, 3}, 2, "big");
  ASSERT_EQ(big.error, "");
  EXPECT_EQ(big.cpus, (std::vector<int>{0}));
  const auto little = choose_cluster(clusters, {0, 1, 2, 3}, 0, "little");
  EXPECT_EQ(little.cpus, (std::vector<int>{1, 2, 3}));
}

TEST(CpuClusters, ChoosesTheClusterTheProcessStartsOnByDefault) {
  const auto clusters = group_clusters(cores_from_cpuinfo(phone_cpuinfo()));
  const auto on_little = choose_cluster(clusters, all_cpus(), 2, "");
  ASSERT_EQ(on_little.error, "");
  ASSERT_NE(on_little.cluster, nullptr);
  EXPECT_EQ(on_little.cluster->core, "Cortex-A55");
  EXPECT_EQ(on_little.cpus, (std::vector<int>{0, 1, 2, 3}));
  const auto on_big = choose_cluster(clusters, all_cpus(), 6, "");
  EXPECT_EQ(on_big.cpus, (std::vector<int>{4, 5, 6, 7}));
}

TEST(CpuClusters, BigAndLittleWithoutCapacitiesRankByTheCoreDesign) {
  const auto clusters = group_clusters(cores_from_cpuinfo(phone_cpuinfo()));
  const auto big = choose_cluster(clusters, all_cpus(), 0, "big");
  ASSERT_EQ(big.error, "");
  EXPECT_EQ(big.cluster->core, "Cortex-A76");
  EXPECT_EQ(big.cpus, (std::vector<int>{4, 5, 6, 7}));
  const auto little = choose_cluster(clusters, all_cpus(), 7, "little");
  EXPECT_EQ(little.cluster->core, "Cortex-A55");
  EXPECT_EQ(little.cpus, (std::vector<int>{0, 1, 2, 3}));
}

TEST(CpuClusters, ACoreNameChoosesItsClusterAndTheAffinityMaskCutsIt) {
  const auto clusters = group_clusters(cores_from_cpuinfo(phone_cpuinfo()));
  // taskset -c 1,2,5,6: the A76 cluster as far as the process may use it; the key still names
  // the whole cluster.
  const auto choice = choose_cluster(clusters, {1, 2, 5, 6}, 1, "cortex-a76");
  ASSERT_EQ(choice.error, "");
  EXPECT_EQ(choice.cpus, (std::vector<int>{5, 6}));
  EXPECT_EQ(qtune::detail::cluster_label(*choice.cluster), "cluster cpus 4-7");
}

TEST(CpuClusters, RequestsThatNameNoClusterSayWhatThereIs) {
  const auto clusters = group_clusters(cores_from_cpuinfo(phone_cpuinfo()));
  const auto unknown = choose_cluster(clusters, all_cpus(), 0, "Cortex-X1");
  EXPECT_EQ(unknown.cluster, nullptr);
  EXPECT_NE(unknown.error.find("Cortex-A55 (cpus 0-3), Cortex-A76 (cpus 4-7)"), std::string::npos) << unknown.error;
  // The mask reaches only the little cores: asking for the big ones is an error, not a silent swap.
  const auto masked = choose_cluster(clusters, {0, 1}, 0, "Cortex-A76");
  EXPECT_EQ(masked.cluster, nullptr);
  EXPECT_NE(masked.error.find("affinity mask"), std::string::npos) << masked.error;
  // Two big designs and no capacities: which is "big" is unknown, and said so.
  const auto two_bigs = group_clusters({{0, 0x41, 0xd0b, 0}, {1, 0x41, 0xd41, 0}});
  EXPECT_NE(choose_cluster(two_bigs, {0, 1}, 0, "big").error.find("cannot be ranked"), std::string::npos);
}

TEST(CpuClusters, HomogeneousMachinesPinNothingAndRefuseANamedCluster) {
  std::vector<CpuCore> pi;
  for (int cpu = 0; cpu < 4; ++cpu) pi.push_back({cpu, 0x41, 0xd08, 0});
  const auto clusters = group_clusters(pi);
  const auto none = choose_cluster(clusters, {0, 1, 2, 3}, 0, "");
  EXPECT_EQ(none.error, "");
  EXPECT_EQ(none.cluster, nullptr);
  EXPECT_NE(choose_cluster(clusters, {0, 1, 2, 3}, 0, "big").error.find("one kind of core"), std::string::npos);
}

TEST(CpuClusters, CpuListsCollapseRuns) {
  EXPECT_EQ(qtune::detail::cpu_list_text({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
  EXPECT_EQ(qtune::detail::cpu_list_text({}), "");
}

}  // namespace
