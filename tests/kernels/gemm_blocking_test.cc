// The GEMM driver around every microkernel: KC/MC/NC blocking values that split the problem,
// 1 and 2 threads (split over M and over N), strided A and C with canaries, repeated runs (scratch
// reuse), K = 4096, concurrent run() calls on one operator, and A given as an indirection table
// (the convolution path) - all bit-exact with gemm_reference.
#include <cstring>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "kernels/gemm_tester.h"
#include "kernels/src/gemm/gemm_driver.h"

namespace qtune::testing {
namespace {

struct BlockingParam {
  GemmMicrokernelInfo uk;
  bool pack_a;
};

std::vector<BlockingParam> blocking_params() {
  std::vector<BlockingParam> out;
  for (const auto& uk : compiled_microkernels()) {
    out.push_back({uk, true});
    if (microkernel_reads_a_in_place(uk)) out.push_back({uk, false});
  }
  return out;
}

std::string blocking_name(const ::testing::TestParamInfo<BlockingParam>& info) {
  return tile_id(info.param.uk) + (info.param.pack_a ? "_packA" : "_inPlaceA");
}

class GemmBlocking : public ::testing::TestWithParam<BlockingParam> {};

TEST_P(GemmBlocking, BlockingThreadsAndStridesAreBitExact) {
  const auto& [uk, pack_a] = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(uk.isa);
  struct Blocking {
    int kc, mc, nc, threads;
  };
  const int kr = uk.kr, mr = uk.mr, nr = uk.nr;
  const Blocking blockings[] = {
      {kr, 0, 0, 1},              // one k group per block: every block boundary
      {3 * kr, mr, nr, 1},        // every dimension split, odd K blocks
      {5 * kr, 2 * mr, 0, 2},     // two threads over M blocks
      {0, 0, nr, 2},              // two threads over N blocks
      {4 * kr, 0, 2 * nr, 2},     // K and N blocking, two threads
      {2 * kr, mr, nr, 2},        // two threads over a grid of M and N blocks (numbered N-major)
  };
  std::uint64_t seed = 7;
  for (const Blocking& b : blockings) {
    GemmConfig config = config_for(uk, pack_a, true);
    config.kc = b.kc;
    config.mc = b.mc;
    config.nc = b.nc;
    config.threads = b.threads;
    for (DType out_type : {DType::s32, DType::s8, DType::u8}) {
      for (bool fuse : {true, false}) {
        if (out_type == DType::s32 && !fuse) continue;
        config.fuse_requant = fuse;
        GemmCase t;
        t.m = 3 * mr + 2;
        t.n = 3 * nr + 1;
        t.k = 50;
        t.a_type = (seed & 1) ? DType::s8 : DType::u8;
        t.out_type = out_type;
        t.b_zero_points = ZeroPoints::per_channel;
        t.mode = kAllRoundingModes[seed % kAllRoundingModes.size()];
        t.lda_pad = 5;
        t.ldc_pad = 3;
        t.seed = seed++;
        expect_gemm_matches_reference(t, config, /*runs=*/2);
      }
    }
    if (HasFailure()) return;
  }
}

TEST_P(GemmBlocking, SmallMSplitsOverNWithTwoThreads) {
  const auto& [uk, pack_a] = GetParam();
  QTUNE_SKIP_UNLESS_USABLE(uk.isa);
  GemmConfig config = config_for(uk, pack_a, true);
  config.threads = 2;
  GemmCase t;
  t.m = 1;
  t.n = 4 * uk.nr + 3;
  t.k = 33;
  t.out_type = DType::u8;
  t.b_zero_points = ZeroPoints::per_tensor;
  expect_gemm_matches_reference(t, config);
}

TEST(GemmBlockingSweep, CoversEveryCompiledInstructionSet) { expect_sweep_covers_every_isa(blocking_params()); }

INSTANTIATE_TEST_SUITE_P(AllMicrokernels, GemmBlocking, ::testing::ValuesIn(blocking_params()), blocking_name);

// K = 4096 (long accumulation, wrapping-free range but big sums) on the largest tile of each ISA.
TEST(GemmLongK, K4096IsBitExact) {
  for (Isa isa : compiled_isas()) {
    const GemmMicrokernelInfo* largest = nullptr;
    for (const auto& uk : gemm_microkernels()) {
      if (uk.isa == isa && (!largest || uk.mr * uk.nr > largest->mr * largest->nr)) largest = &uk;
    }
    if (largest == nullptr || !cpu_features().usable(isa)) continue;
    for (int kc : {0, 1024}) {
      GemmConfig config = config_for(*largest, true, true);
      config.kc = kc;
      GemmCase t;
      t.m = largest->mr + 3;
      t.n = largest->nr + 5;
      t.k = 4096;
      t.a_type = DType::s8;
      t.out_type = kc == 0 ? DType::s32 : DType::s8;
      t.b_zero_points = ZeroPoints::per_channel;
      expect_gemm_matches_reference(t, config);
    }
  }
}

// Concurrent run() calls on one operator (each with two pool threads) give the reference result.
TEST(GemmThreadSafety, ConcurrentRunsOnOneOp) {
  GemmCase t;
  t.m = 67;
  t.n = 45;
  t.k = 91;
  t.out_type = DType::s8;
  const GemmData d = make_gemm_data(t);
  GemmConfig config = gemm_default_config(d.problem);
  config.threads = 2;
  config.mc = config.mr * 2;
  const GemmOp op = GemmOp::prepare(d.problem, config, d.b.data(), d.ldb, d.bias.data());
  std::vector<std::uint8_t> expected(static_cast<std::size_t>(t.m * t.n));
  gemm_reference(d.problem, d.a.data(), d.lda, d.b.data(), d.ldb, d.bias.data(), expected.data(), d.ldc);
  std::vector<std::vector<std::uint8_t>> results(4, std::vector<std::uint8_t>(expected.size()));
  std::vector<std::thread> callers;
  for (auto& r : results) {
    callers.emplace_back([&] {
      for (int i = 0; i < 5; ++i) op.run(d.a.data(), d.lda, r.data(), d.ldc);
    });
  }
  for (auto& c : callers) c.join();
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

// A given as an indirection table, as the convolution drives the engine: ks segments of `channels`
// bytes per row, some pointing at the shared zero-point row (never offset), the others offset by
// a_offset (a group's channels).
TEST(GemmIndirect, IndirectionTableMatchesDenseReference) {
  constexpr std::size_t ks = 3, channels = 7, a_offset = 5, rows = 29, pixels = 40, row_stride = 16;
  for (const auto& uk : gemm_microkernels()) {
    if (!cpu_features().usable(uk.isa)) continue;
    SCOPED_TRACE(uk.name);
    GemmCase t;
    t.m = rows;
    t.n = uk.nr + 3;
    t.k = static_cast<std::int64_t>(ks * channels);
    t.a_type = DType::s8;
    t.out_type = DType::u8;
    t.b_zero_points = ZeroPoints::per_channel;
    GemmData d = make_gemm_data(t);
    std::mt19937 rng(3);
    std::vector<std::uint8_t> input(pixels * row_stride);
    for (auto& v : input) v = static_cast<std::uint8_t>(rng());
    const std::vector<std::uint8_t> zero(a_offset + channels, static_cast<std::uint8_t>(d.problem.a_zero_point));
    std::vector<const void*> table(rows * ks);
    std::vector<std::uint8_t> dense(rows * ks * channels);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t s = 0; s < ks; ++s) {
        const bool padding = rng() % 4 == 0;
        const std::uint8_t* src = padding ? zero.data() : input.data() + (rng() % pixels) * row_stride;
        table[r * ks + s] = src;
        std::memcpy(&dense[(r * ks + s) * channels], padding ? src : src + a_offset, channels);
      }
    }
    GemmConfig config = config_for(uk, true, true);
    config.kc = uk.kr * 2;  // K blocks that cut through segments
    config.threads = 2;
    detail::GemmEngine engine(d.problem, config, d.b.data(), d.ldb, d.bias.data());
    std::vector<std::uint8_t> expected(rows * static_cast<std::size_t>(t.n)), got(expected.size());
    gemm_reference(d.problem, dense.data(), ks * channels, d.b.data(), d.ldb, d.bias.data(), expected.data(), d.ldc);
    engine.run(detail::GemmASource::indirect(table.data(), ks, channels, a_offset, zero.data()), got.data(), d.ldc);
    EXPECT_EQ(got, expected);

    if (microkernel_reads_a_in_place(uk)) {
      GemmConfig in_place = config;
      in_place.pack_a = false;
      EXPECT_NE(detail::GemmEngine::check_indirect(in_place), "");
      detail::GemmEngine engine2(d.problem, in_place, d.b.data(), d.ldb, d.bias.data());
      EXPECT_THROW(engine2.run(detail::GemmASource::indirect(table.data(), ks, channels, a_offset, zero.data()),
                               got.data(), d.ldc),
                   std::invalid_argument);
    }
  }
}

// The span of each panel of rows (GemmASource::live_panels): from the least first to the greatest
// end over the rows with any live segment, {0, 1} where none has one, the last panel short.
TEST(GemmLiveSegments, PanelSpansAreTheUnionOfTheirRows) {
  using Range = detail::GemmASource::SegmentRange;
  const std::vector<Range> rows = {{2, 5}, {1, 3}, {0, 0}, {4, 4}, {3, 1}, {6, 7}, {0, 7}};
  EXPECT_EQ(detail::panel_live_spans(rows.data(), rows.size(), 2).size(), 4u);
  const auto spans = detail::panel_live_spans(rows.data(), rows.size(), 3);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].first, 1);  // rows 0-1 live, row 2 has nothing
  EXPECT_EQ(spans[0].end, 5);
  EXPECT_EQ(spans[1].first, 6);  // rows 3-4 have nothing live (first >= end), row 5 does
  EXPECT_EQ(spans[1].end, 7);
  EXPECT_EQ(spans[2].first, 0);  // the short last panel
  EXPECT_EQ(spans[2].end, 7);
  const auto dead = detail::panel_live_spans(rows.data() + 2, 3, 3);  // no row of the panel is live
  EXPECT_EQ(dead[0].first, 0);
  EXPECT_EQ(dead[0].end, 1);
}

