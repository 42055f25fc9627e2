#include "platform/x86_cache_leaves.h"

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace qtune::detail {

bool add_cache_subleaf(unsigned eax, unsigned ebx, unsigned ecx, CacheSizes& sizes) {
  const unsigned type = eax & 0x1Fu, level = (eax >> 5) & 0x7u;
  if (type == 0) return false;
  if (type == 2) return true;  // instruction cache
  const std::int64_t ways = ((ebx >> 22) & 0x3FFu) + 1, partitions = ((ebx >> 12) & 0x3FFu) + 1;
  const std::int64_t line = (ebx & 0xFFFu) + 1, sets = std::int64_t{ecx} + 1;
  const std::int64_t bytes = ways * partitions * line * sets;
  if (level == 1) sizes.l1d = bytes;
  if (level == 2) sizes.l2 = bytes;
  if (level == 3) sizes.l3 = bytes;
  return true;
}

CacheSizes decode_amd_legacy_cache_leaves(unsigned ecx_80000005, unsigned ecx_80000006, unsigned edx_80000006) {
  CacheSizes sizes;
  sizes.l1d = std::int64_t{(ecx_80000005 >> 24) & 0xFFu} * 1024;
  sizes.l2 = std::int64_t{(ecx_80000006 >> 16) & 0xFFFFu} * 1024;
  sizes.l3 = std::int64_t{(edx_80000006 >> 18) & 0x3FFFu} * 512 * 1024;
  return sizes;
}

CacheSizes cpuid_cache_sizes() {
  CacheSizes sizes;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid_count(0, 0, eax, ebx, ecx, edx);
  const unsigned max_leaf = eax;
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  const bool amd = std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0;
  __cpuid_count(0x80000000u, 0, eax, ebx, ecx, edx);
  const unsigned max_ext = eax;
  // The deterministic leaf: AMD's with TOPOEXT (0x80000001 ECX bit 22), else Intel's leaf 4.
  unsigned leaf = 0;
  if (amd && max_ext >= 0x8000001Du) {
    __cpuid_count(0x80000001u, 0, eax, ebx, ecx, edx);
    if ((ecx >> 22) & 1u) leaf = 0x8000001Du;
  } else if (!amd && max_leaf >= 4) {
    leaf = 4;
  }
  for (unsigned sub = 0; leaf != 0 && sub < 16; ++sub) {
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    if (!add_cache_subleaf(eax, ebx, ecx, sizes)) break;
  }
  // Guests may answer the deterministic leaf with zeros; AMD's legacy leaves then still say.
  if (amd && sizes.l1d == 0 && sizes.l2 == 0 && max_ext >= 0x80000006u) {
    unsigned ecx5 = 0;
    __cpuid_count(0x80000005u, 0, eax, ebx, ecx5, edx);
    __cpuid_count(0x80000006u, 0, eax, ebx, ecx, edx);
    sizes = decode_amd_legacy_cache_leaves(ecx5, ecx, edx);
  }
#endif
  return sizes;
}

}  // namespace qtune::detail
