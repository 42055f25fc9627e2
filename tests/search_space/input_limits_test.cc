// Workload files and keys at and beyond qtune's limits: nesting, absurd sizes, thread budgets,
// bytes that are not ASCII. Every case is a std::invalid_argument naming the file, layer and field.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "qtune/kernels/limits.h"
#include "qtune/search_space/key_text.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/workload.h"
#include "scratch_dir.h"

namespace qtune {
namespace {

using nlohmann::json;

std::string file_error(const std::string& path) {
  try {
    load_workload_file(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string document_error(const json& doc) {
  try {
    parse_workload_json(doc, "net.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string limit_key_error(const std::string& key) {
  try {
    Workload::parse_key(key);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

json file_with_layer(const json& layer) {
  return {{"format", "qtune-workloads/1"}, {"network", "net"}, {"layers", json::array({layer})}};
}

json gemm_layer(std::int64_t m, std::int64_t n, std::int64_t k) {
  return {{"name", "fc"}, {"op", "gemm"}, {"m", m}, {"n", n}, {"k", k}};
}

TEST(WorkloadFileLimits, DeepNestingIsRefusedNamingTheFile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("deep.json");
  std::ofstream(path) << "{\"format\":\"qtune-workloads/1\",\"network\":\"n\",\"description\":" << std::string(60000, '[')
                      << std::string(60000, ']') << ",\"layers\":[]}";
  EXPECT_EQ(file_error(path), path + ": not valid JSON: nested deeper than 256 levels");
}

TEST(WorkloadFileLimits, NumberBeyondDoubleIsRefusedNamingTheFile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("overflow.json");
  std::ofstream(path) << R"({"format":"qtune-workloads/1","network":"n","layers":[{"op":"gemm","m":1e400,"n":1,"k":1}]})";
  EXPECT_EQ(file_error(path), path + ": not valid JSON: number overflow parsing '1e400'");
}

TEST(WorkloadFileLimits, AbsurdSizesNameTheLayerAndFields) {
  const std::string huge_m = document_error(file_with_layer(gemm_layer(1000000000000, 64, 64)));
  EXPECT_EQ(huge_m.rfind("net.json: layer 0 ('fc'): ", 0), 0u) << huge_m;
  EXPECT_NE(huge_m.find("field 'm' is 1000000000000, more than the largest dimension"), std::string::npos) << huge_m;

  const std::string too_much_memory = document_error(file_with_layer(gemm_layer(1000000000, 1000, 64)));
  EXPECT_NE(too_much_memory.find("net.json: layer 0 ('fc'): workload: fields 'm', 'n', 'k': the layer needs"),
            std::string::npos)
      << too_much_memory;

  json conv = {{"name", "c"}, {"op", "conv2d"}, {"input", {1, 100000, 100000, 1024}}, {"out_c", 64}, {"kernel", {1, 1}}};
  EXPECT_NE(document_error(file_with_layer(conv)).find("the layer needs"), std::string::npos);

  // Beyond int64 in the file: refused as too large, not wrapped to a negative value.
  json beyond = gemm_layer(1, 1, 1);
  beyond["m"] = 18446744073709551615ull;
  EXPECT_NE(document_error(file_with_layer(beyond)).find("field 'm': must be at most"), std::string::npos);
}

TEST(WorkloadFileLimits, ThreadsAndCountsAreBounded) {
  json layer = gemm_layer(8, 8, 8);
  layer["threads"] = 5000000000;
  EXPECT_NE(document_error(file_with_layer(layer)).find("field 'threads': must be at most 1024"), std::string::npos);
  json counted = gemm_layer(8, 8, 8);
  counted["count"] = 2147483647;
  json doc = file_with_layer(counted);
  doc["layers"].push_back(counted);  // identical: merged, the counts would overflow int
  EXPECT_NE(document_error(doc).find("layer 1: field 'count': the count of identical layers adds up to more than"),
            std::string::npos)
      << document_error(doc);
  json fine = gemm_layer(8, 8, 8);
  fine["threads"] = 1024;
  EXPECT_EQ(document_error(file_with_layer(fine)), "");
}

TEST(WorkloadKeyLimits, HugeDimensionsAreRefusedBeforeAnythingIsAllocated) {
  const std::string key = "gemm:m=1;n=9223372036854775807;k=1;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
  EXPECT_NE(limit_key_error(key).find("field 'n' is 9223372036854775807, more than the largest dimension"), std::string::npos)
      << limit_key_error(key);
  const std::string wide = "gemm:m=1;n=1000000000;k=1;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
  EXPECT_NE(limit_key_error(wide).find("the layer needs"), std::string::npos) << limit_key_error(wide);
  // The largest thread budget of earlier keys still loads.
  EXPECT_EQ(limit_key_error("gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1024"), "");
}

TEST(WorkloadKeyLimits, BytesOutsideAsciiAreShownEscaped) {
  const std::string key = "gemm:m=8;n=8;k=8;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite\xff;threads=1";
  const std::string error = limit_key_error(key);
  EXPECT_NE(error.find("byte 0xff at offset 63 is not printable ASCII"), std::string::npos) << error;
  EXPECT_NE(error.find("tflite\\xff"), std::string::npos) << error;
  EXPECT_EQ(error.find('\xff'), std::string::npos) << "the raw byte must not reach the message";
  EXPECT_NO_THROW((void)json(error).dump());  // messages stay valid JSON text
}

TEST(ConfigKeyLimits, BytesOutsideAsciiAreRefusedWithAnEscapedMessage) {
  const KnobSpace space = full_space(OpKind::gemm);
  try {
    space.parse("isa=avx2;tile=8x12\xc3(;kc=256");
    FAIL() << "parsed a configuration with non-ASCII bytes";
  } catch (const InvalidConfig& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("configuration 'isa=avx2;tile=8x12\\xc3(;kc=256': byte 0xc3 at offset 18"), std::string::npos)
        << message;
    EXPECT_NO_THROW((void)json(message).dump());
  }
  EXPECT_EQ(printable("a\\b\x01"), "a\\\\b\\x01");
  EXPECT_EQ(key_text_problem("configuration", "isa=avx2"), "");
}

}  // namespace
}  // namespace qtune
