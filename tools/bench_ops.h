// `qtune bench` measures every variant of one operator shape and the peer libraries in the same
// process run. Each operator family implements its part in its own file (bench_<op>.cc).
#pragma once

#include "cli.h"

namespace qtune::cli {

int bench_gemm(const Args& args);    // tools/bench_gemm.cc
int bench_conv2d(const Args& args);  // tools/bench_conv2d.cc

}  // namespace qtune::cli
