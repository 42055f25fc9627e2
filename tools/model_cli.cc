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
          "besides the blocks the tuning records measured fused, run every other block fused by the executor's own "
          "plan: inverted-residual blocks (pointwise expansion, depthwise, pointwise projection) in strips of rows with "
          "their intermediates in per-thread buffers, and a pointwise convolution with the quantized Add that alone "
          "reads it (bit-exact)"};
}

OptionSpec no_fusion_option() {
  return {"no-fusion", false,
          "run every operation by itself, also the blocks the tuning records measured fused (the reference a fused "
          "run is compared with; by default those blocks run fused as the records say)"};
}

#ifdef QTUNE_HAVE_ONNX

executor::ExecutorOptions::Fusion fusion_from_args(const Args& args) {
  if (args.flag("fusion") && args.flag("no-fusion")) throw UsageError("give either --fusion or --no-fusion, not both");
  if (args.flag("fusion")) return executor::ExecutorOptions::Fusion::all;
  if (args.flag("no-fusion")) return executor::ExecutorOptions::Fusion::off;
  return executor::ExecutorOptions::Fusion::tuned;
}

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
