// big.LITTLE: the clusters of a heterogeneous Arm machine (CPUs grouped by core type and capacity)
// and the choice of the one a process is pinned to. A Cortex-A55 and a Cortex-A76 of one phone
// tune differently, so on such a machine the target key names the cluster the process runs on
// (CpuFeatures::model) and `qtune tune` / `qtune measure` pin the process to one cluster.
//
// Everything here is a function of text and numbers (the /proc/cpuinfo text, the affinity mask,
// the current CPU), so unit tests on any machine feed it a phone's cpuinfo; the readers of the
// live system are read_cpu_cores() and pin_process_to_cluster().
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qtune::detail {

struct CpuCore {
  int cpu = 0;
  unsigned implementer = 0, part = 0;  // MIDR fields ("CPU implementer" / "CPU part")
  long capacity = 0;                   // sysfs cpu_capacity (1024 = the fastest core), 0 unknown
};

struct CpuCluster {
  unsigned implementer = 0, part = 0;
  long capacity = 0;
  std::string core;       // "Cortex-A76", or the MIDR numbers of an unknown core
  std::vector<int> cpus;  // ascending
};

// The "processor : N" blocks of an arm64 /proc/cpuinfo that name their implementer and part; none
// for other architectures (and for qemu-user, which passes the host's file through).
std::vector<CpuCore> cores_from_cpuinfo(std::string_view cpuinfo);

// CPUs of the same core type and capacity, in the order of their first CPU. One cluster (or none)
// means a homogeneous machine.
std::vector<CpuCluster> group_clusters(const std::vector<CpuCore>& cores);

// "0-3,6": CPU numbers with runs collapsed.
std::string cpu_list_text(const std::vector<int>& cpus);

// The text a heterogeneous machine's target key carries: "cluster cpus 4-7".
std::string cluster_label(const CpuCluster& cluster);

// The cluster that holds `cpu`, or null.
const CpuCluster* cluster_of_cpu(const std::vector<CpuCluster>& clusters, int cpu);

// What the model string of a process on `cpu` adds: its cluster_label on a heterogeneous machine,
// "" on a homogeneous one (whose target keys stay as they were).
std::string model_cluster_suffix(const std::vector<CpuCluster>& clusters, int cpu);

struct ClusterChoice {
  const CpuCluster* cluster = nullptr;
  std::vector<int> cpus;  // the cluster's CPUs this process may run on (the affinity mask's)
  std::string error;      // set when nothing could be chosen: says why
};

// The cluster a `--cluster` request names, among those the affinity mask `allowed` reaches:
//   ""           the cluster of `current_cpu` (the one the process started on)
//   "big"        the most capable cluster (highest cpu_capacity; without capacities, the cluster
//                whose core is not an efficiency design, arm_core_is_efficiency)
//   "little"     the least capable one
//   a core name  the cluster of that core ("Cortex-A55", case-insensitive)
// A request other than "" on a homogeneous machine is an error (nothing to choose between).
ClusterChoice choose_cluster(const std::vector<CpuCluster>& clusters, const std::vector<int>& allowed,
                             int current_cpu, std::string_view request);

// This machine's cores: /proc/cpuinfo plus the sysfs capacities.
std::vector<CpuCore> read_cpu_cores();

}  // namespace qtune::detail
