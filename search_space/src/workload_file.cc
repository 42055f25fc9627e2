// The JSON form of workloads/*.json: a network's layer table.
//
//   {
//     "format": "qtune-workloads/1",                      required, exactly this string
//     "network": "mobilenet_v2",                          required, non-empty
//     "description": "...",                               optional
//     "defaults": {                                       optional; every field optional
//       "a_type": "u8" | "s8",                            activations        (default u8)
//       "out_type": "s8" | "u8" | "s32",                  output             (default s8)
//       "a_zero_point_nonzero": true,                     (default true)
//       "b_zero_point_nonzero": false,                    (default false)
//       "per_channel": true,                              per-channel scales (default true)
//       "rounding": "tflite" | "upward" | "tonearest" | "arm" | "fp32"   (default tflite)
//       "relu": false,                                    a fused ReLU: qmin = zero point (default false)
//       "threads": 1                                      thread budget      (default 1)
//     },
//     "layers": [                                         required, non-empty
//       {"name": "conv1", "op": "conv2d",
//        "input": [N, H, W, C], "out_c": 32, "kernel": [KH, KW],
//        "stride": [SH, SW]          (default [1, 1]),
//        "dilation": [DH, DW]        (default [1, 1]),
//        "pad": [top, bottom, left, right]  (default [0, 0, 0, 0]),
//        "groups": 1                 (default 1; groups == C == out_c/multiplier is depthwise),
//        "count": 1                  (default 1: how often the layer occurs in the network),
//        ...any "defaults" field, overriding it for this layer},
//       {"name": "fc", "op": "gemm", "m": 1, "n": 1000, "k": 1280, "count": 1, ...overrides}
//     ]
//   }
//
// Unknown fields are errors (a typo must not silently fall back to a default). Every error names
// the file, the layer (index and name) and the field. Layers with the same workload key are
// merged: the first name is kept and the counts are added.
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "qtune/json_input/bounded_parse.h"

#include "qtune/search_space/workload.h"

namespace qtune {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "qtune-workloads/1";

struct Where {
  std::string origin;
  std::string layer;  // "" at file level, else "layer 3 ('conv1')"

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    std::string msg = origin + ": ";
    if (!layer.empty()) msg += layer + ": ";
    if (!field.empty()) msg += "field '" + field + "': ";
    throw std::invalid_argument(msg + problem);
  }
};

std::int64_t get_int(const json& j, const std::string& field, const Where& where, std::int64_t min,
                     std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  if (!j.is_number_integer()) where.fail(field, "expected an integer, got " + j.dump());
  // An unsigned value beyond int64 would wrap to a negative one in get<std::int64_t>().
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    where.fail(field, "must be at most " + std::to_string(max) + ", got " + j.dump());
  const std::int64_t v = j.get<std::int64_t>();
  if (v < min) where.fail(field, "must be >= " + std::to_string(min) + ", got " + std::to_string(v));
  if (v > max) where.fail(field, "must be at most " + std::to_string(max) + ", got " + std::to_string(v));
  return v;
}

std::vector<std::int64_t> get_ints(const json& j, const std::string& field, const Where& where, std::size_t size,
                                   std::int64_t min) {
  if (!j.is_array() || j.size() != size)
    where.fail(field, "expected an array of " + std::to_string(size) + " integers, got " + j.dump());
  std::vector<std::int64_t> out;
  for (const auto& item : j) out.push_back(get_int(item, field, where, min));
  return out;
}

bool get_bool(const json& j, const std::string& field, const Where& where) {
  if (!j.is_boolean()) where.fail(field, "expected true or false, got " + j.dump());
  return j.get<bool>();
}

std::string get_string(const json& j, const std::string& field, const Where& where) {
  if (!j.is_string()) where.fail(field, "expected a string, got " + j.dump());
  return j.get<std::string>();
}

const std::set<std::string>& quant_field_names() {
  static const std::set<std::string> names = {"a_type",      "out_type", "a_zero_point_nonzero", "b_zero_point_nonzero",
                                              "per_channel", "rounding", "relu", "threads"};
  return names;
}

