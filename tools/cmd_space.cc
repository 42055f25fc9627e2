// `qtune space`: the knobs, their domains and the size of an operator's search space on this CPU.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "operator_options.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/operator_spaces.h"

namespace {

using qtune::cli::Args;
using qtune::cli::UsageError;

qtune::Workload workload_from_args(const Args& args) {
  qtune::Workload w = qtune::cli::workload_from_options(args, "gemm");
  if (args.value("threads")) {
    if (args.value("workload")) throw UsageError("--threads: the workload key holds the thread budget (threads=...)");
    w.threads = static_cast<int>(args.int_or("threads", 1, 1, 1024));
  }
  return w;
}

int run_space(const Args& args) {
  const qtune::Workload workload = workload_from_args(args);
  const qtune::KnobSpace space = qtune::space_for(workload, qtune::cpu_features());
  const auto points = space.enumerate();
  const qtune::Config def = qtune::default_config(workload, qtune::cpu_features());
  if (args.flag("json")) {
    nlohmann::json j;
    j["workload"] = workload.key();
    j["op"] = space.op();
    j["size"] = points.size();
    j["default"] = def.key();
    for (const auto& k : space.knobs()) {
      nlohmann::json knob = {{"name", k.name}, {"values", k.values}, {"help", k.help}};
      if (!k.depends_on.empty()) knob["applies_when"] = {{k.depends_on, k.when}};
      j["knobs"].push_back(knob);
    }
    if (args.flag("list")) {
      j["configs"] = nlohmann::json::array();
      for (const auto& c : points) j["configs"].push_back(c.key());
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "workload: " << workload.describe() << "  (" << workload.key() << ")\n"
            << "knobs of the " << space.op() << " space on this CPU:\n";
  for (const auto& k : space.knobs()) {
    std::string values;
    for (const auto& v : k.values) values += (values.empty() ? "" : " ") + v;
    std::string head = "  " + k.name;
    std::cout << head << std::string(head.size() < 11 ? 11 - head.size() : 1, ' ') << "{" << values << "}  " << k.help;
    if (!k.depends_on.empty()) {
      std::string when;
      for (const auto& w : k.when) when += (when.empty() ? "" : "|") + w;
      std::cout << " [only when " << k.depends_on << "=" << when << "]";
    }
    std::cout << "\n";
  }
  std::cout << "valid configurations: " << points.size() << "\n"
            << "default configuration: " << def.key() << "\n";
  if (args.flag("list")) {
    for (const auto& c : points) std::cout << c.key() << "\n";
  }
  return 0;
}

}  // namespace

QTUNE_COMMAND("space", "show the knobs, domains and size of an operator's search space on this CPU",
              std::string("qtune space (") + qtune::cli::kOperatorUsage + ") [--threads T] [--list] [--json]",
              qtune::cli::with_operator_options({{"threads", true, "T  thread budget of the workload (default 1)"},
                                                 {"list", false, "list every valid configuration"},
                                                 {"json", false, "print JSON"}},
                                                "default gemm", true),
              run_space);
