// Where it was tuned: the CPU and build a result belongs to. Results are never mixed across
// targets; the runtime only trusts a configuration whose instruction set this CPU can run.
#pragma once

#include <string>
#include <vector>

#include "qtune/kernels/isa.h"

namespace qtune {

struct Target {
  std::string arch;            // "x86_64", "aarch64"
  std::string cpu;             // model string
  std::vector<Isa> isas;       // usable instruction sets
  int cores = 1;
  long long l1d = 0, l2 = 0, l3 = 0;  // bytes
  std::string compiler;
  std::string qtune_version;

  // "arch=x86_64;cpu=AMD EPYC;isas=scalar,avx2;cores=2;l1d=32K;l2=512K;l3=32768K;cc=gcc 12.2.0;qtune=0.1.0"
  std::string key() const;
  static Target parse_key(const std::string& key);  // std::invalid_argument naming the field
  bool can_run(Isa isa) const;
};

Target current_target();

}  // namespace qtune
