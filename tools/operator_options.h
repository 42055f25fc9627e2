// One operator described by command-line options, the same way in every command that takes one
// (tune, bench, space, measure):
//   --workload KEY
//   --op gemm --m M --n N --k K
//   --op conv2d --input N,H,W,C --out-c K [--kernel KH|KHxKW] [--stride S|SHxSW] [--pad P|T,B,L,R]
//               [--dilation D|DHxDW] [--groups G]
// plus, where a command declares them, the quantization (--a-type, --out-type, --rounding,
// --per-tensor). The thread budget is left to each command: --threads is a budget in tune and
// space but a list of counts in bench.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"
#include "qtune/search_space/workload.h"

namespace qtune::cli {

// The synopsis of the options above, for a command's usage line.
inline constexpr const char* kOperatorUsage =
    "--workload KEY | --op gemm --m M --n N --k K | --op conv2d --input N,H,W,C --out-c K [--kernel KHxKW] "
    "[--stride S|SHxSW] [--pad P|T,B,L,R] [--dilation D|DHxDW] [--groups G]";

// The OptionSpecs of the shape options above, for a command's option list (`op_help` says what
// --op defaults to in that command).
std::vector<OptionSpec> operator_option_specs(const std::string& op_help);
// --a-type, --out-type, --rounding, --per-tensor.
std::vector<OptionSpec> quantization_option_specs();

// A command's own options followed by the shape options and, with `quantization`, those too.
std::vector<OptionSpec> with_operator_options(std::vector<OptionSpec> own, const std::string& op_help, bool quantization);

// Whether any dimension option (--m ... --groups; not --op or --workload) is given.
bool operator_shape_given(const Args& args);

// The operator the options describe, validated (sizes, limits); `default_op` is used when --op is
// absent ("" = --op or --workload is required). UsageError naming the option otherwise.
Workload workload_from_options(const Args& args, const std::string& default_op = "");
// The quantization options alone (defaults where absent).
QuantKind quantization_from_options(const Args& args);

// "1,2" or "3x3" -> integers in [min, max] separated by `separator`; UsageError naming the option.
std::vector<std::int64_t> parse_int_list(const std::string& option, const std::string& text, char separator,
                                         std::int64_t min, std::int64_t max);

}  // namespace qtune::cli
