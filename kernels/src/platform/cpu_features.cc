#include "qtune/kernels/cpu_features.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "platform/arm_midr.h"
#include "platform/cpu_clusters.h"
#include "platform/emulation.h"
#include "platform/x86_cache_leaves.h"
#include "platform/amx_model_switch.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace qtune {
namespace {

int affinity_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

// Parses sysfs cache sizes such as "48K" or "2048K" for cpu0's data/unified caches.
void read_cache_sizes(CpuFeatures& f) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size)) continue;
    if (type == "Instruction") continue;
    std::int64_t bytes = std::atoll(size.c_str());
    if (size.find('K') != std::string::npos) bytes *= 1024;
    if (size.find('M') != std::string::npos) bytes *= 1024 * 1024;
    if (level == 1) f.l1d_bytes = bytes;
    if (level == 2) f.l2_bytes = bytes;
    if (level == 3) f.l3_bytes = bytes;
  }
}

#if defined(__x86_64__)
struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(unsigned leaf, unsigned subleaf) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

std::uint64_t xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

bool bit(unsigned value, int n) { return (value >> n) & 1u; }

void detect_x86(CpuFeatures& f) {
  f.arch = "x86_64";
  const unsigned max_ext = cpuid(0x80000000u, 0).eax;
  if (max_ext >= 0x80000004u) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      Regs r = cpuid(0x80000002u + i, 0);
      std::memcpy(brand + 16 * i, &r, 16);
    }
    f.model = brand;
    // Brand strings are padded with spaces, leading (older Intel) or trailing (some guests):
    // neither belongs in a target key.
    f.model.erase(0, f.model.find_first_not_of(' '));
    f.model.erase(f.model.find_last_not_of(' ') + 1);
  }
  const unsigned max_leaf = cpuid(0, 0).eax;
  const Regs l1 = cpuid(1, 0);
  const bool osxsave = bit(l1.ecx, 27);
  const std::uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6;             // XMM + YMM state
  const bool os_avx512 = os_avx && (xcr0 & 0xE0) == 0xE0;  // opmask, ZMM_Hi256, Hi16_ZMM
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;     // XTILECFG + XTILEDATA
  if (max_leaf < 7) return;
  const Regs l7 = cpuid(7, 0);
  const Regs l7s1 = cpuid(7, 1);
  f.avx2 = os_avx && bit(l7.ebx, 5);
  f.avx512f = os_avx512 && bit(l7.ebx, 16);
  f.avx512bw = os_avx512 && bit(l7.ebx, 30);
  f.avx512vl = os_avx512 && bit(l7.ebx, 31);
  f.avx512vnni = os_avx512 && bit(l7.ecx, 11);
  f.avxvnni = os_avx && bit(l7s1.eax, 4);
  const bool cpu_amx_tile = bit(l7.edx, 24), cpu_amx_int8 = bit(l7.edx, 25);
  f.amx_tile = os_amx && cpu_amx_tile;
  f.amx_int8 = os_amx && cpu_amx_int8;
  if (!cpu_amx_tile || !cpu_amx_int8) {
    f.amx_status = "not implemented by this CPU (CPUID.7.0:EDX AMX-TILE/AMX-INT8 clear)";
  } else if (!os_amx) {
    f.amx_status = "the OS does not enable tile state (XCR0 bits 17/18 clear)";
  } else {
    constexpr long kArchGetXcompPerm = 0x1022, kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
      f.amx_status = std::string("arch_prctl(ARCH_REQ_XCOMP_PERM) refused: ") + std::strerror(errno);
    } else {
      unsigned long perm = 0;
      if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &perm) == 0 && (perm >> kXfeatureXtiledata) & 1u) {
        f.amx_permitted = true;
        f.amx_status = "usable (XTILEDATA permission granted)";
      } else {
        f.amx_status = "arch_prctl(ARCH_GET_XCOMP_PERM) does not report XTILEDATA";
      }
    }
  }
}
#endif