// Applies the quantization/threads fields present in `obj` over `quant` and `threads`.
void apply_quant_fields(const json& obj, QuantKind& quant, int& threads, const Where& where) {
  for (const auto& [field, value] : obj.items()) {
    if (field == "a_type" || field == "out_type") {
      const std::string name = get_string(value, field, where);
      auto type = parse_dtype(name);
      if (!type || (field == "a_type" && *type == DType::s32))
        where.fail(field, field == "a_type" ? "must be u8 or s8, got '" + name + "'"
                                            : "must be u8, s8 or s32, got '" + name + "'");
      (field == "a_type" ? quant.a_type : quant.out_type) = *type;
    } else if (field == "a_zero_point_nonzero") {
      quant.a_zero_point_nonzero = get_bool(value, field, where);
    } else if (field == "b_zero_point_nonzero") {
      quant.b_zero_point_nonzero = get_bool(value, field, where);
    } else if (field == "per_channel") {
      quant.per_channel = get_bool(value, field, where);
    } else if (field == "relu") {
      quant.relu = get_bool(value, field, where);
    } else if (field == "rounding") {
      const std::string name = get_string(value, field, where);
      auto mode = parse_rounding_mode(name);
      if (!mode) where.fail(field, "must be one of tflite, upward, tonearest, arm, fp32, got '" + name + "'");
      quant.rounding = *mode;
    } else if (field == "threads") {
      threads = static_cast<int>(get_int(value, field, where, 1, kMaxWorkloadThreads));
    }
  }
}

Layer parse_layer(const json& obj, std::size_t index, const QuantKind& default_quant, int default_threads,
                  const std::string& origin) {
  Where where{origin, "layer " + std::to_string(index)};
  if (!obj.is_object()) where.fail("", "expected an object, got " + obj.dump());
  Layer layer;
  if (obj.contains("name")) {
    layer.name = get_string(obj.at("name"), "name", where);
    where.layer += " ('" + layer.name + "')";
  } else {
    layer.name = "layer" + std::to_string(index);
  }
  if (!obj.contains("op")) where.fail("op", "missing (gemm or conv2d)");
  const std::string op = get_string(obj.at("op"), "op", where);
  std::set<std::string> allowed = {"name", "op", "count"};
  allowed.insert(quant_field_names().begin(), quant_field_names().end());
  Workload& w = layer.workload;
  auto required = [&](const char* field) -> const json& {
    if (!obj.contains(field)) where.fail(field, "missing");
    return obj.at(field);
  };
  if (op == "gemm") {
    w.op = OpKind::gemm;
    allowed.insert({"m", "n", "k"});
    w.m = get_int(required("m"), "m", where, 1);
    w.n = get_int(required("n"), "n", where, 1);
    w.k = get_int(required("k"), "k", where, 1);
  } else if (op == "conv2d") {
    w.op = OpKind::conv2d;
    allowed.insert({"input", "out_c", "kernel", "stride", "dilation", "pad", "groups"});
    const auto input = get_ints(required("input"), "input", where, 4, 1);
    w.batch = input[0];
    w.in_h = input[1];
    w.in_w = input[2];
    w.in_c = input[3];
    w.out_c = get_int(required("out_c"), "out_c", where, 1);
    const auto kernel = get_ints(required("kernel"), "kernel", where, 2, 1);
    w.kernel_h = kernel[0];
    w.kernel_w = kernel[1];
    if (obj.contains("stride")) {
      const auto s = get_ints(obj.at("stride"), "stride", where, 2, 1);
      w.stride_h = s[0];
      w.stride_w = s[1];
    }
    if (obj.contains("dilation")) {
      const auto d = get_ints(obj.at("dilation"), "dilation", where, 2, 1);
      w.dilation_h = d[0];
      w.dilation_w = d[1];
    }
    if (obj.contains("pad")) {
      const auto p = get_ints(obj.at("pad"), "pad", where, 4, 0);
      w.pad_top = p[0];
      w.pad_bottom = p[1];
      w.pad_left = p[2];
      w.pad_right = p[3];
    }
    if (obj.contains("groups")) w.groups = get_int(obj.at("groups"), "groups", where, 1);
  } else {
    where.fail("op", "must be gemm or conv2d, got '" + op + "'");
  }
  for (const auto& [field, value] : obj.items()) {
    if (!allowed.count(field)) where.fail(field, "unknown field for op " + op);
  }
  if (obj.contains("count")) layer.count = static_cast<int>(get_int(obj.at("count"), "count", where, 1, std::numeric_limits<int>::max()));
  w.quant = default_quant;
  w.threads = default_threads;
  apply_quant_fields(obj, w.quant, w.threads, where);
  try {
    w.validate();
  } catch (const std::invalid_argument& e) {
    // Workload::validate names its key field ('g', 'kh', ...); keep that, prefixed with where.
    where.fail("", e.what());
  }
  return layer;
}

}  // namespace

