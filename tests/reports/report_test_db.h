// A small real tuning database for the report tests, built through the records API: two sessions
// with different strategies, three gemm layers, errors, and `qtune run` timings. The numbers are
// chosen so that every figure of the report can be worked out by hand (see the comments).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "scratch_dir.h"
#include "qtune/records/network_runs.h"
#include "qtune/records/tuning_db.h"
#include "qtune/search_space/workload.h"

namespace qtune::reports::testing {

inline constexpr const char* kTarget =
    "arch=x86_64;cpu=AMD EPYC 7B13;isas=scalar,avx2;cores=2;l1d=32K;l2=512K;l3=32768K;cc=gcc 12.2.0;qtune=0.1.0";
inline constexpr const char* kOtherTarget =
    "arch=aarch64;cpu=Cortex-A76;isas=scalar,neon,dotprod;cores=4;l1d=64K;l2=256K;l3=2048K;cc=gcc 12.2.0;qtune=0.1.0";

inline Workload gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  Workload w;
  w.op = OpKind::gemm;
  w.m = m;
  w.n = n;
  w.k = k;
  return w;
}

inline std::string config(const std::string& isa, const std::string& tile, int kc, int fuse) {
  return "isa=" + isa + ";tile=" + tile + ";kc=" + std::to_string(kc) + ";mc=0;nc=0;pack_a=1;fuse=" +
         std::to_string(fuse) + ";threads=1";
}

inline std::string default_config() { return "isa=scalar;tile=1x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1"; }

using ::qtune::testing::ScratchDir;  // scratch_dir.h

// Adds measurements as the tuner does: GOP/s = work / median.
class Recorder {
 public:
  explicit Recorder(records::TuningDb& db, std::string target = kTarget) : db_(db), target_(std::move(target)) {}

  std::int64_t session(const std::string& strategy) {
    records::SessionInfo info;
    info.strategy = strategy;
    info.target_key = target_;
    info.command_line = "qtune tune --strategy " + strategy;
    info.qtune_version = "0.1.0";
    return db_.begin_session(info);
  }

  records::MeasurementRecord correct(std::optional<std::int64_t> session, const Workload& w, const std::string& config,
                                     double median_ns) const {
    records::MeasurementRecord r;
    r.session_id = session;
    r.workload_key = w.key();
    r.target_key = target_;
    r.config_key = config;
    records::TimingStats s;
    s.median_ns = s.min_ns = s.max_ns = s.mean_ns = median_ns;
    s.repetitions = 5;
    s.iterations = 10;
    s.gops = w.gops() / (median_ns * 1e-9);
    r.stats = s;
    r.qtune_version = "0.1.0";
    return r;
  }

  void add(std::optional<std::int64_t> session, const Workload& w, const std::string& config, double median_ns) {
    db_.add_measurement(correct(session, w, config, median_ns));
  }

  void fail(std::int64_t session, const Workload& w, const std::string& config, const std::string& kind) {
    records::MeasurementRecord r;
    r.session_id = session;
    r.workload_key = w.key();
    r.target_key = target_;
    r.config_key = config;
    r.error_kind = kind;
    r.error_message = kind + " in the report test";
    r.qtune_version = "0.1.0";
    db_.add_measurement(r);
  }

 private:
  records::TuningDb& db_;
  std::string target_;
};

// The three tuned layers and one that was never measured.
inline Workload w1() { return gemm(256, 256, 256); }
inline Workload w2() { return gemm(784, 128, 1152); }
inline Workload w3() { return gemm(49, 1024, 1024); }
inline Workload w4_unmeasured() { return gemm(1, 1000, 2048); }

inline double gops_at(const Workload& w, double ns) { return w.gops() / (ns * 1e-9); }