// A segmented A whose dead segments hold the zero point 0, as a padded convolution gives the
// engine: the same result with the rows' live ranges, with the caller's panel spans, and with
// spans made for another tile height (which the engine must ignore and work out itself).
TEST(GemmLiveSegments, CallerPanelSpansMatchTheEnginesOwn) {
  constexpr std::size_t segments = 5, segment_bytes = 12, rows = 37, pixel_rows = 64;
  using Range = detail::GemmASource::SegmentRange;
  int ran = 0;
  for (const auto& uk : gemm_microkernels()) {
    if (!cpu_features().usable(uk.isa) || !microkernel_reads_a_in_place(uk)) continue;
    if (detail::find_gemm_ukernel(uk.isa, uk.mr, uk.nr)->fn_segments == nullptr) continue;
    SCOPED_TRACE(uk.name);
    GemmCase t;
    t.m = rows;
    t.n = uk.nr + 5;
    t.k = static_cast<std::int64_t>(segments * segment_bytes);
    t.a_zero_point_nonzero = false;  // dead bytes read as 0
    t.b_zero_points = ZeroPoints::per_tensor;
    t.out_type = DType::u8;
    GemmData d = make_gemm_data(t);
    ASSERT_EQ(d.problem.a_zero_point, 0);
    // Row r's segment s is pixel row (offset_r + s) of a buffer; rows outside its live range read
    // zero rows.
    std::mt19937 rng(11);
    std::vector<std::uint8_t> buffer(pixel_rows * segment_bytes);
    for (auto& v : buffer) v = static_cast<std::uint8_t>(rng());
    std::vector<std::size_t> offsets(rows);
    std::vector<Range> live(rows);
    std::vector<std::uint8_t> dense(rows * segments * segment_bytes, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      const auto first = static_cast<std::uint16_t>(rng() % segments);
      const auto end = static_cast<std::uint16_t>(r % 7 == 3 ? first : first + 1 + rng() % (segments - first));
      live[r] = {first, end};
      offsets[r] = (r % (pixel_rows - segments)) * segment_bytes;
    }
    // The live segments' bytes stay, the dead ones become 0 (in the buffer a row reads: each row
    // gets its own stretch of it, so that one row's dead segment is no other's live one).
    std::vector<std::uint8_t> a(rows * segments * segment_bytes);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t s = 0; s < segments; ++s) {
        const bool is_live = s >= live[r].first && s < live[r].end;
        for (std::size_t b = 0; b < segment_bytes; ++b) {
          const std::uint8_t v = is_live ? buffer[offsets[r] + s * segment_bytes + b] : 0;
          a[(r * segments + s) * segment_bytes + b] = v;
          dense[(r * segments + s) * segment_bytes + b] = v;
        }
      }
      offsets[r] = r * segments * segment_bytes;
    }
    GemmConfig config = config_for(uk, false, true);
    config.kc = static_cast<int>(segment_bytes);
    ASSERT_EQ(detail::GemmEngine::check_segmented(config, segment_bytes), "");
    std::vector<std::uint8_t> expected(rows * static_cast<std::size_t>(t.n));
    gemm_reference(d.problem, dense.data(), segments * segment_bytes, d.b.data(), d.ldb, d.bias.data(), expected.data(),
                   d.ldc);
    const auto source = detail::GemmASource::dense_segments(a.data(), offsets.data(), segment_bytes);
    const auto own_height = detail::panel_live_spans(live.data(), rows, static_cast<std::size_t>(uk.mr));
    const auto other_height = detail::panel_live_spans(live.data(), rows, static_cast<std::size_t>(uk.mr) + 1);
    for (int threads : {1, 2}) {
      config.threads = threads;
      detail::GemmEngine engine(d.problem, config, d.b.data(), d.ldb, d.bias.data());
      for (const auto& [name, panels, height] :
           {std::tuple{"engine's own spans", static_cast<const Range*>(nullptr), std::size_t{0}},
            std::tuple{"caller's spans", own_height.data(), static_cast<std::size_t>(uk.mr)},
            std::tuple{"spans of another height", other_height.data(), static_cast<std::size_t>(uk.mr) + 1}}) {
        SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
        std::vector<std::uint8_t> got(expected.size(), 0xA5);
        engine.run(source.with_live_segments(live.data(), 0, panels, height), got.data(), d.ldc);
        EXPECT_EQ(got, expected);
      }
    }
    ++ran;
  }
  if (cpu_features().usable(Isa::avx512vnni)) {
    EXPECT_GT(ran, 0);
  }
}

}  // namespace
}  // namespace qtune::testing
