// Cache sizes from CPUID, for machines whose kernel publishes none in sysfs (some virtual machines:
// an "Oxide Virtual Turin-like Processor" guest has no /sys/devices/system/cpu/cpu0/cache). The
// default GEMM blocking is sized from L1d and L2 (gemm.cc), and the sizes are part of the target
// key, so unknown sizes gave that guest another key and blocking for a 32 KiB L1 and 512 KiB L2
// where it has 48 KiB and 1 MiB.
//
// Decoders of the register values only, so that tests can feed them any CPU's answers:
//   deterministic cache parameters (Intel leaf 4, AMD leaf 0x8000001D with TOPOEXT), one subleaf
//   per cache: EAX[4:0] type (0 none, 1 data, 2 instruction, 3 unified), EAX[7:5] level;
//   bytes = (EBX[31:22] + 1) ways * (EBX[21:12] + 1) partitions * (EBX[11:0] + 1) line * (ECX + 1) sets;
//   AMD's legacy leaves: 0x80000005 ECX[31:24] L1d KiB, 0x80000006 ECX[31:16] L2 KiB,
//   0x80000006 EDX[31:18] L3 in 512 KiB units.
#pragma once

#include <cstdint>

namespace qtune::detail {

struct CacheSizes {
  std::int64_t l1d = 0, l2 = 0, l3 = 0;  // bytes, 0 where unknown
};

// Adds one deterministic-parameters subleaf to `sizes` (instruction caches and empty subleaves
// are ignored). Returns false at the end of the list (cache type 0).
bool add_cache_subleaf(unsigned eax, unsigned ebx, unsigned ecx, CacheSizes& sizes);

// AMD's legacy leaves (0x80000005 ECX, 0x80000006 ECX and EDX).
CacheSizes decode_amd_legacy_cache_leaves(unsigned ecx_80000005, unsigned ecx_80000006, unsigned edx_80000006);

// The sizes CPUID reports on this x86 machine: the deterministic leaf of the vendor, else (AMD)
// the legacy leaves; all 0 on other architectures.
CacheSizes cpuid_cache_sizes();

}  // namespace qtune::detail
