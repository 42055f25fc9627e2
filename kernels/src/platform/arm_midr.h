// Arm core names from the Main ID Register (MIDR_EL1): implementer and part number say which core
// design a process runs on (Cortex-A72 and Neoverse-N1 tune differently even with the same
// extensions), so they become part of the CPU model string and of every target key.
#pragma once

#include <cstdint>
#include <string>

namespace qtune::detail {

struct ArmMidr {
  unsigned implementer = 0;  // MIDR_EL1[31:24]: 0x41 Arm, 0x61 Apple, 0xc0 Ampere, ...
  unsigned variant = 0;      // [23:20], the "r" of rNpM
  unsigned part = 0;         // [15:4]
  unsigned revision = 0;     // [3:0], the "p" of rNpM
};

ArmMidr decode_midr(std::uint64_t midr);

// "Neoverse-N1", "Cortex-A72", "QEMU max" (qemu's own implementer 0 part 'Q'), or "" when the
// implementer/part pair is not in the table.
std::string arm_core_name(unsigned implementer, unsigned part);

// Whether the core is an efficiency ("LITTLE") design: the in-order Cortex-A53/A35/A55/A510/A520,
// Apple's Icestorm, Qualcomm's Silver cores. Ranks big.LITTLE clusters where sysfs gives no
// cpu_capacity (platform/cpu_clusters.h).
bool arm_core_is_efficiency(unsigned implementer, unsigned part);

// The model string of CpuFeatures: "Neoverse-N1 r3p1 (MIDR implementer 0x41 part 0xd0c)"; an
// unknown core is named by its numbers alone.
std::string arm_model_string(const ArmMidr& midr);

}  // namespace qtune::detail
