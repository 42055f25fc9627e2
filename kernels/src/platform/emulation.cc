#include "platform/emulation.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace qtune::detail {

std::string detect_emulation(const std::string& arch, const std::string& cpuinfo_text, bool qemu_cpu_model) {
  if (const char* forced = std::getenv("QTUNE_EMULATED"); forced != nullptr && *forced != '\0') {
    return std::strcmp(forced, "0") == 0 ? "" : "QTUNE_EMULATED is set";
  }
  if (qemu_cpu_model) return "qemu-user (qemu's own CPU model)";
  // Fields only an x86 kernel writes, read by a process of another architecture; and the reverse.
  const bool x86_text = cpuinfo_text.find("\nvendor_id\t") != std::string::npos ||
                        cpuinfo_text.rfind("vendor_id\t", 0) == 0;
  const bool arm_text = cpuinfo_text.find("CPU implementer\t") != std::string::npos;
  if (arch == "aarch64" && x86_text) return "qemu-user (/proc/cpuinfo describes an x86 host)";
  if (arch == "x86_64" && arm_text) return "qemu-user (/proc/cpuinfo describes an Arm host)";
  return "";
}

std::string read_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace qtune::detail
