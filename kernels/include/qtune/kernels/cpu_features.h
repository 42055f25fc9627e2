// What the current process can execute, checked the way the hardware requires: CPUID says what the
// core implements, XGETBV says which register states the OS saves, and AMX additionally needs the
// per-process XTILEDATA permission from arch_prctl. On Arm the answer comes from getauxval.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qtune/kernels/isa.h"

namespace qtune {

struct CpuFeatures {
  std::string model;          // brand string (x86); core name, MIDR and int8 features (Arm)
  std::string arch;           // "x86_64" or "aarch64"
  int logical_cores = 1;      // CPUs this process may run on (affinity mask)
  std::int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // 0 where unknown

  // x86: implemented by the core (CPUID) AND enabled by the OS (XCR0).
  bool avx2 = false, avx512f = false, avx512bw = false, avx512vl = false, avx512vnni = false;
  bool avxvnni = false, amx_tile = false, amx_int8 = false;
  bool amx_permitted = false;  // arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) succeeded
  std::string amx_status;      // why AMX is or is not usable, for `qtune targets`

  // Arm.
  bool neon = false, dotprod = false, i8mm = false;

  // Why this process is taken to run under an emulator (qemu-user), "" when native. Emulated
  // timings mean nothing: the model string (and so the target key) ends in " [emulated]" so that
  // they never mix with a real board's, and the programs that show timings say so.
  std::string emulation;
  bool emulated() const { return !emulation.empty(); }

  // QTUNE_ISAS (environment, read at detection): a comma-separated list such as "scalar,avx2" that
  // restricts the instruction sets kernels may use to those named, as oneDNN's DNNL_MAX_CPU_ISA
  // does: to see what a lesser machine would run, or to reproduce its results here. The scalar
  // path is always allowed. Unknown names leave the set unrestricted and are reported in
  // isa_restriction_error (the qtune program refuses to start with it).
  bool isa_restricted = false;
  std::vector<Isa> isa_allowlist;
  std::string isa_restriction_error;

  // The instruction sets kernels may use in this process: implemented, OS-enabled, and allowed.
  bool usable(Isa isa) const;
  std::vector<Isa> usable_isas() const;
};

// Detected once (thread-safe), including the AMX permission request.
const CpuFeatures& cpu_features();

// big.LITTLE (platform/cpu_clusters.h): restricts this process to one cluster of a heterogeneous
// Arm machine, `request` "" (the cluster it runs on now), "big", "little" or a core name such as
// "Cortex-A55", and says which ("pinned to the Cortex-A76 cluster cpus 4-7 (running on cpus
// 4-7)"). On a homogeneous machine "" pins nothing and returns "". std::invalid_argument naming
// the clusters when the request matches none. Call it before the first cpu_features(): the model
// string (and so the target key) names the cluster the detection runs on.
std::string pin_to_cluster(const std::string& request);

}  // namespace qtune
