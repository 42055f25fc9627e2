#include "operator_options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "qtune/kernels/limits.h"

namespace qtune::cli {
namespace {

constexpr std::int64_t kMaxDimension = qtune::kMaxDimension;

// "3x3" or "3" -> {3, 3}; likewise for strides and dilations.
std::pair<std::int64_t, std::int64_t> parse_pair(const Args& args, const std::string& option, std::int64_t fallback) {
  const auto text = args.value(option);
  if (!text) return {fallback, fallback};
  const auto v = parse_int_list(option, *text, 'x', 0, kMaxDimension);
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1]};
  throw UsageError("option --" + option + ": expected N or HxW, got '" + *text + "'");
}

void read_conv2d_shape(const Args& args, Workload& w) {
  const std::string input_text = args.required("input");
  const auto input = parse_int_list("input", input_text, ',', 0, kMaxDimension);
  if (input.size() != 4) throw UsageError("option --input: expected N,H,W,C (NHWC), got '" + input_text + "'");
  w.batch = input[0];
  w.in_h = input[1];
  w.in_w = input[2];
  w.in_c = input[3];
  w.out_c = args.int_or("out-c", 0, 1, kMaxDimension);
  if (w.out_c == 0) throw UsageError("--op conv2d needs --out-c");
  std::tie(w.kernel_h, w.kernel_w) = parse_pair(args, "kernel", 1);
  std::tie(w.stride_h, w.stride_w) = parse_pair(args, "stride", 1);
  std::tie(w.dilation_h, w.dilation_w) = parse_pair(args, "dilation", 1);
  if (auto pad = args.value("pad")) {
    const auto p = parse_int_list("pad", *pad, ',', 0, kMaxDimension);
    if (p.size() == 1) {
      w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = p[0];
    } else if (p.size() == 4) {
      w.pad_top = p[0];
      w.pad_bottom = p[1];
      w.pad_left = p[2];
      w.pad_right = p[3];
    } else {
      throw UsageError("option --pad: expected P or TOP,BOTTOM,LEFT,RIGHT, got '" + *pad + "'");
    }
  }
  w.groups = args.int_or("groups", 1, 1, kMaxDimension);
}

}  // namespace

std::vector<OptionSpec> operator_option_specs(const std::string& op_help) {
  return {
      {"workload", true, "KEY  a workload key (gemm or conv2d) instead of --op and its shape"},
      {"op", true, "OP  gemm or conv2d (" + op_help + ")"},
      {"m", true, "M  gemm rows of A and C"},
      {"n", true, "N  gemm columns of B and C"},
      {"k", true, "K  gemm depth"},
      {"input", true, "N,H,W,C  conv2d input shape (NHWC)"},
      {"out-c", true, "K  conv2d output channels"},
      {"kernel", true, "KH|KHxKW  conv2d window (default 1x1)"},
      {"stride", true, "S|SHxSW  conv2d stride (default 1)"},
      {"pad", true, "P|T,B,L,R  conv2d padding (default 0)"},
      {"dilation", true, "D|DHxDW  conv2d dilation (default 1)"},
      {"groups", true, "G  conv2d groups (input channels for depthwise; default 1)"},
  };
}

std::vector<OptionSpec> quantization_option_specs() {
  return {
      {"a-type", true, "u8|s8  activation type (default u8)"},
      {"out-type", true, "s8|u8|s32  output type (default s8; s32 = no requantization)"},
      {"rounding", true, "MODE  requantization rounding: tflite, upward, tonearest, arm, fp32 (default tflite)"},
      {"per-tensor", false, "one output scale per tensor instead of per channel"},
  };
}

std::vector<OptionSpec> with_operator_options(std::vector<OptionSpec> own, const std::string& op_help, bool quantization) {
  for (OptionSpec& spec : operator_option_specs(op_help)) own.push_back(std::move(spec));
  if (quantization) {
    for (OptionSpec& spec : quantization_option_specs()) own.push_back(std::move(spec));
  }
  return own;
}

