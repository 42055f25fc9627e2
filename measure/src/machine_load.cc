#include "qtune/measure/machine_load.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace qtune {
namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<double> numbers(std::string_view text) {
  std::vector<double> out;
  std::istringstream in{std::string(text)};
  double v = 0;
  while (in >> v) out.push_back(v);
  return out;
}

// user + system ticks of a process and of its reaped children, from its /proc/<pid>/stat text,
// and its parent's pid; nullopt when the text is not in the kernel's format.
struct ProcessTicks {
  double ticks = 0;
  long parent = 0;
};
std::optional<ProcessTicks> process_ticks(std::string_view stat) {
  // Fields after the command name's ")" start at field 3 (state): the parent is field 4, utime,
  // stime, cutime and cstime are fields 14 to 17, in the same clock ticks as /proc/stat.
  const std::size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::istringstream fields{std::string(stat.substr(close + 1))};
  std::vector<std::string> f;
  for (std::string s; fields >> s;) f.push_back(s);
  if (f.size() < 15) return std::nullopt;
  try {
    return ProcessTicks{std::stod(f[11]) + std::stod(f[12]) + std::stod(f[13]) + std::stod(f[14]), std::stol(f[1])};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

CpuTimes parse_cpu_times(std::string_view proc_stat, std::string_view self_stat) {
  CpuTimes t;
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (guest time is already
  // in user), then one such line per core.
  std::istringstream lines{std::string(proc_stat)};
  std::string line;
  bool have_total = false;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      const std::vector<double> v = numbers(std::string_view(line).substr(4));
      if (v.size() < 8) return {};
      t.busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
      t.total_ticks = t.busy_ticks + v[3] + v[4];
      have_total = true;
    } else if (line.size() > 3 && line.rfind("cpu", 0) == 0 && line[3] >= '0' && line[3] <= '9') {
      ++t.cores;
    }
  }
  const std::optional<ProcessTicks> own = process_ticks(self_stat);
  if (!have_total || t.cores == 0 || !own) return {};
  t.own_ticks = own->ticks;
  t.valid = true;
  return t;
}

CpuTimes sample_cpu_times() {
  CpuTimes t = parse_cpu_times(read_text("/proc/stat"), read_text("/proc/self/stat"));
  if (!t.valid) return t;
  // Children still running (the isolated measurer's worker lives for the whole session) are ours
  // too; reaped ones are already in the process's own cutime and cstime.
  const long self = static_cast<long>(::getpid());
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::optional<ProcessTicks> child = process_ticks(read_text((entry.path() / "stat").c_str()));
    if (child && child->parent == self) t.own_ticks += child->ticks;
  }
  return t;
}

std::optional<double> others_busy_cores(const CpuTimes& start, const CpuTimes& end) {
  if (!start.valid || !end.valid || end.cores != start.cores) return std::nullopt;
  const double elapsed_per_core = (end.total_ticks - start.total_ticks) / end.cores;
  if (elapsed_per_core <= 0) return std::nullopt;
  const double others = (end.busy_ticks - start.busy_ticks) - (end.own_ticks - start.own_ticks);
  return std::max(0.0, others / elapsed_per_core);
}

}  // namespace qtune
