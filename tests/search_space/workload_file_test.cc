// Workload files: the JSON layer tables of workloads/*.json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "qtune/search_space/workload.h"

namespace qtune {
namespace {

using nlohmann::json;

json small_file() {
  return json::parse(R"({
    "format": "qtune-workloads/1", "network": "tiny", "description": "two convs and an fc",
    "defaults": {"a_type": "s8", "out_type": "s8", "per_channel": true, "rounding": "tflite", "threads": 2},
    "layers": [
      {"name": "conv1", "op": "conv2d", "input": [1, 32, 32, 3], "out_c": 16, "kernel": [3, 3],
       "stride": [2, 2], "pad": [0, 1, 0, 1]},
      {"name": "dw", "op": "conv2d", "input": [1, 16, 16, 16], "out_c": 16, "kernel": [3, 3],
       "pad": [1, 1, 1, 1], "groups": 16, "count": 2},
      {"name": "dw_again", "op": "conv2d", "input": [1, 16, 16, 16], "out_c": 16, "kernel": [3, 3],
       "pad": [1, 1, 1, 1], "groups": 16, "count": 3},
      {"name": "fc", "op": "gemm", "m": 1, "n": 10, "k": 256, "out_type": "s32", "threads": 1}
    ]})");
}

TEST(WorkloadFile, ParsesDefaultsOverridesAndMergesIdenticalLayers) {
  const WorkloadFile f = parse_workload_json(small_file(), "tiny.json");
  EXPECT_EQ(f.network, "tiny");
  EXPECT_EQ(f.description, "two convs and an fc");
  ASSERT_EQ(f.layers.size(), 3u);
  EXPECT_EQ(f.layers[0].name, "conv1");
  EXPECT_EQ(f.layers[0].workload.stride_h, 2);
  EXPECT_EQ(f.layers[0].workload.pad_bottom, 1);
  EXPECT_EQ(f.layers[0].workload.quant.a_type, DType::s8);
  EXPECT_EQ(f.layers[0].workload.threads, 2);
  EXPECT_EQ(f.layers[1].name, "dw");
  EXPECT_EQ(f.layers[1].count, 5);  // 2 + 3, merged
  EXPECT_EQ(f.layers[2].workload.op, OpKind::gemm);
  EXPECT_EQ(f.layers[2].workload.quant.out_type, DType::s32);
  EXPECT_EQ(f.layers[2].workload.threads, 1);
}

TEST(WorkloadFile, LayerToJsonRoundTrips) {
  const WorkloadFile f = parse_workload_json(small_file(), "tiny.json");
  json doc = {{"format", "qtune-workloads/1"}, {"network", "again"}, {"layers", json::array()}};
  for (const Layer& l : f.layers) doc["layers"].push_back(layer_to_json(l));
  const WorkloadFile g = parse_workload_json(doc, "again.json");
  ASSERT_EQ(g.layers.size(), f.layers.size());
  for (std::size_t i = 0; i < f.layers.size(); ++i) {
    EXPECT_EQ(g.layers[i].workload.key(), f.layers[i].workload.key());
    EXPECT_EQ(g.layers[i].count, f.layers[i].count);
    EXPECT_EQ(g.layers[i].name, f.layers[i].name);
  }
}

std::string error_of(const json& doc) {
  try {
    parse_workload_json(doc, "net.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(WorkloadFile, ErrorsNameFileLayerAndField) {
  json doc = small_file();
  doc["layers"][1]["kernel"] = json::array({3});
  std::string e = error_of(doc);
  EXPECT_NE(e.find("net.json: layer 1 ('dw'): field 'kernel'"), std::string::npos) << e;

  doc = small_file();
  doc["layers"][0]["strides"] = json::array({1, 1});
  e = error_of(doc);
  EXPECT_NE(e.find("layer 0 ('conv1'): field 'strides': unknown field"), std::string::npos) << e;

  doc = small_file();
  doc["layers"][3].erase("k");
  e = error_of(doc);
  EXPECT_NE(e.find("layer 3 ('fc'): field 'k': missing"), std::string::npos) << e;

  doc = small_file();
  doc["layers"][0]["rounding"] = "banker";
  e = error_of(doc);
  EXPECT_NE(e.find("layer 0 ('conv1'): field 'rounding'"), std::string::npos) << e;

  doc = small_file();
  doc["layers"][1]["groups"] = 3;  // does not divide 16
  e = error_of(doc);
  EXPECT_NE(e.find("layer 1 ('dw')"), std::string::npos) << e;
  EXPECT_NE(e.find("'g'"), std::string::npos) << e;

  doc = small_file();
  doc["layers"][2]["pad"] = json::array({1, 1, -1, 1});
  e = error_of(doc);
  EXPECT_NE(e.find("layer 2 ('dw_again'): field 'pad'"), std::string::npos) << e;

  doc = small_file();
  doc["defaults"]["threads"] = 0;
  e = error_of(doc);
  EXPECT_NE(e.find("defaults: field 'threads'"), std::string::npos) << e;

  doc = small_file();
  doc["format"] = "qtune-workloads/2";
  EXPECT_NE(error_of(doc).find("field 'format'"), std::string::npos);
  doc = small_file();
  doc["layers"] = json::array();
  EXPECT_NE(error_of(doc).find("field 'layers'"), std::string::npos);
  doc = small_file();
  doc["layers"][0]["op"] = "pool";
  EXPECT_NE(error_of(doc).find("field 'op': must be gemm or conv2d"), std::string::npos);
}

TEST(WorkloadFile, LoadReportsUnreadableAndInvalidFiles) {
  try {
    load_workload_file("/nonexistent/qtune.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/qtune.json"), std::string::npos);
  }
}

TEST(WorkloadFile, TheDefaultTuningWorkloadLoads) {
  // This file is tests/search_space/workload_file_test.cc in the source tree.
  const std::string self = __FILE__;
  const std::string root = self.substr(0, self.rfind("/tests/search_space/"));
  const std::string path = root + "/workloads/default.json";
  const WorkloadFile f = load_workload_file(path);
  EXPECT_EQ(f.network, "default");
  ASSERT_GE(f.layers.size(), 5u);
  bool inception = false, depthwise = false, gemm = false;
  for (const Layer& l : f.layers) {
    const Workload& w = l.workload;
    if (w.op == OpKind::gemm) gemm = true;
    if (w.op == OpKind::conv2d && w.groups == w.in_c && w.groups > 1) depthwise = true;
    if (w.op == OpKind::conv2d && w.in_h == 75 && w.in_c == 80 && w.out_c == 192 && w.kernel_h == 3 && w.pad_top == 0)
      inception = true;
  }
  EXPECT_TRUE(inception);
  EXPECT_TRUE(depthwise);
  EXPECT_TRUE(gemm);
}

}  // namespace
}  // namespace qtune
