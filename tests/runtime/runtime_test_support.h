// Shared helpers of the runtime tests: deterministic data, temporary files, tuned entries for the
// current target, and logs / databases holding them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include <string>
#include <vector>

#include "qtune/kernels/build_info.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/records/log_format.h"
#include "qtune/records/timestamp.h"
#include "qtune/records/tuning_db.h"
#include "qtune/runtime/runtime.h"
#include "qtune/runtime/workload_of.h"
#include "qtune/search_space/operator_spaces.h"
#include "qtune/search_space/target.h"

namespace qtune::runtime::testing {

inline std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> out(count);
  for (auto& v : out) v = static_cast<std::uint8_t>(rng());
  return out;
}

inline std::vector<std::int8_t> random_weights(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int8_t> out(count);
  for (auto& v : out) v = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
  return out;
}

inline std::vector<std::int32_t> random_bias(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> out(count);
  for (auto& v : out) v = static_cast<std::int32_t>(rng() % 20001) - 10000;
  return out;
}

inline std::size_t out_bytes(DType type) { return type == DType::s32 ? 4 : 1; }

// A directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? info->name() : "test";
    std::replace(name.begin(), name.end(), '/', '_');  // parameterized tests: "Name/param"
    path_ = std::filesystem::temp_directory_path() / ("qtune_runtime_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline Workload gemm_workload(std::int64_t m, std::int64_t n, std::int64_t k, int threads = 1) {
  Workload w;
  w.op = OpKind::gemm;
  w.m = m;
  w.n = n;
  w.k = k;
  w.threads = threads;
  return w;
}

inline Workload conv_workload(std::int64_t hw, std::int64_t c, std::int64_t oc, std::int64_t kernel, std::int64_t stride,
                              std::int64_t pad, std::int64_t groups = 1) {
  Workload w;
  w.op = OpKind::conv2d;
  w.in_h = w.in_w = hw;
  w.in_c = c;
  w.out_c = oc;
  w.kernel_h = w.kernel_w = kernel;
  w.stride_h = w.stride_w = stride;
  w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = pad;
  w.groups = groups;
  return w;
}

// A valid configuration of `w` on this CPU that is NOT the heuristic default, so that a test can
// tell a tuned choice from a fallback.
inline Config non_default_config(const Workload& w) {
  const KnobSpace space = space_for(w, cpu_features());
  const Config fallback = default_config(w, cpu_features());
  for (const Config& c : space.neighbours(fallback)) {
    if (to_library_config(c)) continue;  // a kernel configuration: the tests read its knobs
    // Not a family that clips weight pairs: the runtime runs the default instead of it over the
    // tests' uniform weights (clipped_weights_fallback_test.cc).
    const Isa isa = w.op == OpKind::gemm ? to_gemm_config(c).isa : to_conv2d_config(c).gemm.isa;
    if (isa_clips_weight_pairs(isa)) continue;
    const std::string why = w.op == OpKind::gemm ? gemm_check_config(w.gemm_problem(), to_gemm_config(c))
                                                 : conv2d_check_config(w.conv2d_problem(), to_conv2d_config(c));
    if (why.empty()) return c;
  }
  ADD_FAILURE() << "no valid non-default configuration for " << w.key();
  return fallback;
}

inline records::MeasurementRecord measurement(const std::string& workload_key, const std::string& target_key,
                                              const std::string& config_key, double median_ns) {
  records::MeasurementRecord r;
  r.workload_key = workload_key;
  r.target_key = target_key;
  r.config_key = config_key;
  records::TimingStats s;
  s.median_ns = s.min_ns = s.max_ns = s.mean_ns = median_ns;
  s.repetitions = 3;
  s.iterations = 10;
  r.stats = s;
  r.timestamp = records::utc_now_iso8601();
  r.qtune_version = version();
  r.source = records::MeasurementSource::imported;
  return r;
}