#if defined(__aarch64__)
// MIDR_EL1 of the core this process runs on: sysfs per CPU (on big.LITTLE the cluster matters),
// else the register itself (Linux and qemu-user emulate the EL0 read when HWCAP_CPUID is set),
// else /proc/cpuinfo's implementer and part; 0 when none answers.
std::uint64_t read_midr(unsigned long hwcap) {
  const int cpu = sched_getcpu();
  if (cpu >= 0) {
    std::ifstream sysfs("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/regs/identification/midr_el1");
    std::string hex;
    if (sysfs >> hex) return std::strtoull(hex.c_str(), nullptr, 16);
  }
  if (hwcap & HWCAP_CPUID) {
    std::uint64_t midr = 0;
    __asm__("mrs %0, MIDR_EL1" : "=r"(midr));
    return midr;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::uint64_t implementer = 0, part = 0;
  while (std::getline(cpuinfo, line)) {
    const auto value = [&] { return std::strtoull(line.substr(line.find(':') + 1).c_str(), nullptr, 0); };
    if (line.rfind("CPU implementer", 0) == 0 && implementer == 0) implementer = value();
    if (line.rfind("CPU part", 0) == 0 && part == 0) part = value();
  }
  return (implementer << 24) | (part << 4);
}

void detect_arm(CpuFeatures& f) {
  f.arch = "aarch64";
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  f.neon = (hwcap & HWCAP_ASIMD) != 0;
  f.dotprod = (hwcap & HWCAP_ASIMDDP) != 0;
#ifdef HWCAP2_I8MM
  f.i8mm = (hwcap2 & HWCAP2_I8MM) != 0;
#else
  f.i8mm = (hwcap2 & (1UL << 13)) != 0;
#endif
  f.model = detail::arm_model_string(detail::decode_midr(read_midr(hwcap)));
  // big.LITTLE: the cluster too (the same core type can come in clusters of different capacity).
  f.model += detail::model_cluster_suffix(detail::group_clusters(detail::read_cpu_cores()), sched_getcpu());
  // The int8 extensions by their HWCAP names (as /proc/cpuinfo spells them).
  std::string extensions;
  if (f.neon) extensions += " asimd";
  if (f.dotprod) extensions += " asimddp";
  if (f.i8mm) extensions += " i8mm";
  if (!extensions.empty()) f.model += "," + extensions;
}
#endif

void read_isa_restriction(CpuFeatures& f) {
  const char* env = std::getenv("QTUNE_ISAS");
  if (env == nullptr || *env == '\0') return;
  std::vector<Isa> allowed{Isa::scalar};
  std::stringstream list(env);
  std::string name;
  while (std::getline(list, name, ',')) {
    const auto isa = parse_isa(name);
    if (!isa) {
      std::string known;
      for (Isa k : kAllIsas) known += (known.empty() ? "" : ", ") + std::string(to_string(k));
      f.isa_restriction_error = "QTUNE_ISAS: unknown instruction set '" + name + "' (known: " + known + ")";
      return;
    }
    if (std::find(allowed.begin(), allowed.end(), *isa) == allowed.end()) allowed.push_back(*isa);
  }
  f.isa_restricted = true;
  f.isa_allowlist = std::move(allowed);
}

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__)
  detect_x86(f);
#elif defined(__aarch64__)
  detect_arm(f);
#else
  f.arch = "unknown";
#endif
  if (f.model.empty()) f.model = "unknown";
  const bool qemu_cpu_model = f.arch == "aarch64" && f.model.rfind("QEMU ", 0) == 0;
  f.emulation = detail::detect_emulation(f.arch, detail::read_cpuinfo(), qemu_cpu_model);
  if (f.emulated()) f.model += " [emulated]";
  f.logical_cores = affinity_cores();
  read_cache_sizes(f);
  if (f.l1d_bytes == 0 && f.l2_bytes == 0) {
    const detail::CacheSizes cpuid = detail::cpuid_cache_sizes();
    f.l1d_bytes = cpuid.l1d;
    f.l2_bytes = cpuid.l2;
    if (f.l3_bytes == 0) f.l3_bytes = cpuid.l3;
  }
  read_isa_restriction(f);
  return f;
}

}  // namespace

bool CpuFeatures::usable(Isa isa) const {
  if (isa_restricted && std::find(isa_allowlist.begin(), isa_allowlist.end(), isa) == isa_allowlist.end()) return false;
  switch (isa) {
    case Isa::scalar: return true;
    case Isa::avx2: return avx2;
    case Isa::avx512bw:
    case Isa::avx512ubsw: return avx2 && avx512f && avx512bw && avx512vl;
    case Isa::avx2ubsw: return avx2;
    case Isa::avxvnni: return avx2 && avxvnni;
    case Isa::avx512vnni: return avx512f && avx512bw && avx512vl && avx512vnni;
    // Or over the portable model of the tile instructions (tests), whose kernels' epilogue is AVX-512.
    case Isa::amx:
      return (amx_tile && amx_int8 && amx_permitted) ||
             (detail::amx_model::active() && avx512f && avx512bw && avx512vl && avx512vnni);
    case Isa::neon: return neon;
    case Isa::dotprod: return neon && dotprod;
    case Isa::i8mm: return neon && i8mm;
  }
  return false;
}

std::vector<Isa> CpuFeatures::usable_isas() const {
  std::vector<Isa> out;
  for (Isa isa : kAllIsas) {
    if (usable(isa)) out.push_back(isa);
  }
  return out;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace qtune
