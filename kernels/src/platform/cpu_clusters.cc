#include "platform/cpu_clusters.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "platform/arm_midr.h"
#include "platform/emulation.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The value of a "key<tabs>: value" line whose key is `key`, or nullopt-like empty view + false.
bool field_value(std::string_view line, std::string_view key, std::string_view& value) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || trim(line.substr(0, colon)) != key) return false;
  value = trim(line.substr(colon + 1));
  return true;
}

unsigned long parse_unsigned(std::string_view text) {
  const std::string s(text);
  return std::strtoul(s.c_str(), nullptr, 0);  // "0x41" and "7" alike
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string core_name(unsigned implementer, unsigned part) {
  std::string name = arm_core_name(implementer, part);
  if (!name.empty()) return name;
  char numbers[64];
  std::snprintf(numbers, sizeof(numbers), "implementer 0x%02x part 0x%03x", implementer, part);
  return numbers;
}

// Most capable first: by capacity where every cluster has one, else big cores before efficiency ones.
bool more_capable(const CpuCluster& a, const CpuCluster& b, bool by_capacity) {
  if (by_capacity) return a.capacity > b.capacity;
  return !arm_core_is_efficiency(a.implementer, a.part) && arm_core_is_efficiency(b.implementer, b.part);
}

}  // namespace

std::vector<CpuCore> cores_from_cpuinfo(std::string_view cpuinfo) {
  std::vector<CpuCore> cores;
  bool in_block = false, has_implementer = false, has_part = false;
  CpuCore core;
  const auto finish = [&] {
    if (in_block && has_implementer && has_part) cores.push_back(core);
    in_block = has_implementer = has_part = false;
    core = CpuCore{};
  };
  while (!cpuinfo.empty()) {
    const std::size_t end = cpuinfo.find('\n');
    const std::string_view line = cpuinfo.substr(0, end);
    cpuinfo.remove_prefix(end == std::string_view::npos ? cpuinfo.size() : end + 1);
    std::string_view value;
    if (field_value(line, "processor", value)) {
      finish();
      in_block = true;
      core.cpu = static_cast<int>(parse_unsigned(value));
    } else if (field_value(line, "CPU implementer", value)) {
      core.implementer = static_cast<unsigned>(parse_unsigned(value));
      has_implementer = true;
    } else if (field_value(line, "CPU part", value)) {
      core.part = static_cast<unsigned>(parse_unsigned(value));
      has_part = true;
    }
  }
  finish();
  return cores;
}

std::vector<CpuCluster> group_clusters(const std::vector<CpuCore>& cores) {
  std::vector<CpuCore> sorted = cores;
  std::sort(sorted.begin(), sorted.end(), [](const CpuCore& a, const CpuCore& b) { return a.cpu < b.cpu; });
  std::vector<CpuCluster> clusters;
  for (const CpuCore& c : sorted) {
    auto it = std::find_if(clusters.begin(), clusters.end(), [&](const CpuCluster& k) {
      return k.implementer == c.implementer && k.part == c.part && k.capacity == c.capacity;
    });
    if (it == clusters.end()) {
      it = clusters.insert(clusters.end(), CpuCluster{c.implementer, c.part, c.capacity, core_name(c.implementer, c.part), {}});
    }
    it->cpus.push_back(c.cpu);
  }
  return clusters;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text.append("-").append(std::to_string(cpus[j]));  // not "-" + ...: GCC 12's false -Wrestrict
    i = j + 1;
  }
  return text;
}

std::string cluster_label(const CpuCluster& cluster) { return "cluster cpus " + cpu_list_text(cluster.cpus); }

const CpuCluster* cluster_of_cpu(const std::vector<CpuCluster>& clusters, int cpu) {
  for (const CpuCluster& k : clusters) {
    if (std::find(k.cpus.begin(), k.cpus.end(), cpu) != k.cpus.end()) return &k;
  }
  return nullptr;
}

std::string model_cluster_suffix(const std::vector<CpuCluster>& clusters, int cpu) {
  if (clusters.size() < 2) return "";
  const CpuCluster* k = cluster_of_cpu(clusters, cpu);
  return k == nullptr ? std::string() : std::string(" ").append(cluster_label(*k));
}

