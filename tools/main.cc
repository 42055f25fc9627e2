// qtune: tune quantized int8 kernels on this CPU, record what wins, and ship it.
#include <cstdio>
#include <exception>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "cluster_option.h"
#include "qtune/kernels/build_info.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/library_registry.h"

namespace {

void print_overview() {
  std::cout << "qtune " << qtune::version()
            << ": auto-tuning of quantized (int8) neural-network kernels on CPUs\n\n"
               "usage: qtune <command> [options]      qtune <command> --help\n\ncommands:\n";
  for (const auto& [name, command] : qtune::cli::registry()) {
    std::string head = "  " + name;
    std::cout << head << std::string(head.size() < 12 ? 12 - head.size() : 1, ' ') << command.summary << "\n";
  }
}

// Under an emulator (qemu-user) kernels run correctly but their timings measure the emulator: every
// command that times says so before its figures, and the target key they are recorded under is
// marked "[emulated]" (CpuFeatures::emulation).
void warn_if_emulated(const std::string& command) {
  static const std::set<std::string> timing_commands = {"bench", "measure", "run", "tune"};
  const auto& cpu = qtune::cpu_features();
  if (!cpu.emulated() || !timing_commands.count(command)) return;
  std::cerr << "qtune " << command << ": EMULATED CPU (" << cpu.emulation
            << "): timings below measure the emulator and mean nothing for speed; only correctness does\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_overview();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "qtune " << qtune::version() << " (" << qtune::compiler() << ")\n";
    return 0;
  }
  const auto& commands = qtune::cli::registry();
  auto it = commands.find(args[0]);
  if (it == commands.end()) {
    std::cerr << "qtune: unknown command '" << args[0] << "' (see 'qtune --help')\n";
    return 2;
  }
  const auto& command = it->second;
  std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const auto& a : rest) {
    if (a == "--help" || a == "-h") {
      std::cout << qtune::cli::command_help(command);
      return 0;
    }
  }
  try {
    qtune::cli::Args parsed(command.name, command.options, rest);
    // big.LITTLE: pinned before the first cpu_features(), so that the target key names the cluster.
    if (qtune::cli::pins_to_cluster(command)) {
      if (const std::string where = qtune::cli::pin_from_args(parsed); !where.empty()) {
        std::cerr << "qtune " << command.name << ": " << where << "\n";
      }
    }
    if (const std::string& why = qtune::cpu_features().isa_restriction_error; !why.empty()) {
      std::cerr << "qtune: " << why << "\n";
      return 2;
    }
    if (const std::string why = qtune::libraries::library_restriction_error(); !why.empty()) {
      std::cerr << "qtune: " << why << "\n";
      return 2;
    }
    warn_if_emulated(command.name);
    return command.run(parsed);
  } catch (const qtune::cli::UsageError& e) {
    std::cerr << "qtune " << command.name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "qtune " << command.name << ": error: " << e.what() << "\n";
    return 1;
  }
}
