#include "platform/arm_midr.h"

#include <cstdio>

namespace qtune::detail {
namespace {

struct KnownCore {
  unsigned implementer;
  unsigned part;
  const char* name;
};

// The cores int8 inference meets: Arm's own designs (Raspberry Pi, phones, Jetson, Graviton,
// Ampere Altra, Grace), the vendors' server cores, and qemu's "max" model. Values from the Arm
// Technical Reference Manuals (MIDR_EL1) and Linux's arch/arm64/include/asm/cputype.h.
constexpr KnownCore kKnownCores[] = {
    {0x41, 0xd03, "Cortex-A53"},   {0x41, 0xd04, "Cortex-A35"},   {0x41, 0xd05, "Cortex-A55"},
    {0x41, 0xd07, "Cortex-A57"},   {0x41, 0xd08, "Cortex-A72"},   {0x41, 0xd09, "Cortex-A73"},
    {0x41, 0xd0a, "Cortex-A75"},   {0x41, 0xd0b, "Cortex-A76"},   {0x41, 0xd0c, "Neoverse-N1"},
    {0x41, 0xd0d, "Cortex-A77"},   {0x41, 0xd40, "Neoverse-V1"},  {0x41, 0xd41, "Cortex-A78"},
    {0x41, 0xd44, "Cortex-X1"},    {0x41, 0xd46, "Cortex-A510"},  {0x41, 0xd47, "Cortex-A710"},
    {0x41, 0xd48, "Cortex-X2"},    {0x41, 0xd49, "Neoverse-N2"},  {0x41, 0xd4a, "Neoverse-E1"},
    {0x41, 0xd4b, "Cortex-A78C"},  {0x41, 0xd4d, "Cortex-A715"},  {0x41, 0xd4e, "Cortex-X3"},
    {0x41, 0xd4f, "Neoverse-V2"},  {0x41, 0xd80, "Cortex-A520"},  {0x41, 0xd81, "Cortex-A720"},
    {0x41, 0xd82, "Cortex-X4"},    {0x41, 0xd84, "Neoverse-V3"},  {0x41, 0xd8e, "Neoverse-N3"},
    {0x46, 0x001, "A64FX"},        {0x4e, 0x004, "Carmel"},       {0x51, 0x805, "Kryo-4xx-Silver"},
    {0x61, 0x022, "Apple-M1-Icestorm"}, {0x61, 0x023, "Apple-M1-Firestorm"},
    {0xc0, 0xac3, "Ampere-1"},     {0xc0, 0xac4, "Ampere-1A"},
    // qemu's "max" CPU: implementer 0 (reserved for software), part 'Q'.
    {0x00, 0x051, "QEMU max"},
};

constexpr KnownCore kEfficiencyCores[] = {
    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd04, "Cortex-A35"},        {0x41, 0xd05, "Cortex-A55"},
    {0x41, 0xd46, "Cortex-A510"}, {0x41, 0xd80, "Cortex-A520"},       {0x51, 0x805, "Kryo-4xx-Silver"},
    {0x61, 0x022, "Apple-M1-Icestorm"},
};

}  // namespace

bool arm_core_is_efficiency(unsigned implementer, unsigned part) {
  for (const KnownCore& core : kEfficiencyCores) {
    if (core.implementer == implementer && core.part == part) return true;
  }
  return false;
}

ArmMidr decode_midr(std::uint64_t midr) {
  ArmMidr m;
  m.implementer = static_cast<unsigned>((midr >> 24) & 0xff);
  m.variant = static_cast<unsigned>((midr >> 20) & 0xf);
  m.part = static_cast<unsigned>((midr >> 4) & 0xfff);
  m.revision = static_cast<unsigned>(midr & 0xf);
  return m;
}

std::string arm_core_name(unsigned implementer, unsigned part) {
  for (const KnownCore& core : kKnownCores) {
    if (core.implementer == implementer && core.part == part) return core.name;
  }
  return "";
}

std::string arm_model_string(const ArmMidr& midr) {
  char numbers[64];
  std::snprintf(numbers, sizeof(numbers), "MIDR implementer 0x%02x part 0x%03x", midr.implementer, midr.part);
  const std::string name = arm_core_name(midr.implementer, midr.part);
  if (name.empty()) return std::string("Arm core (") + numbers + ")";
  return name + " r" + std::to_string(midr.variant) + "p" + std::to_string(midr.revision) + " (" + numbers + ")";
}

}  // namespace qtune::detail
