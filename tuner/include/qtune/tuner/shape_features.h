// Numeric description of a workload's shape for the cost model and for finding similar layers:
// every operator is described as the GEMM it amounts to (M, N, K, groups) plus what the
// convolution adds (window, stride, depthwise) and what changes the code (types, threads).
#pragma once

#include <string>
#include <vector>

#include "qtune/search_space/workload.h"

namespace qtune {

std::vector<double> shape_features(const Workload& workload);
std::vector<std::string> shape_feature_names();

// Distance between two shapes in shape-feature space (mostly log2 of dimensions); infinity when the
// operators differ, since their configurations are not comparable.
double shape_distance(const Workload& a, const Workload& b);

}  // namespace qtune
