// Arm core names from MIDR_EL1: the part of the target key that tells boards with the same
// extensions apart (Cortex-A76 and Neoverse-N1 both have dotprod). Portable: runs on every build.
#include <gtest/gtest.h>

#include "platform/arm_midr.h"

namespace {

using qtune::detail::arm_core_name;
using qtune::detail::arm_model_string;
using qtune::detail::decode_midr;

TEST(ArmMidr, DecodesTheRegisterFields) {
  // Neoverse-N1 r4p1 as qemu's neoverse-n1 model reports it.
  const auto m = decode_midr(0x414fd0c1);
  EXPECT_EQ(m.implementer, 0x41u);
  EXPECT_EQ(m.variant, 4u);
  EXPECT_EQ(m.part, 0xd0cu);
  EXPECT_EQ(m.revision, 1u);
  // The upper 32 bits of the 64-bit register are reserved and ignored.
  EXPECT_EQ(decode_midr(0xffffffff00000000ull | 0x410fd083).part, 0xd08u);
}

TEST(ArmMidr, NamesTheCoresOfTheEmulatedModelsAndCommonBoards) {
  EXPECT_EQ(arm_core_name(0x41, 0xd08), "Cortex-A72");   // Raspberry Pi 4, qemu cortex-a72
  EXPECT_EQ(arm_core_name(0x41, 0xd0c), "Neoverse-N1");  // Graviton2, Ampere Altra
  EXPECT_EQ(arm_core_name(0x41, 0xd40), "Neoverse-V1");  // Graviton3
  EXPECT_EQ(arm_core_name(0x00, 0x051), "QEMU max");
  // The same part number from another implementer is another core.
  EXPECT_EQ(arm_core_name(0x51, 0xd0c), "");
  EXPECT_EQ(arm_core_name(0x41, 0xfff), "");
}

TEST(ArmMidr, ModelStringCarriesNameRevisionAndNumbers) {
  EXPECT_EQ(arm_model_string(decode_midr(0x414fd0c1)), "Neoverse-N1 r4p1 (MIDR implementer 0x41 part 0xd0c)");
  EXPECT_EQ(arm_model_string(decode_midr(0x410fd083)), "Cortex-A72 r0p3 (MIDR implementer 0x41 part 0xd08)");
  // Unknown cores keep their numbers, so two unknown boards still get different target keys.
  EXPECT_EQ(arm_model_string(decode_midr(0x480fd010)), "Arm core (MIDR implementer 0x48 part 0xd01)");
}

}  // namespace