// Session 1 (random):
//   w1: default 4000 ns (untuned), avx2/4x8 fused 2000 / separate 2500, avx2/6x16 fused 1200 /
//       separate 1000, scalar/4x8 wrong_answer
//   w2: default 8000 ns, avx2/4x8 fused 3000, then a timeout
// Session 2 (model):
//   w1: avx2/6x16 kc=128 fused 800 (w1's best) / separate 900
//   w3: default 3000, avx2/6x16 fused 1500
// => w1 8 trials (1 failure), 4000 -> 800 ns; w2 3 trials (1), 8000 -> 3000; w3 2 trials, 3000 -> 1500.
//    Network (each once): untuned 15000 ns, tuned 5300 ns.
//    w1's fuse pairs: 3, fused faster in 2, fused/separate throughput 1.25, 0.833, 1.125 -> median 1.125.
// qtune run "run-1": w1 tuned 850 / default 4100 / oneDNN 1700, w2 tuned 3100 / oneDNN 2400; an
// older "run-0" timed w1's oneDNN at 5000 (superseded).
//    oneDNN vs tuned over w1, w2: 4100 ns vs 3950 ns.
// Another target has one measurement of w1, never reported with kTarget.
inline void fill_test_database(records::TuningDb& db) {
  Recorder r(db);
  const auto random = r.session("random");
  r.add(random, w1(), default_config(), 4000);
  r.add(random, w1(), config("avx2", "4x8", 256, 1), 2000);
  r.add(random, w1(), config("avx2", "4x8", 256, 0), 2500);
  r.add(random, w1(), config("avx2", "6x16", 256, 1), 1200);
  r.add(random, w1(), config("avx2", "6x16", 256, 0), 1000);
  r.fail(random, w1(), config("scalar", "4x8", 256, 1), "wrong_answer");
  r.add(random, w2(), default_config(), 8000);
  r.add(random, w2(), config("avx2", "4x8", 256, 1), 3000);
  r.fail(random, w2(), config("avx2", "6x16", 256, 1), "timeout");
  db.end_session(random, records::SessionStatus::completed);

  const auto model = r.session("model");
  r.add(model, w1(), config("avx2", "6x16", 128, 1), 800);
  r.add(model, w1(), config("avx2", "6x16", 128, 0), 900);
  r.add(model, w3(), default_config(), 3000);
  r.add(model, w3(), config("avx2", "6x16", 256, 1), 1500);
  db.end_session(model, records::SessionStatus::interrupted);

  Recorder other(db, kOtherTarget);
  other.add(std::nullopt, w1(), config("neon", "8x8", 256, 1), 700);

  auto run = [&](const std::string& uid, const Workload& w, const char* impl, double ns, const std::string& cfg) {
    records::NetworkRunRecord row;
    row.run_uid = uid;
    row.target_key = kTarget;
    row.network = "test-net";
    row.workload_key = w.key();
    row.impl = impl;
    row.config_key = cfg;
    row.median_ns = ns;
    row.gops = gops_at(w, ns);
    row.cache = "warm";
    row.low_ns = ns * 0.99;
    row.high_ns = ns * 1.01;
    row.repetitions = 5;
    return row;
  };
  records::add_network_run(db, run("run-0", w1(), records::kImplOneDnn, 5000, ""));
  records::add_network_runs(db, {run("run-1", w1(), records::kImplTuned, 850, config("avx2", "6x16", 128, 1)),
                                 run("run-1", w1(), records::kImplDefault, 4100, default_config()),
                                 run("run-1", w1(), records::kImplOneDnn, 1700, ""),
                                 run("run-1", w2(), records::kImplTuned, 3100, config("avx2", "4x8", 256, 1)),
                                 run("run-1", w2(), records::kImplOneDnn, 2400, "")});
}

// The network file of the weighting tests: w2 three times, w1 twice, and w4 never tuned.
inline WorkloadFile test_network() {
  WorkloadFile file;
  file.network = "test-net";
  file.layers = {Layer{"fc", w2(), 3}, Layer{"proj", w1(), 2}, Layer{"logits", w4_unmeasured(), 1}};
  return file;
}

}  // namespace qtune::reports::testing
