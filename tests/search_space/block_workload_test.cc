// A block's key is its layers' keys in order and reads back to the same block; a key or a
// configuration that is no block is refused with the member and the field named.
#include <gtest/gtest.h>

#include <stdexcept>

#include "qtune/search_space/block_workload.h"

namespace qtune {
namespace block_workload_test {

Workload conv(std::int64_t hw, std::int64_t c, std::int64_t oc, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
              std::int64_t groups) {
  Workload w;
  w.op = OpKind::conv2d;
  w.in_h = w.in_w = hw;
  w.in_c = c;
  w.out_c = oc;
  w.kernel_h = w.kernel_w = kernel;
  w.stride_h = w.stride_w = stride;
  w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = pad;
  w.groups = groups;
  w.quant.out_type = DType::u8;  // a quantized model's activations keep their type from layer to layer
  w.quant.relu = true;
  return w;
}

// MobileNetV2's block at 56x56: 24 -> 144 -> depthwise stride 2 -> 32.
BlockWorkload stride_two_block() {
  BlockWorkload b;
  b.members = {conv(56, 24, 144, 1, 1, 0, 1), conv(56, 144, 144, 3, 2, 1, 144), conv(28, 144, 32, 1, 1, 0, 1)};
  b.members.back().quant.relu = false;
  return b;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BlockWorkload, KeyIsTheLayersKeysInOrderAndReadsBack) {
  const BlockWorkload b = stride_two_block();
  const std::string key = b.key();
  EXPECT_EQ(key, "inverted_residual:" + b.members[0].key() + "|" + b.members[1].key() + "|" + b.members[2].key());
  EXPECT_TRUE(is_block_key(key));
  EXPECT_FALSE(is_block_key(b.members[0].key()));
  const BlockWorkload back = BlockWorkload::parse_key(key);
  ASSERT_EQ(back.members.size(), 3u);
  EXPECT_EQ(back.key(), key);
  EXPECT_TRUE(back.expands());
  EXPECT_DOUBLE_EQ(back.gops(), b.members[0].gops() + b.members[1].gops() + b.members[2].gops());
  EXPECT_EQ(back.describe(), "block 56x56x24 ->144 dw3x3/2 ->32");
  // Without the expansion (MobileNetV2's first block).
  BlockWorkload first;
  first.members = {conv(112, 32, 32, 3, 1, 1, 32), conv(112, 32, 16, 1, 1, 0, 1)};
  EXPECT_EQ(BlockWorkload::parse_key(first.key()).key(), first.key());
  EXPECT_FALSE(first.expands());
}

TEST(BlockWorkload, ChainsThatAreNoBlockAreNamed) {
  BlockWorkload b = stride_two_block();
  b.members[2].in_h = b.members[2].in_w = 56;  // the depthwise output is 28x28
  EXPECT_NE(error_of([&] { BlockWorkload::parse_key(b.key()); }).find("projection: its input 1x56x56x144 is not the depthwise's output 1x28x28x144"),
            std::string::npos) << error_of([&] { BlockWorkload::parse_key(b.key()); });
  b = stride_two_block();
  b.members[1].groups = 1;
  EXPECT_NE(error_of([&] { b.validate(); }).find("depthwise: must be a depthwise convolution"), std::string::npos);
  b = stride_two_block();
  b.members[0].kernel_h = b.members[0].kernel_w = 3;
  EXPECT_NE(error_of([&] { b.validate(); }).find("expansion: must be pointwise"), std::string::npos);
  b = stride_two_block();
  b.members[0].quant.out_type = DType::s8;
  EXPECT_NE(error_of([&] { b.validate(); }).find("depthwise: its input type must be the 8-bit output type of the expansion"),
            std::string::npos) << error_of([&] { b.validate(); });
  b.members[0].quant.out_type = DType::s32;
  b.members[0].quant.relu = false;
  EXPECT_NE(error_of([&] { b.validate(); }).find("8-bit output type of the expansion"), std::string::npos)
      << error_of([&] { b.validate(); });
  b = stride_two_block();
  b.members[2].threads = 2;
  EXPECT_NE(error_of([&] { b.validate(); }).find("threads=2 differs"), std::string::npos);
  const std::string key = stride_two_block().key();
  // Two members read as depthwise and projection: here the first is the 1x1 expansion.
  EXPECT_NE(error_of([&] { BlockWorkload::parse_key(key.substr(0, key.rfind('|'))); })
                .find("block depthwise: must be a depthwise convolution"),
            std::string::npos);
  EXPECT_NE(error_of([&] { BlockWorkload::parse_key("inverted_residual:" + stride_two_block().members[0].key()); })
                .find("expected 2 or 3 member keys, got 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { BlockWorkload::parse_key("fused_block:x|y"); }).find("expected 'inverted_residual:"),
            std::string::npos);
  EXPECT_NE(error_of([&] { BlockWorkload::parse_key(key + "|conv2d:n=1"); }).find("expected 2 or 3 member keys, got 4"),
            std::string::npos);
  std::string bad = key;
  bad.replace(bad.find("oc=144"), 6, "oc=abc");
  EXPECT_NE(error_of([&] { BlockWorkload::parse_key(bad); }).find("block key: expansion: "), std::string::npos);
}

TEST(BlockConfig, SaysFusedTheStripHeightAndEachMembersConfiguration) {
  const BlockConfig fused = BlockConfig::parse("fused=1;rows=4|a=1|b=2|c=3", 3);
  EXPECT_TRUE(fused.fused);
  EXPECT_EQ(fused.rows, 4);
  EXPECT_EQ(fused.member_configs, (std::vector<std::string>{"a=1", "b=2", "c=3"}));
  EXPECT_EQ(fused.key(), "fused=1;rows=4|a=1|b=2|c=3");
  const BlockConfig unfused = BlockConfig::parse("fused=0|a=1|b=2", 2);
  EXPECT_FALSE(unfused.fused);
  EXPECT_EQ(unfused.key(), "fused=0|a=1|b=2");
  for (const auto& [key, why] : std::vector<std::pair<std::string, std::string>>{
           {"fused=1;rows=0|a|b", "rows must be a whole number from 1, got '0'"},
           {"fused=1;rows=04|a|b", "rows must be a whole number from 1, got '04'"},
           {"fused=1;rows=x|a|b", "rows must be a whole number from 1, got 'x'"},
           {"fused=1|a|b", "expected 'fused=0' or 'fused=1;rows=N' first, got 'fused=1'"},
           {"fused=0|a", "and 2 member configurations, got 1"},
           {"fused=0|a||", "and 2 member configurations, got 3"},
           {"fused=0||b", "member 1's configuration is empty"},
           {"fused=2|a|b", "expected 'fused=0' or 'fused=1;rows=N' first, got 'fused=2'"}}) {
    EXPECT_NE(error_of([&] { BlockConfig::parse(key, 2); }).find(why), std::string::npos)
        << key << ": " << error_of([&] { BlockConfig::parse(key, 2); });
  }
}

}  // namespace block_workload_test
}  // namespace qtune
