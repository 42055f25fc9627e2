// Whether this process runs under an instruction-set emulator (qemu-user): its timings then say
// nothing about the emulated CPU, and everything that shows or records them must say so.
#pragma once

#include <string>

namespace qtune::detail {

// "" when native, else why the process is taken to be emulated (shown by `qtune targets`).
//   - QTUNE_EMULATED=1 (environment): the user or a test says so; QTUNE_EMULATED=0 says it is not.
//   - /proc/cpuinfo written by a kernel of another architecture: qemu-user (up to 8.1) passes the
//     host's file through, so an aarch64 process reading x86 fields ("vendor_id") is emulated.
//   - qemu's own CPU model ("max": MIDR implementer 0, part 'Q'), named by the caller.
std::string detect_emulation(const std::string& arch, const std::string& cpuinfo_text, bool qemu_cpu_model);

// The /proc/cpuinfo text, "" when it cannot be read.
std::string read_cpuinfo();

}  // namespace qtune::detail
