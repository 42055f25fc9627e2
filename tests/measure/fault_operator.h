// A test-only operator whose configurations misbehave on purpose: "fault:n=<elements>" with
// config "mode=ok|wrong|segv|abort|spin|throw". Registered from the test binary only.
#pragma once

#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "qtune/measure/candidate.h"

namespace qtune::testing {

class FaultCandidate final : public Candidate {
 public:
  FaultCandidate(std::string mode, std::size_t n) : mode_(std::move(mode)), input_(n), output_(n) {
    for (std::size_t i = 0; i < n; ++i) input_[i] = static_cast<std::int32_t>(i * 7919 % 1000) - 500;
  }

  void run() override {
    if (mode_ == "segv") {
      // A real invalid access (not raise()): a page mapped without any permission.
      void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      *static_cast<volatile int*>(page) = 1;
    }
    if (mode_ == "abort") std::abort();
    if (mode_ == "throw") throw std::runtime_error("fault candidate threw on purpose");
    if (mode_ == "spin") {
      volatile bool forever = true;
      while (forever) {
      }
    }
    for (std::size_t i = 0; i < input_.size(); ++i) output_[i] = input_[i] * 3 + 1;
    if (mode_ == "wrong") output_[input_.size() / 2] += 1;
  }

  std::string check() override {
    std::vector<std::int32_t> expected(input_.size());
    for (std::size_t i = 0; i < input_.size(); ++i) expected[i] = input_[i] * 3 + 1;
    run();
    return compare_outputs(output_.data(), expected.data(), expected.size(), DType::s32, 16);
  }

  double gops() const override { return 2.0 * static_cast<double>(input_.size()) / 1e9; }

 private:
  std::string mode_;
  std::vector<std::int32_t> input_, output_;
};

inline void register_fault_operator() {
  register_operator("fault", [](const std::string& workload_key, const std::string& config_key,
                                     std::uint64_t) -> std::unique_ptr<Candidate> {
    const std::string prefix = "fault:n=";
    if (workload_key.rfind(prefix, 0) != 0)
      throw CandidateError(ErrorKind::invalid_workload, "fault workload must be fault:n=<elements>");
    const std::size_t n = std::stoul(workload_key.substr(prefix.size()));
    const std::string mode = config_key.rfind("mode=", 0) == 0 ? config_key.substr(5) : "";
    for (const char* known : {"ok", "wrong", "segv", "abort", "spin", "throw"}) {
      if (mode == known) return std::make_unique<FaultCandidate>(mode, n);
    }
    throw CandidateError(ErrorKind::invalid_config,
                         "bad value '" + config_key + "' (allowed: mode=ok|wrong|segv|abort|spin|throw)");
  });
}

}  // namespace qtune::testing
