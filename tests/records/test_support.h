// Shared helpers of the records tests: a scratch directory per test, sample measurements and a
// small key validator standing in for search_space.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

#include "scratch_dir.h"
#include "qtune/records/key_validators.h"
#include "qtune/records/measurement.h"

namespace qtune::records::testing {

inline constexpr const char* kWorkload = "gemm:m=784;n=128;k=1152;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
inline constexpr const char* kWorkload2 = "gemm:m=49;n=1024;k=1024;a=u8;out=s8;azp=1;bzp=0;q=channel;round=tflite;threads=1";
inline constexpr const char* kTarget =
    "arch=x86_64;cpu=AMD EPYC;isas=scalar,avx2;cores=2;l1d=32K;l2=512K;l3=32768K;cc=gcc 12.2.0;qtune=0.1.0";
inline constexpr const char* kTarget2 =
    "arch=aarch64;cpu=Cortex-A76;isas=scalar,neon,dotprod;cores=4;l1d=64K;l2=256K;l3=2048K;cc=gcc 12.2.0;qtune=0.1.0";

inline std::string config_key(int tile_rows, int kc) {
  return "isa=avx2;tile=" + std::to_string(tile_rows) + "x12;kc=" + std::to_string(kc) +
         ";mc=0;nc=0;pack_a=1;fuse=1;threads=1";
}

// A correct measurement with consistent statistics around `median_ns`.
inline MeasurementRecord correct(const std::string& workload, const std::string& target, const std::string& config,
                                 double median_ns, const std::string& timestamp = "") {
  MeasurementRecord r;
  r.workload_key = workload;
  r.target_key = target;
  r.config_key = config;
  TimingStats s;
  s.median_ns = median_ns;
  s.min_ns = median_ns * 0.95;
  s.max_ns = median_ns * 1.2;
  s.mean_ns = median_ns * 1.01;
  s.stddev_ns = median_ns * 0.02;
  s.cv = s.stddev_ns / s.mean_ns;
  s.repetitions = 10;
  s.iterations = 100;
  s.gops = 0.231 / (median_ns * 1e-9) / 1e9;
  r.stats = s;
  r.timestamp = timestamp;
  r.qtune_version = "0.1.0";
  r.settings = {{"min_time_s", 0.05}, {"repetitions", 10}};
  return r;
}

inline MeasurementRecord failed(const std::string& workload, const std::string& target, const std::string& config,
                                const std::string& kind, const std::string& timestamp = "") {
  MeasurementRecord r;
  r.workload_key = workload;
  r.target_key = target;
  r.config_key = config;
  r.error_kind = kind;
  r.error_message = kind + " in test";
  r.timestamp = timestamp;
  r.qtune_version = "0.1.0";
  return r;
}

// Stand-in for search_space's validators: workloads start with "gemm:" or "conv2d:", targets
// start with "arch=", and configurations may only use the knobs of the gemm space.
inline KeyValidators test_validators() {
  KeyValidators v;
  v.workload = [](const std::string& key) {
    if (key.rfind("gemm:", 0) != 0 && key.rfind("conv2d:", 0) != 0)
      throw std::invalid_argument("unknown operator in '" + key.substr(0, key.find(':')) + "'");
    WorkloadSummary s = default_workload_summary(key);
    s.gops = 0.231;
    s.description = s.op + " test";
    return s;
  };
  v.target = [](const std::string& key) {
    if (key.rfind("arch=", 0) != 0) throw std::invalid_argument("field 'arch': missing");
  };
  v.config = [](const std::string&, const std::string& key) {
    std::istringstream in(key);
    std::string assignment;
    while (std::getline(in, assignment, ';')) {
      const std::string knob = assignment.substr(0, assignment.find('='));
      static const char* kKnobs[] = {"isa", "tile", "kc", "mc", "nc", "pack_a", "fuse", "threads"};
      bool known = false;
      for (const char* k : kKnobs) known |= knob == k;
      if (!known) throw std::invalid_argument("unknown knob '" + knob + "'");
    }
    return key;
  };
  return v;
}

using ::qtune::testing::ScratchDir;  // scratch_dir.h

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace qtune::records::testing