ClusterChoice choose_cluster(const std::vector<CpuCluster>& clusters, const std::vector<int>& allowed,
                             int current_cpu, std::string_view request) {
  ClusterChoice choice;
  // The clusters this process may run on, with their CPUs cut to the affinity mask.
  std::vector<CpuCluster> reachable;
  for (const CpuCluster& k : clusters) {
    CpuCluster cut = k;
    cut.cpus.clear();
    for (int cpu : k.cpus) {
      if (std::find(allowed.begin(), allowed.end(), cpu) != allowed.end()) cut.cpus.push_back(cpu);
    }
    if (!cut.cpus.empty()) reachable.push_back(std::move(cut));
  }
  const auto pick = [&](const CpuCluster& cut) {
    choice.cluster = &*std::find_if(clusters.begin(), clusters.end(), [&](const CpuCluster& k) {
      return k.implementer == cut.implementer && k.part == cut.part && k.capacity == cut.capacity;
    });
    choice.cpus = cut.cpus;
    return choice;
  };
  if (clusters.size() < 2) {
    if (!request.empty()) {
      choice.error = "--cluster " + std::string(request) + ": this machine has one kind of core (no big.LITTLE clusters to choose from)";
    }
    return choice;
  }
  if (request.empty()) {
    for (const CpuCluster& cut : reachable) {
      if (std::find(cut.cpus.begin(), cut.cpus.end(), current_cpu) != cut.cpus.end()) return pick(cut);
    }
    choice.error = "cpu " + std::to_string(current_cpu) + " is in no cluster this process may run on";
    return choice;
  }
  std::string names;
  for (const CpuCluster& k : clusters) names += (names.empty() ? "" : ", ") + k.core + " (cpus " + cpu_list_text(k.cpus) + ")";
  if (request == "big" || request == "little") {
    if (reachable.empty()) {
      choice.error = "--cluster " + std::string(request) + ": the affinity mask reaches no cluster";
      return choice;
    }
    const bool by_capacity = std::all_of(reachable.begin(), reachable.end(), [](const CpuCluster& k) { return k.capacity > 0; });
    auto ordered = reachable;
    std::stable_sort(ordered.begin(), ordered.end(),
                     [&](const CpuCluster& a, const CpuCluster& b) { return more_capable(a, b, by_capacity); });
    const CpuCluster& chosen = request == "big" ? ordered.front() : ordered.back();
    if (!by_capacity && ordered.size() > 1 && !more_capable(ordered.front(), ordered.back(), false)) {
      choice.error = "--cluster " + std::string(request) + ": without sysfs cpu_capacity the clusters " + names +
                     " cannot be ranked; name the core instead";
      return choice;
    }
    return pick(chosen);
  }
  for (const CpuCluster& cut : reachable) {
    if (equal_ignoring_case(cut.core, request)) return pick(cut);
  }
  choice.error = "--cluster " + std::string(request) + ": expected big, little or a core of this machine (" + names +
                 ") that the affinity mask reaches";
  return choice;
}

std::vector<CpuCore> read_cpu_cores() {
  std::vector<CpuCore> cores = cores_from_cpuinfo(read_cpuinfo());
  for (CpuCore& c : cores) {
    std::ifstream capacity("/sys/devices/system/cpu/cpu" + std::to_string(c.cpu) + "/cpu_capacity");
    if (!(capacity >> c.capacity)) c.capacity = 0;
  }
  return cores;
}

}  // namespace qtune::detail

namespace qtune {

std::string pin_to_cluster(const std::string& request) {
  const auto clusters = detail::group_clusters(detail::read_cpu_cores());
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::vector<int> allowed;
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &mask)) allowed.push_back(cpu);
    }
  }
  const detail::ClusterChoice choice = detail::choose_cluster(clusters, allowed, sched_getcpu(), request);
  if (!choice.error.empty()) throw std::invalid_argument(choice.error);
  if (choice.cluster == nullptr) return "";  // homogeneous: nothing to pin
  CPU_ZERO(&mask);
  for (int cpu : choice.cpus) CPU_SET(cpu, &mask);
  if (sched_setaffinity(0, sizeof(mask), &mask) != 0) {
    throw std::runtime_error("sched_setaffinity to cpus " + detail::cpu_list_text(choice.cpus) + " failed");
  }
  return "pinned to the " + choice.cluster->core + " " + detail::cluster_label(*choice.cluster) + " (running on cpus " +
         detail::cpu_list_text(choice.cpus) + ")";
}

}  // namespace qtune
