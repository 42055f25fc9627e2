#include "qtune/measure/run_queue_wait.h"

#include <filesystem>
#include <fstream>

namespace qtune {

std::optional<double> run_queue_wait_ns() {
  std::error_code error;
  std::filesystem::directory_iterator tasks("/proc/self/task", error);
  if (error) return std::nullopt;
  double total = 0;
  bool any = false;
  for (const auto& task : tasks) {
    std::ifstream in(task.path() / "schedstat");
    double on_cpu = 0, waiting = 0;
    // A thread that ended since the directory was read has no file: its wait is in no total.
    if (!(in >> on_cpu >> waiting)) continue;
    total += waiting;
    any = true;
  }
  if (!any) return std::nullopt;
  return total;
}

}  // namespace qtune
