// `qtune export-onnx`: a quantized ONNX model rewritten for onnxruntime with qtune's custom-op
// library (qtune/onnx_import/onnxruntime_rewrite.h): the tuned configurations embedded, so that
// the model runs without the database. Written to a temporary file and renamed: nothing is
// written when the model cannot be read or rewritten.
#include <string>

#include "cli.h"
#include "model_cli.h"

#ifdef QTUNE_HAVE_ONNX
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "qtune/onnx_import/onnxruntime_rewrite.h"
#include "records_cli.h"
#endif

namespace {

int run_export_onnx(const qtune::cli::Args& args) {
#ifdef QTUNE_HAVE_ONNX
  const std::string model = args.required("model");
  const std::string output = args.required("o");
  qtune::onnx_import::RewriteOptions options;
  options.import.input_shapes = qtune::cli::input_shapes(args);
  options.threads = static_cast<int>(args.int_or("threads", 1, 1, 1024));
  const qtune::runtime::Runtime runtime = qtune::cli::load_runtime(args);
  const auto rewritten = qtune::onnx_import::rewrite_for_onnxruntime(model, runtime, options);

  const std::string temporary = output + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << rewritten.bytes;
    if (!out.flush()) {
      std::remove(temporary.c_str());
      throw std::runtime_error(output + ": cannot write the model");
    }
  }
  std::filesystem::rename(temporary, output);

  std::map<std::string, int> by_source;
  for (const auto& layer : rewritten.moved) ++by_source[std::string(to_string(layer.selection.source))];
  std::cout << "qtune export-onnx: " << rewritten.moved.size() << " layer(s) of " << model << " moved to ai.qtune (";
  bool first = true;
  for (const auto& [source, count] : by_source) {
    std::cout << (first ? "" : ", ") << count << " " << source;
    first = false;
  }
  std::cout << "), " << rewritten.kept.size() << " kept; " << rewritten.nhwc_operations << " pool(s) and add(s) in NHWC; "
            << rewritten.nodes_before << " -> " << rewritten.nodes_after << " nodes; written to " << output << "\n";
  if (args.flag("list"))
    for (const auto& layer : rewritten.moved)
      std::cout << "  " << layer.layer << " (" << layer.op_type << ") -> ai.qtune." << layer.qtune_op << "  "
                << to_string(layer.selection.source) << "  " << layer.selection.config_key << "\n";
  for (const auto& layer : rewritten.kept)
    std::cout << "  kept " << layer.layer << " (" << layer.op_type << "): " << layer.reason << "\n";
  return 0;
#else
  (void)args;
  throw qtune::cli::UsageError("this qtune was built without ONNX (libonnx-dev, protobuf): export-onnx is not available");
#endif
}

}  // namespace

QTUNE_COMMAND("export-onnx", "rewrite a quantized ONNX model for onnxruntime with qtune's custom-op library",
              "qtune export-onnx --model MODEL.onnx -o OUT.onnx [--db FILE | --log FILE] [--target current|KEY] "
              "[--threads T] [--input-shape NAME=DIMS] [--list]",
              {{"model", true, "FILE  the quantized ONNX model (QOperator or QDQ form)"},
               {"o", true, "FILE  the rewritten model"},
               {"db", true, "FILE  tuning database to take the configurations from (default: the built-in defaults)"},
               {"log", true, "FILE  best-config log (qtune export) to take them from instead"},
               {"target", true, "KEY  use the entries of this target ('current', the default, = this machine)"},
               {"threads", true, "T  the session's intra-op threads: the budget the configurations are chosen for (default 1)"},
               qtune::cli::input_shape_option(),
               {"list", false, "print every moved layer with its configuration"}},
              run_export_onnx);
