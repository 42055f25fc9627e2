// `qtune targets`: what this process can execute, checked the way kernels are dispatched.
#include <iostream>

#include "cli.h"
#include "qtune/kernels/build_info.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/library_registry.h"
#include "qtune/search_space/target.h"

namespace {

const char* yes_no(bool v) { return v ? "yes" : "no"; }

int run_targets(const qtune::cli::Args& args) {
  if (args.flag("key")) {
    std::cout << qtune::current_target().key();  // no newline: meant for $(qtune targets --key)
    return 0;
  }
  const auto& f = qtune::cpu_features();
  std::cout << "cpu:        " << f.model << " (" << f.arch << ")\n"
            << "cores:      " << f.logical_cores << " usable by this process\n"
            << "caches:     L1d " << f.l1d_bytes / 1024 << " KiB, L2 " << f.l2_bytes / 1024 << " KiB, L3 "
            << f.l3_bytes / 1024 << " KiB\n"
            << "qtune:      " << qtune::version() << " built with " << qtune::compiler() << "\n";
  if (f.emulated()) {
    std::cout << "emulation:  " << f.emulation << ": kernels run correctly, timings mean nothing for speed\n";
  }
  std::cout << "\n";
  if (f.arch == "x86_64") {
    std::cout << "instruction set support (CPUID and OS-enabled register state):\n"
              << "  AVX2            " << yes_no(f.avx2) << "\n"
              << "  AVX-512 BW      " << yes_no(f.avx512bw) << "\n"
              << "  AVX-512 VL      " << yes_no(f.avx512vl) << "\n"
              << "  AVX-512 VNNI    " << yes_no(f.avx512vnni) << "\n"
              << "  AVX-VNNI        " << yes_no(f.avxvnni) << "\n"
              << "  AMX-TILE        " << yes_no(f.amx_tile) << "\n"
              << "  AMX-INT8        " << yes_no(f.amx_int8) << "\n"
              << "  AMX status:     " << f.amx_status << "\n\n";
  } else if (f.arch == "aarch64") {
    std::cout << "instruction set support (getauxval):\n"
              << "  NEON            " << yes_no(f.neon) << "\n"
              << "  dotprod (sdot)  " << yes_no(f.dotprod) << "\n"
              << "  i8mm (smmla)    " << yes_no(f.i8mm) << "\n\n";
  }
  if (f.isa_restricted) {
    std::cout << "restricted by QTUNE_ISAS to:";
    for (auto isa : f.isa_allowlist) std::cout << " " << qtune::to_string(isa);
    std::cout << "\n";
  }
  std::cout << "kernel instruction sets compiled in:";
  for (auto isa : qtune::compiled_isas()) std::cout << " " << qtune::to_string(isa);
  std::cout << "\nkernel instruction sets usable here:";
  for (auto isa : f.usable_isas()) std::cout << " " << qtune::to_string(isa);
  // Libraries are tuning candidates beside the kernels (algo=onednn): offered where usable here.
  std::cout << "\nlibraries compiled in:";
  if (qtune::libraries::compiled_libraries().empty()) std::cout << " none";
  for (const auto& name : qtune::libraries::compiled_libraries()) std::cout << " " << name;
  std::cout << "\nlibraries usable here:";
  std::string unusable;
  bool any = false;
  for (const auto& name : qtune::libraries::compiled_libraries()) {
    const std::string why = qtune::libraries::library_unavailable(name);
    if (why.empty()) {
      std::cout << " " << name;
      any = true;
    } else {
      unusable += "\n  " + name + ": " + why;
    }
  }
  if (!any) std::cout << " none";
  std::cout << unusable;
  std::cout << "\n\ntarget key (tuning results are recorded under it; another key of this CPU model and\n"
               "architecture is used as the nearest compatible target when nothing was tuned for this one):\n  "
            << qtune::current_target().key() << "\n";
  return 0;
}

}  // namespace

QTUNE_COMMAND("targets", "show the CPU and the instruction sets this process can use", "qtune targets [--key]",
              {{"key", false, "print only this process's target key"}}, run_targets);
