#include "qtune/search_space/block_workload.h"

#include <sstream>
#include <stdexcept>

#include "qtune/search_space/key_text.h"

namespace qtune {
namespace {

constexpr char kMemberSeparator = '|';

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::int64_t out_extent(std::int64_t in, std::int64_t pad_a, std::int64_t pad_b, std::int64_t kernel,
                        std::int64_t dilation, std::int64_t stride) {
  return (in + pad_a + pad_b - dilation * (kernel - 1) - 1) / stride + 1;
}

bool pointwise(const Workload& w) {
  return w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 && w.pad_top == 0 &&
         w.pad_bottom == 0 && w.pad_left == 0 && w.pad_right == 0 && w.groups == 1;
}

bool depthwise(const Workload& w) { return w.groups == w.in_c && w.groups > 1 && w.out_c % w.in_c == 0; }

const char* member_name(std::size_t index, std::size_t count) {
  if (count == 3) return index == 0 ? "expansion" : index == 1 ? "depthwise" : "projection";
  return index == 0 ? "depthwise" : "projection";
}

}  // namespace

bool is_block_key(std::string_view workload_key) {
  return workload_key.substr(0, workload_key.find(':')) == kInvertedResidualOp;
}

std::string BlockWorkload::key() const {
  std::string key(kInvertedResidualOp);
  key += ':';
  for (std::size_t i = 0; i < members.size(); ++i)
    key += (i ? std::string(1, kMemberSeparator) : "") + members[i].key();
  return key;
}

BlockWorkload BlockWorkload::parse_key(const std::string& key) {
  if (std::string problem = key_text_problem("block key", key); !problem.empty()) throw std::invalid_argument(problem);
  const std::size_t colon = key.find(':');
  if (colon == std::string::npos || key.substr(0, colon) != kInvertedResidualOp)
    throw std::invalid_argument("block key '" + key + "': expected '" + std::string(kInvertedResidualOp) +
                                ":<member key>|<member key>[|<member key>]'");
  BlockWorkload block;
  const std::vector<std::string> parts = split(key.substr(colon + 1), kMemberSeparator);
  if (parts.size() != 2 && parts.size() != 3)
    throw std::invalid_argument("block key '" + key + "': expected 2 or 3 member keys, got " +
                                std::to_string(parts.size()));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    try {
      block.members.push_back(Workload::parse_key(parts[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("block key: " + std::string(member_name(i, parts.size())) + ": " + e.what());
    }
  }
  block.validate();
  return block;
}

void BlockWorkload::validate() const {
  if (members.size() != 2 && members.size() != 3)
    throw std::invalid_argument("block: expected 2 or 3 members, got " + std::to_string(members.size()));
  const std::size_t count = members.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Workload& w = members[i];
    const std::string name = std::string("block ") + member_name(i, count);
    if (w.op != OpKind::conv2d) throw std::invalid_argument(name + ": must be a conv2d");
    try {
      w.validate();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(name + ": " + e.what());
    }
    const bool middle = i + 2 == count;
    if (middle && !depthwise(w)) throw std::invalid_argument(name + ": must be a depthwise convolution (groups = c)");
    if (!middle && !pointwise(w))
      throw std::invalid_argument(name + ": must be pointwise (1x1, stride 1, no padding, one group)");
    if (w.threads != members[0].threads)
      throw std::invalid_argument(name + ": threads=" + std::to_string(w.threads) + " differs from the block's " +
                                  std::to_string(members[0].threads));
    if (i == 0) continue;
    const Workload& p = members[i - 1];
    const std::int64_t h = out_extent(p.in_h, p.pad_top, p.pad_bottom, p.kernel_h, p.dilation_h, p.stride_h);
    const std::int64_t wd = out_extent(p.in_w, p.pad_left, p.pad_right, p.kernel_w, p.dilation_w, p.stride_w);
    if (w.batch != p.batch || w.in_h != h || w.in_w != wd || w.in_c != p.out_c)
      throw std::invalid_argument(name + ": its input " + std::to_string(w.batch) + "x" + std::to_string(w.in_h) + "x" +
                                  std::to_string(w.in_w) + "x" + std::to_string(w.in_c) + " is not the " +
                                  member_name(i - 1, count) + "'s output " + std::to_string(p.batch) + "x" +
                                  std::to_string(h) + "x" + std::to_string(wd) + "x" + std::to_string(p.out_c));
    if (p.quant.out_type == DType::s32 || p.quant.out_type != w.quant.a_type)
      throw std::invalid_argument(name + ": its input type must be the 8-bit output type of the " +
                                  member_name(i - 1, count));
  }
}

std::string BlockWorkload::describe() const {
  std::ostringstream out;
  const Workload& first = members.front();
  const Workload& middle = members[members.size() - 2];
  out << "block " << first.in_h << "x" << first.in_w << "x" << first.in_c;
  if (expands()) out << " ->" << first.out_c;
  out << " dw" << middle.kernel_h << "x" << middle.kernel_w << "/" << middle.stride_h << " ->" << members.back().out_c;
  return out.str();
}

double BlockWorkload::gops() const {
  double sum = 0;
  for (const Workload& w : members) sum += w.gops();
  return sum;
}

std::string BlockConfig::key() const {
  std::string key = fused ? "fused=1;rows=" + std::to_string(rows) : "fused=0";
  for (const std::string& member : member_configs) key += kMemberSeparator + member;
  return key;
}

BlockConfig BlockConfig::parse(const std::string& key, std::size_t members) {
  if (std::string problem = key_text_problem("block configuration", key); !problem.empty())
    throw std::invalid_argument(problem);
  const std::vector<std::string> parts = split(key, kMemberSeparator);
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("block configuration '" + key + "': " + why);
  };
  if (parts.size() != members + 1)
    throw bad("expected 'fused=0|' or 'fused=1;rows=N|' and " + std::to_string(members) + " member configurations, got " +
              std::to_string(parts.size() - 1));
  BlockConfig config;
  if (parts[0] == "fused=0") {
    config.fused = false;
  } else if (parts[0].rfind("fused=1;rows=", 0) == 0) {
    const std::string rows = parts[0].substr(13);
    if (rows.empty() || rows.size() > 6 || rows.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(rows) < 1 || std::to_string(std::stoll(rows)) != rows)
      throw bad("rows must be a whole number from 1, got '" + rows + "'");
    config.fused = true;
    config.rows = std::stoll(rows);
  } else {
    throw bad("expected 'fused=0' or 'fused=1;rows=N' first, got '" + parts[0] + "'");
  }
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].empty()) throw bad("member " + std::to_string(i) + "'s configuration is empty");
    config.member_configs.push_back(parts[i]);
  }
  return config;
}

}  // namespace qtune
