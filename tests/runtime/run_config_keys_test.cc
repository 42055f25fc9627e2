// A network run records the configuration that ran, and for an untuned layer that is the
// runtime's heuristic default, whose blocking is not snapped into the searchable grid: `qtune run
// --db` stored every layer's rows until one such layer made the whole run fail ("bad value
// mc=7404 for conv2d"). The run-configuration validator takes those keys and nothing else the
// search space's validator refuses.
#include <gtest/gtest.h>

#include "qtune/records/network_runs.h"
#include "qtune/records/tuning_db.h"
#include "qtune/runtime/key_validators.h"
#include "qtune/runtime/runtime.h"
#include "runtime/runtime_test_support.h"

namespace qtune::runtime {
namespace {

using namespace testing;

// InceptionV3's first convolution, the layer of the report.
const std::string kStem =
    "conv2d:n=1;h=299;w=299;c=3;oc=32;kh=3;kw=3;sh=2;sw=2;dh=1;dw=1;pad=0,0,0,0;g=1;a=u8;out=u8;azp=1;bzp=1;q=tensor;"
    "round=tflite;relu=1;threads=1";
const std::string kStemHeuristic = "algo=im2col;isa=avx2;tile=6x16;kc=0;mc=7404;nc=0;pack_a=1;fuse=1;threads=1";

TEST(RunConfigKeys, TheRuntimesHeuristicBlockingIsARunConfiguration) {
  const auto validators = search_space_validators();
  EXPECT_THROW(validators.config(kStem, kStemHeuristic), std::invalid_argument);
  EXPECT_EQ(validators.run_config(kStem, kStemHeuristic), kStemHeuristic);
  // Every heuristic choice of this host for some layers of the networks, whatever its blocking.
  const Runtime untuned;
  for (const std::string& key :
       {kStem, conv_workload(56, 64, 64, 3, 1, 1).key(), conv_workload(7, 960, 160, 1, 1, 0).key(),
        conv_workload(112, 32, 32, 3, 1, 1, 32).key(), gemm_workload(1, 1000, 1280).key(),
        gemm_workload(3136, 64, 576).key()}) {
    const Workload w = Workload::parse_key(key);
    const Selection s = w.op == OpKind::gemm ? untuned.select_gemm(w.gemm_problem(), 1)
                                             : untuned.select_conv2d(w.conv2d_problem(), 1);
    EXPECT_EQ(s.source, ConfigSource::heuristic) << key;
    EXPECT_EQ(validators.run_config(key, s.config_key), s.config_key) << key;
  }
}

TEST(RunConfigKeys, OnlyBlockingValuesMayLeaveTheGrid) {
  const auto validators = search_space_validators();
  for (const std::string& bad :
       {std::string("algo=im2col;isa=avx2;tile=6x16;kc=0;mc=abc;nc=0;pack_a=1;fuse=1;threads=1"),
        std::string("algo=im2col;isa=avx2;tile=6x16;kc=0;mc=-64;nc=0;pack_a=1;fuse=1;threads=1"),
        std::string("algo=im2col;isa=avx2;tile=7x13;kc=0;mc=7404;nc=0;pack_a=1;fuse=1;threads=1"),
        std::string("algo=im2col;isa=nonesuch;tile=6x16;kc=0;mc=7404;nc=0;pack_a=1;fuse=1;threads=1"),
        std::string("algo=im2col;isa=avx2;tile=6x16;kc=0;mc=7404;nc=0;pack_a=1;fuse=1;threads=1;colour=red"),
        std::string("algo=im2col;isa=avx2;tile=6x16;mc=7404;kc=0;nc=0;pack_a=1;fuse=1;threads=1"),
        std::string("algo=im2col;isa=avx2;tile=6x16;kc=0;mc=7404;nc=0;pack_a=1;fuse=2;threads=1")}) {
    EXPECT_THROW(validators.run_config(kStem, bad), std::invalid_argument) << bad;
  }
  // Keys on the grid keep the search space's canonical spelling, older spellings included.
  const std::string gemm_key = gemm_workload(8, 8, 16).key();
  EXPECT_EQ(validators.run_config(gemm_key, "isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1"),
            "algo=qtune;isa=scalar;tile=8x8;kc=0;mc=0;nc=0;pack_a=0;fuse=1;threads=1");
}

TEST(RunConfigKeys, ANetworkRunOfAnUntunedLayerIsStored) {
  TempDir dir;
  auto db = records::TuningDb::open(dir.file("runs.db"), records::OpenMode::create, search_space_validators());
  records::NetworkRunRecord row;
  row.run_uid = records::new_run_uid();
  row.target_key = current_target().key();
  row.network = "inception_v3";
  row.workload_key = kStem;
  row.impl = records::kImplTuned;
  row.config_key = kStemHeuristic;
  row.median_ns = 1.0e6;
  row.gops = 0.1;
  row.cache = "warm";
  records::add_network_run(db, row);
  const auto rows = records::network_runs(db);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].config_key, kStemHeuristic);
}

}  // namespace
}  // namespace qtune::runtime