inline void write_log(const std::string& path, const std::vector<records::MeasurementRecord>& lines) {
  std::ofstream out(path);
  for (const auto& r : lines) out << records::to_log_line(r) << "\n";
}

inline void write_database(const std::string& path, const std::vector<records::MeasurementRecord>& lines) {
  auto db = records::TuningDb::open(path, records::OpenMode::create, records::opaque_keys());
  for (const auto& r : lines) db.add_measurement(r);
}

// Collects warnings instead of printing them.
struct WarningCollector {
  std::vector<std::string> messages;
  RuntimeOptions options(std::string target_key = "") {
    RuntimeOptions o;
    o.target_key = std::move(target_key);
    o.warning_sink = [this](const std::string& m) { messages.push_back(m); };
    return o;
  }
};

// A GEMM layer with deterministic data: prepare it through a runtime, run it, and compare the
// output byte for byte with gemm_reference.
struct GemmCase {
  GemmProblem problem;
  std::vector<std::uint8_t> a;
  std::vector<std::int8_t> b;
  std::vector<std::int32_t> bias;

  explicit GemmCase(const Workload& w, std::uint64_t seed = 7)
      : problem(w.gemm_problem(seed)),
        a(random_bytes(static_cast<std::size_t>(w.m * w.k), seed)),
        b(random_weights(static_cast<std::size_t>(w.k * w.n), seed + 1)),
        bias(random_bias(static_cast<std::size_t>(w.n), seed + 2)) {}

  PreparedGemm prepare(const Runtime& rt, int threads) const {
    return rt.prepare_gemm(problem, b.data(), static_cast<std::size_t>(problem.n), bias.data(), threads);
  }
  std::vector<std::uint8_t> reference() const {
    std::vector<std::uint8_t> c(static_cast<std::size_t>(problem.m * problem.n) * out_bytes(problem.out_type));
    gemm_reference(problem, a.data(), static_cast<std::size_t>(problem.k), b.data(), static_cast<std::size_t>(problem.n),
                   bias.data(), c.data(), static_cast<std::size_t>(problem.n));
    return c;
  }
  std::vector<std::uint8_t> run(const PreparedGemm& op) const {
    std::vector<std::uint8_t> c(static_cast<std::size_t>(problem.m * problem.n) * out_bytes(problem.out_type), 0xA5);
    op.run(a.data(), static_cast<std::size_t>(problem.k), c.data(), static_cast<std::size_t>(problem.n));
    return c;
  }
};

struct ConvCase {
  Conv2dProblem problem;
  std::vector<std::uint8_t> input;
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> bias;

  explicit ConvCase(const Workload& w, std::uint64_t seed = 11)
      : problem(w.conv2d_problem(seed)),
        input(random_bytes(static_cast<std::size_t>(w.batch * w.in_h * w.in_w * w.in_c), seed)),
        weights(random_weights(static_cast<std::size_t>(w.kernel_h * w.kernel_w * (w.in_c / w.groups) * w.out_c),
                               seed + 1)),
        bias(random_bias(static_cast<std::size_t>(w.out_c), seed + 2)) {}

  std::size_t output_bytes() const {
    return static_cast<std::size_t>(problem.batch * problem.out_h() * problem.out_w() * problem.out_c) *
           out_bytes(problem.out_type);
  }
  PreparedConv2d prepare(const Runtime& rt, int threads) const {
    return rt.prepare_conv2d(problem, weights.data(), bias.data(), threads);
  }
  std::vector<std::uint8_t> reference() const {
    std::vector<std::uint8_t> out(output_bytes());
    conv2d_reference(problem, input.data(), weights.data(), bias.data(), out.data());
    return out;
  }
  std::vector<std::uint8_t> run(const PreparedConv2d& op) const {
    std::vector<std::uint8_t> out(output_bytes(), 0xA5);
    op.run(input.data(), out.data());
    return out;
  }
};

inline std::string current_target_key() { return current_target().key(); }

}  // namespace qtune::runtime::testing
