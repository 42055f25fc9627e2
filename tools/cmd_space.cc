// `qtune space`: the knobs, their domains and the size of an operator's search space on this CPU.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/search_space/operator_spaces.h"

namespace {

using qtune::cli::Args;
using qtune::cli::UsageError;

qtune::Workload workload_from_args(const Args& args) {
  if (auto key = args.value("workload")) {
    if (args.value("op") || args.value("m") || args.value("n") || args.value("k"))
      throw UsageError("give either --workload KEY or --op gemm --m/--n/--k, not both");
    try {
      return qtune::Workload::parse_key(*key);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  const std::string op = args.value_or("op", "gemm");
  if (op != "gemm") throw UsageError("--op " + op + ": use --workload KEY for conv2d layers (see 'qtune space --help')");
  qtune::Workload w;
  w.op = qtune::OpKind::gemm;
  w.m = args.int_or("m", 0, 1, 1LL << 31);
  w.n = args.int_or("n", 0, 1, 1LL << 31);
  w.k = args.int_or("k", 0, 1, 1LL << 31);
  if (w.m == 0 || w.n == 0 || w.k == 0) throw UsageError("--op gemm needs --m, --n and --k");
  w.threads = static_cast<int>(args.int_or("threads", 1, 1, 1024));
  if (auto a = args.value("a-type")) {
    auto t = qtune::parse_dtype(*a);
    if (!t || *t == qtune::DType::s32) throw UsageError("--a-type must be u8 or s8");
    w.quant.a_type = *t;
  }
  if (auto o = args.value("out-type")) {
    auto t = qtune::parse_dtype(*o);
    if (!t) throw UsageError("--out-type must be u8, s8 or s32");
    w.quant.out_type = *t;
  }
  try {
    w.validate();  // the size limits: an absurd shape is refused before its space is built
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
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
              "qtune space --op gemm --m M --n N --k K [--threads T] [--list] [--json] | qtune space --workload KEY",
              {{"op", true, "OP  operator: gemm (conv2d layers: use --workload)"},
               {"m", true, "M  rows of A and C"},
               {"n", true, "N  columns of B and C"},
               {"k", true, "K  the reduction dimension"},
               {"threads", true, "T  thread budget of the workload (default 1)"},
               {"a-type", true, "TYPE  activations u8 or s8 (default u8)"},
               {"out-type", true, "TYPE  output u8, s8 or s32 (default s8)"},
               {"workload", true, "KEY  a workload key (gemm or conv2d) instead of --op/--m/--n/--k"},
               {"list", false, "list every valid configuration"},
               {"json", false, "print JSON"}},
              run_space);
