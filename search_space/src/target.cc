// Target keys: the CPU, its usable instruction sets, caches and the build, as one string.
#include "qtune/search_space/target.h"

#include "key_fields.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <stdexcept>

#include "qtune/kernels/build_info.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune {
namespace {

// Model strings are free text: ';' and '=' would break the key's syntax, so they become spaces.
std::string sanitize(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return c == ';' || c == '='; }, ' ');
  return text;
}

std::string bytes_field(long long bytes) {
  if (bytes > 0 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + "K";
  return std::to_string(bytes);
}

long long parse_number(const std::string& key, const std::string& field, const std::string& text) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 0)
    throw std::invalid_argument("target key '" + key + "': field '" + field + "' must be a non-negative integer, got '" +
                                text + "'");
  return v;
}

long long parse_bytes(const std::string& key, const std::string& field, std::string text) {
  long long scale = 1;
  if (!text.empty() && (text.back() == 'K' || text.back() == 'M')) {
    scale = text.back() == 'K' ? 1024 : 1024 * 1024;
    text.pop_back();
  }
  const long long value = parse_number(key, field, text);
  // Found by the workload_key fuzz target: "l3=327633333333333338K" overflowed the multiplication.
  if (value > std::numeric_limits<long long>::max() / scale)
    throw std::invalid_argument("target key '" + key + "': field '" + field + "' is too large, got '" + text +
                                (scale == 1 ? "" : scale == 1024 ? "K" : "M") + "'");
  return value * scale;
}

}  // namespace

std::string Target::key() const {
  std::string isa_list;
  for (Isa isa : isas) {
    if (!isa_list.empty()) isa_list += ',';
    isa_list += to_string(isa);
  }
  return "arch=" + sanitize(arch) + ";cpu=" + sanitize(cpu) + ";isas=" + isa_list + ";cores=" + std::to_string(cores) +
         ";l1d=" + bytes_field(l1d) + ";l2=" + bytes_field(l2) + ";l3=" + bytes_field(l3) + ";cc=" + sanitize(compiler) +
         ";qtune=" + sanitize(qtune_version);
}

Target Target::parse_key(const std::string& key) {
  static const std::vector<std::string> expected = {"arch", "cpu", "isas", "cores", "l1d", "l2", "l3", "cc", "qtune"};
  auto fields = detail::parse_key_fields("target key", key, key, expected);
  Target t;
  t.arch = fields["arch"];
  t.cpu = fields["cpu"];
  const std::string& isa_list = fields["isas"];
  std::size_t p = 0;
  while (p < isa_list.size()) {
    std::size_t comma = isa_list.find(',', p);
    if (comma == std::string::npos) comma = isa_list.size();
    const std::string name = isa_list.substr(p, comma - p);
    auto isa = parse_isa(name);
    if (!isa) throw std::invalid_argument("target key '" + key + "': field 'isas' has unknown instruction set '" + name + "'");
    t.isas.push_back(*isa);
    p = comma + 1;
  }
  const long long cores = parse_number(key, "cores", fields["cores"]);
  if (cores < 1 || cores > 1 << 20) throw std::invalid_argument("target key '" + key + "': field 'cores' out of range");
  t.cores = static_cast<int>(cores);
  t.l1d = parse_bytes(key, "l1d", fields["l1d"]);
  t.l2 = parse_bytes(key, "l2", fields["l2"]);
  t.l3 = parse_bytes(key, "l3", fields["l3"]);
  t.compiler = fields["cc"];
  t.qtune_version = fields["qtune"];
  return t;
}

bool Target::can_run(Isa isa) const { return std::find(isas.begin(), isas.end(), isa) != isas.end(); }

Target current_target() {
  const CpuFeatures& f = cpu_features();
  Target t;
  t.arch = f.arch;
  t.cpu = f.model;
  t.isas = f.usable_isas();
  t.cores = f.logical_cores;
  t.l1d = f.l1d_bytes;
  t.l2 = f.l2_bytes;
  t.l3 = f.l3_bytes;
  t.compiler = compiler();
  t.qtune_version = version();
  return t;
}

}  // namespace qtune