WorkloadFile parse_workload_json(const json& doc, const std::string& origin) {
  Where where{origin, ""};
  if (!doc.is_object()) where.fail("", "expected a JSON object at the top level");
  for (const auto& [field, value] : doc.items()) {
    static const std::set<std::string> known = {"format", "network", "description", "defaults", "layers"};
    if (!known.count(field)) where.fail(field, "unknown field (known: format, network, description, defaults, layers)");
  }
  if (!doc.contains("format")) where.fail("format", std::string("missing (expected \"") + kFormat + "\")");
  if (get_string(doc.at("format"), "format", where) != kFormat)
    where.fail("format", std::string("expected \"") + kFormat + "\", got " + doc.at("format").dump());
  WorkloadFile file;
  if (!doc.contains("network")) where.fail("network", "missing");
  file.network = get_string(doc.at("network"), "network", where);
  if (file.network.empty()) where.fail("network", "must not be empty");
  if (doc.contains("description")) file.description = get_string(doc.at("description"), "description", where);

  QuantKind quant;
  int threads = 1;
  if (doc.contains("defaults")) {
    const json& defaults = doc.at("defaults");
    Where dwhere{origin, "defaults"};
    if (!defaults.is_object()) dwhere.fail("", "expected an object");
    for (const auto& [field, value] : defaults.items()) {
      if (!quant_field_names().count(field))
        dwhere.fail(field, "unknown field (known: a_type, out_type, a_zero_point_nonzero, b_zero_point_nonzero, "
                           "per_channel, rounding, relu, threads)");
    }
    apply_quant_fields(defaults, quant, threads, dwhere);
  }
  if (!doc.contains("layers")) where.fail("layers", "missing");
  const json& layers = doc.at("layers");
  if (!layers.is_array() || layers.empty()) where.fail("layers", "expected a non-empty array of layers");

  std::map<std::string, std::size_t> by_key;  // merge identical layers
  for (std::size_t i = 0; i < layers.size(); ++i) {
    Layer layer = parse_layer(layers[i], i, quant, threads, origin);
    const std::string key = layer.workload.key();
    auto [it, inserted] = by_key.emplace(key, file.layers.size());
    if (inserted) {
      file.layers.push_back(std::move(layer));
    } else {
      int& merged = file.layers[it->second].count;
      if (merged > std::numeric_limits<int>::max() - layer.count)
        Where{origin, "layer " + std::to_string(i)}.fail("count", "the count of identical layers adds up to more than " +
                                                                  std::to_string(std::numeric_limits<int>::max()));
      merged += layer.count;
    }
  }
  return file;
}

WorkloadFile load_workload_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the workload file");
  json doc;
  try {
    doc = qtune::json_input::parse_bounded(in);
  } catch (const qtune::json_input::JsonInputError& e) {
    throw std::invalid_argument(path + ": not valid JSON: " + e.what());
  }
  return parse_workload_json(doc, path);
}

json layer_to_json(const Layer& layer) {
  const Workload& w = layer.workload;
  json j;
  j["name"] = layer.name;
  j["op"] = std::string(to_string(w.op));
  if (w.op == OpKind::gemm) {
    j["m"] = w.m;
    j["n"] = w.n;
    j["k"] = w.k;
  } else {
    j["input"] = {w.batch, w.in_h, w.in_w, w.in_c};
    j["out_c"] = w.out_c;
    j["kernel"] = {w.kernel_h, w.kernel_w};
    j["stride"] = {w.stride_h, w.stride_w};
    j["dilation"] = {w.dilation_h, w.dilation_w};
    j["pad"] = {w.pad_top, w.pad_bottom, w.pad_left, w.pad_right};
    j["groups"] = w.groups;
  }
  j["a_type"] = std::string(to_string(w.quant.a_type));
  j["out_type"] = std::string(to_string(w.quant.out_type));
  j["a_zero_point_nonzero"] = w.quant.a_zero_point_nonzero;
  j["b_zero_point_nonzero"] = w.quant.b_zero_point_nonzero;
  j["per_channel"] = w.quant.per_channel;
  j["rounding"] = std::string(to_string(w.quant.rounding));
  if (w.quant.relu) j["relu"] = true;
  j["threads"] = w.threads;
  j["count"] = layer.count;
  return j;
}

}  // namespace qtune
