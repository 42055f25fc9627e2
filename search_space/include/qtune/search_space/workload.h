// What is tuned: an operator with its shape, data types, quantization kind and thread budget.
// Its canonical key is the database's and the logs' identity of a layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "qtune/kernels/conv2d.h"
#include "qtune/kernels/gemm.h"

namespace qtune {

enum class OpKind : unsigned char { gemm, conv2d };
std::string_view to_string(OpKind op);

// The quantization *kind* of a layer: what changes which code runs and what results it gives.
// Concrete zero points and scales are drawn at measurement time to match it.
struct QuantKind {
  DType a_type = DType::u8;
  DType out_type = DType::s8;
  bool a_zero_point_nonzero = true;
  bool b_zero_point_nonzero = false;
  bool per_channel = true;
  RoundingMode rounding = RoundingMode::tflite;
  // A fused ReLU (or ReLU6): the output range starts at the zero point (qmin = zero point, the
  // real value 0), as TFLite and PyTorch quantize the output of a convolution followed by one. The
  // key names it only when set ("relu=1"): keys of earlier versions read as false.
  bool relu = false;
  friend bool operator==(const QuantKind&, const QuantKind&) = default;
};

// The largest thread budget a workload may name (keys written by earlier versions used this bound).
inline constexpr int kMaxWorkloadThreads = 1024;

struct Workload {
  OpKind op = OpKind::gemm;
  // gemm
  std::int64_t m = 0, n = 0, k = 0;
  // conv2d (NHWC)
  std::int64_t batch = 1, in_h = 0, in_w = 0, in_c = 0, out_c = 0, kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0, groups = 1;
  QuantKind quant;
  int threads = 1;  // the thread budget of the deployment

  // Canonical key, e.g.
  //   "gemm:m=784;n=128;k=1152;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1"
  //   "conv2d:n=1;h=75;w=75;c=80;oc=192;kh=3;kw=3;sh=1;sw=1;dh=1;dw=1;pad=0,0,0,0;g=1;a=u8;..."
  std::string key() const;
  static Workload parse_key(const std::string& key);  // std::invalid_argument naming the field
  std::string describe() const;                       // short: "gemm 784x128x1152" / "conv 75x75x80 3x3/1 ->192"
  double gops() const;                                // 2*MACs / 1e9 (one run)
  // std::invalid_argument naming the field: sizes >= 1 (pads >= 0) and within kMaxDimension, the
  // shape's tensors within kMaxLayerBytes (qtune/kernels/limits.h), threads in [1, kMaxWorkloadThreads].
  void validate() const;

  // Concrete problems with deterministic quantization parameters drawn to match `quant`.
  GemmProblem gemm_problem(std::uint64_t seed = 1) const;
  Conv2dProblem conv2d_problem(std::uint64_t seed = 1) const;

  friend bool operator==(const Workload& a, const Workload& b) { return a.key() == b.key(); }
};

// A layer of a network file: a workload, a name, and how often it occurs.
struct Layer {
  std::string name;
  Workload workload;
  int count = 1;  // identical layers are merged and counted
};

struct WorkloadFile {
  std::string network;
  std::string description;
  std::vector<Layer> layers;
};

// Reads the JSON form of workloads/*.json (documented in workloads/README.md). Errors name the
// file, the layer index and the field. Identical layers (same key) are merged, counts added.
WorkloadFile load_workload_file(const std::string& path);
WorkloadFile parse_workload_json(const nlohmann::json& doc, const std::string& origin);
nlohmann::json layer_to_json(const Layer& layer);

}  // namespace qtune