bool operator_shape_given(const Args& args) {
  for (const OptionSpec& spec : operator_option_specs("")) {
    if (spec.name != "workload" && spec.name != "op" && args.value(spec.name)) return true;
  }
  return false;
}

QuantKind quantization_from_options(const Args& args) {
  QuantKind q;
  if (auto a = args.value("a-type")) {
    auto t = parse_dtype(*a);
    if (!t || *t == DType::s32) throw UsageError("option --a-type: expected u8 or s8, got '" + *a + "'");
    q.a_type = *t;
  }
  if (auto o = args.value("out-type")) {
    auto t = parse_dtype(*o);
    if (!t) throw UsageError("option --out-type: expected s8, u8 or s32, got '" + *o + "'");
    q.out_type = *t;
  }
  if (auto r = args.value("rounding")) {
    auto mode = parse_rounding_mode(*r);
    if (!mode) throw UsageError("option --rounding: expected tflite, upward, tonearest, arm or fp32, got '" + *r + "'");
    q.rounding = *mode;
  }
  q.per_channel = !args.flag("per-tensor");
  return q;
}

Workload workload_from_options(const Args& args, const std::string& default_op) {
  if (auto key = args.value("workload")) {
    for (const OptionSpec& spec : quantization_option_specs()) {
      if (args.value(spec.name)) throw UsageError("give either --workload KEY or --op and its shape, not both (--" + spec.name + ")");
    }
    if (operator_shape_given(args)) throw UsageError("give either --workload KEY or --op and its shape, not both");
    Workload w;
    try {
      w = Workload::parse_key(*key);  // validated by the parser
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--workload: ") + e.what());
    }
    const std::string op(to_string(w.op));
    if (args.value_or("op", op) != op) throw UsageError("--workload: a " + op + " key, but --op " + *args.value("op"));
    return w;
  }
  const std::string op = args.value_or("op", default_op);
  if (op.empty()) throw UsageError("give --workload KEY or --op gemm|conv2d and its shape");
  Workload w;
  w.quant = quantization_from_options(args);
  auto forbid = [&](std::initializer_list<const char*> options) {
    for (const char* o : options) {
      if (args.value(o)) throw UsageError("option --" + std::string(o) + " does not apply to --op " + op);
    }
  };
  if (op == "gemm") {
    forbid({"input", "out-c", "kernel", "stride", "pad", "groups", "dilation"});
    w.op = OpKind::gemm;
    w.m = args.int_or("m", 0, 1, kMaxDimension);
    w.n = args.int_or("n", 0, 1, kMaxDimension);
    w.k = args.int_or("k", 0, 1, kMaxDimension);
    if (w.m == 0 || w.n == 0 || w.k == 0) throw UsageError("--op gemm needs --m, --n and --k");
  } else if (op == "conv2d") {
    forbid({"m", "n", "k"});
    w.op = OpKind::conv2d;
    read_conv2d_shape(args, w);
  } else {
    throw UsageError("option --op: expected gemm or conv2d, got '" + op + "'");
  }
  try {
    w.validate();  // the size limits: an absurd shape is refused before anything is built for it
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return w;
}

std::vector<std::int64_t> parse_int_list(const std::string& option, const std::string& text, char separator,
                                         std::int64_t min, std::int64_t max) {
  std::vector<std::int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, separator)) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < min)
      throw UsageError("option --" + option + ": '" + text + "' is not a list of integers of at least " +
                       std::to_string(min) + " separated by '" + separator + "'");
    if (errno == ERANGE || v > max) {
      const std::string limit = max == kMaxDimension ? "the largest dimension qtune accepts" : "the largest value allowed";
      throw UsageError("option --" + option + ": " + item + " exceeds " + limit + ", " + std::to_string(max));
    }
    values.push_back(v);
  }
  if (values.empty()) throw UsageError("option --" + option + " is empty");
  if (text.back() == separator) throw UsageError("option --" + option + ": '" + text + "' ends with '" + separator + "'");
  return values;
}

}  // namespace qtune::cli
