// A block of layers tuned as one unit: MobileNetV2's inverted-residual block (an optional
// pointwise expansion, a depthwise convolution, a pointwise projection), whose candidates are the
// layers run one by one or fused over strips of rows. Its key is its layers' keys in order, so a
// database or log keeps it beside the layers' own records:
//   "inverted_residual:conv2d:n=1;h=56;...;threads=1|conv2d:...|conv2d:..."
// and a configuration names fused or not, the strip height, and each member's own configuration:
//   "fused=1;rows=4|<expand's config key>|<depthwise's>|<projection's>"   or   "fused=0|...".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qtune/search_space/workload.h"

namespace qtune {

inline constexpr std::string_view kInvertedResidualOp = "inverted_residual";

// Whether a workload key names a block (its operator is a block's), not a layer.
bool is_block_key(std::string_view workload_key);

struct BlockWorkload {
  // The convolutions in order: [expand,] depthwise, project.
  std::vector<Workload> members;

  bool expands() const { return members.size() == 3; }
  std::string key() const;
  // std::invalid_argument naming the member and the field.
  static BlockWorkload parse_key(const std::string& key);
  std::string describe() const;  // "block 56x56x24 ->144 dw3x3/1 ->24"
  double gops() const;           // the members' sum
  // std::invalid_argument: two or three conv2d members, the pointwise ones 1x1 (stride 1, no
  // padding, one group), the middle one depthwise, each output the next one's input (shape and an
  // 8-bit type), one thread budget; each member valid by itself.
  void validate() const;
};

// Whether a block runs fused: only where its fused time beats its layers one by one by more than
// a twentieth. The isolated measurement of a block favours the fused form slightly over the block
// inside its model (docs/model-executor.md, "Blocks as tuned units"), so a closer win is no win.
inline constexpr double kFusedBlockMargin = 1.05;
inline bool fused_block_pays(double fused_ns, double unfused_ns) { return fused_ns * kFusedBlockMargin < unfused_ns; }

// Whether a block's configuration key runs its layers one by one ("fused=0|..."), without parsing it.
inline bool is_unfused_block_config(std::string_view config_key) { return config_key.substr(0, 8) == "fused=0|"; }

struct BlockConfig {
  bool fused = false;
  std::int64_t rows = 0;                    // fused: output rows of the depthwise convolution per strip
  std::vector<std::string> member_configs;  // each member's configuration key, in the block's order

  std::string key() const;
  // std::invalid_argument naming the part: "fused=0" or "fused=1;rows=N" (N >= 1), then one
  // non-empty configuration per member, '|'-separated. The member keys are not parsed here (the
  // conv2d space does that: runtime/key_validators.h).
  static BlockConfig parse(const std::string& key, std::size_t members);
};

}  // namespace qtune
