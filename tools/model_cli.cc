#include "model_cli.h"

#include <filesystem>
#include <iostream>

#ifdef QTUNE_HAVE_ONNX
#include "qtune/onnx_import/model_workloads.h"
#endif

namespace qtune::cli {

OptionSpec input_shape_option() {
  return {"input-shape", true, "NAME=D1,D2,...  shape of a model input with dynamic dimensions (repeatable)", true};
}

OptionSpec fusion_option() {
  return {"fusion", false,
          "run fused blocks in strips of rows: inverted-residual blocks (pointwise expansion, depthwise, pointwise "
          "projection) with their intermediates in per-thread buffers, and a pointwise convolution with the quantized "
          "Add that alone reads it (bit-exact; by default every operation runs by itself)"};
}

#ifdef QTUNE_HAVE_ONNX

std::map<std::string, std::vector<std::int64_t>> input_shapes(const Args& args) {
  std::map<std::string, std::vector<std::int64_t>> shapes;
  for (const std::string& text : args.values("input-shape")) {
    try {
      auto [name, dims] = onnx_import::parse_input_shape(text);
      if (!shapes.emplace(name, dims).second) throw UsageError("--input-shape gives '" + name + "' twice");
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("option --input-shape: ") + e.what());
    }
  }
  return shapes;
}

onnx_import::Model load_model(const std::string& path, const Args& args) {
  onnx_import::ImportOptions options;
  options.input_shapes = input_shapes(args);
  onnx_import::Model model = onnx_import::read_model(path, options);
  if (!model.skipped.empty()) {
    std::cerr << "qtune: " << path << ": " << model.skipped.size() << " node(s) qtune does not compute, skipped:\n";
    for (const auto& node : model.skipped)
      std::cerr << "  " << node.name << " (" << node.op_type << "): " << node.reason << "\n";
  }
  if (model.layers.empty()) throw std::runtime_error(path + ": no quantized convolution or matrix product qtune computes");
  return model;
}

WorkloadFile model_workload_file(const std::string& path, const Args& args) {
  return onnx_import::model_workloads(load_model(path, args), std::filesystem::path(path).stem().string());
}

#else

WorkloadFile model_workload_file(const std::string& path, const Args&) {
  throw UsageError(path + ": this qtune was built without ONNX support (libonnx-dev and protobuf were not found when "
                          "it was configured; scripts/setup.sh installs them), so it cannot read models");
}

#endif

}  // namespace qtune::cli
