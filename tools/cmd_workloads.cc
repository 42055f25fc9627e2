// `qtune workloads --from-model`: the layer table of a quantized ONNX model, in the workload-file
// form every other command reads. Written to a temporary file and renamed: nothing is written
// when the model cannot be read.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "model_cli.h"

namespace {

nlohmann::json table_json(const qtune::WorkloadFile& file) {
  nlohmann::json layers = nlohmann::json::array();
  for (const qtune::Layer& layer : file.layers) layers.push_back(qtune::layer_to_json(layer));
  return {{"format", "qtune-workloads/1"}, {"network", file.network}, {"description", file.description}, {"layers", layers}};
}

int run_workloads(const qtune::cli::Args& args) {
  const std::string model = args.required("from-model");
  qtune::WorkloadFile table = qtune::cli::model_workload_file(model, args);
  if (auto network = args.value("network")) table.network = *network;
  const std::string text = table_json(table).dump(1) + "\n";
  const auto output = args.value("o");
  if (!output) {
    std::cout << text;
    return 0;
  }
  const std::string temporary = *output + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::remove(temporary.c_str());
      throw std::runtime_error(*output + ": cannot write the workload file");
    }
  }
  std::filesystem::rename(temporary, *output);
  std::cerr << "qtune workloads: " << table.layers.size() << " distinct layers of " << model << " written to " << *output
            << "\n";
  return 0;
}

}  // namespace

QTUNE_COMMAND("workloads", "write the layer table of a quantized ONNX model (the workloads/*.json form)",
              "qtune workloads --from-model MODEL.onnx [-o FILE] [--input-shape NAME=D1,D2,...] [--network NAME]",
              {{"from-model", true, "FILE  the quantized ONNX model (QOperator or QDQ form)"},
               {"o", true, "FILE  write here instead of standard output"},
               qtune::cli::input_shape_option(),
               {"network", true, "NAME  the table's network name (default: the model file's name)"}},
              run_workloads);
