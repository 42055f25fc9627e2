// Every conv2d algorithm x instruction set x tile (a representative set per ISA) x fused/separate
// requantization, bit-exact against conv2d_reference over a sweep of shapes and quantization kinds.
// Variants this CPU cannot run are skipped with a message naming the ISA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <thread>

#include "conv2d_sweep.h"
#include "kernels/src/conv2d/conv2d_gemm.h"
#include "qtune/kernels/cpu_features.h"

namespace qtune {
namespace {

using testing::ConvQuant;

using testing::Shape;
using testing::make_problem;
using testing::quant_kinds;
using testing::kGeneralShapes;
using testing::kDepthwiseShapes;

struct DwTile {
  int channel_tile, width_tile;
};

Conv2dConfig depthwise_config(Isa isa, DwTile tile, bool fuse) {
  Conv2dConfig c;
  c.algo = ConvAlgo::depthwise;
  c.gemm.isa = isa;
  c.gemm.fuse_requant = fuse;
  c.dw_channel_tile = tile.channel_tile;
  c.dw_width_tile = tile.width_tile;
  return c;
}

// The depthwise tiles conv2d_check_config accepts for `isa`, out of every channel and width tile
// of the registry (the knob space's candidates: a tile added there is tested here).
std::vector<DwTile> depthwise_tiles(Isa isa, const Conv2dProblem& p) {
  std::set<int> channel_tiles, width_tiles;
  for (const DepthwiseKernelInfo& k : depthwise_kernels()) {
    channel_tiles.insert(k.channel_tile);
    width_tiles.insert(k.width_tile);
  }
  std::vector<DwTile> tiles;
  for (int ct : channel_tiles) {
    for (int wt : width_tiles) {
      if (conv2d_check_config(p, depthwise_config(isa, {ct, wt}, true)).empty()) tiles.push_back({ct, wt});
    }
  }
  return tiles;
}

// First, middle and last tile of the ISA's GEMM family.
// The families that read A in place, and so run every shape on some tile (not the int16-widening
// AVX2 and AVX-512 BW families, nor AMX's tiles).
bool reads_a_in_place(Isa isa) { return isa != Isa::avx2 && isa != Isa::avx512bw && isa != Isa::amx; }

std::vector<GemmMicrokernelInfo> representative_tiles(Isa isa) {
  std::vector<GemmMicrokernelInfo> family;
  for (const auto& uk : gemm_microkernels()) {
    if (uk.isa == isa) family.push_back(uk);
  }
  if (family.size() <= 3) return family;
  return {family.front(), family[family.size() / 2], family.back()};
}

class Conv2dIsaTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (!cpu_features().usable(GetParam())) {
      GTEST_SKIP() << "isa " << to_string(GetParam()) << " is not usable on this CPU";
    }
  }
};

// The GEMM-based algorithms: every applicable algorithm, representative tiles, pack_a both ways,
// whole-K and blocked K, fused and separate requantization.
TEST_P(Conv2dIsaTest, GemmAlgorithmsMatchReference) {
  const Isa isa = GetParam();
  const auto tiles = representative_tiles(isa);
  if (tiles.empty()) GTEST_SKIP() << "no gemm microkernels for isa " << to_string(isa) << " in this build";
  std::vector<Shape> shapes = kGeneralShapes;
  shapes.insert(shapes.end(), kDepthwiseShapes.begin(), kDepthwiseShapes.begin() + 2);  // grouped GEMMs
  int ran = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    for (std::size_t qi : {si % quant_kinds().size(), (si + 3) % quant_kinds().size()}) {
      const Conv2dProblem p = make_problem(shapes[si], quant_kinds()[qi], static_cast<std::uint32_t>(si * 7 + qi));
      const testing::ConvData d = testing::make_data(p, static_cast<std::uint32_t>(si));
      std::vector<std::uint8_t> expected(testing::output_bytes(p));
      conv2d_reference(p, d.input.data(), d.weights.data(), p.has_bias ? d.bias.data() : nullptr, expected.data());
      for (const auto& tile : tiles) {
        for (ConvAlgo algo : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::gemm_1x1, ConvAlgo::implicit}) {
          for (bool pack_a : {true, false}) {
            for (int kc : {0, 4 * tile.kr}) {
              for (bool fuse : {true, false}) {
                Conv2dConfig c;
                c.algo = algo;
                c.gemm.isa = isa;
                c.gemm.mr = tile.mr;
                c.gemm.nr = tile.nr;
                c.gemm.kc = kc;
                c.gemm.pack_a = pack_a;
                c.gemm.fuse_requant = fuse;
                if (!conv2d_check_config(p, c).empty()) continue;  // e.g. gemm_1x1 on a 3x3 kernel
                SCOPED_TRACE(testing::describe(c));
                testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(si), &expected);
                ++ran;
              }
            }
          }
        }
      }
    }
  }
  // Every shape with its two quantization kinds ran at least im2col and indirect per tile.
  EXPECT_GE(ran, static_cast<int>(shapes.size() * 2 * tiles.size() * 2));
}

// The depthwise kinds: every kind above, plus the modes those leave without a zero weight zero
// point (fp32, upward), the precondition of the dot4 form of the 64-channel AVX-512 tiles.
const std::vector<ConvQuant>& depthwise_quant_kinds() {
  static const std::vector<ConvQuant> kinds = [] {
    std::vector<ConvQuant> k = quant_kinds();
    k.push_back({DType::s8, DType::s8, true, false, true, RoundingMode::fp32});
    k.push_back({DType::u8, DType::u8, true, false, false, RoundingMode::upward});
    return k;
  }();
  return kinds;
}

TEST_P(Conv2dIsaTest, DepthwiseMatchesReference) {
  const Isa isa = GetParam();
  const std::vector<DwTile> kernels =
      depthwise_tiles(isa, make_problem(kDepthwiseShapes[0], quant_kinds()[0], 1));
  if (kernels.empty()) GTEST_SKIP() << "no depthwise kernels for isa " << to_string(isa) << " in this build";
  for (std::size_t si = 0; si < kDepthwiseShapes.size(); ++si) {
    for (std::size_t qi = 0; qi < depthwise_quant_kinds().size(); ++qi) {
      const Conv2dProblem p =
          make_problem(kDepthwiseShapes[si], depthwise_quant_kinds()[qi], static_cast<std::uint32_t>(si * 11 + qi));
      ASSERT_TRUE(p.depthwise());
      const testing::ConvData d = testing::make_data(p, static_cast<std::uint32_t>(qi));
      std::vector<std::uint8_t> expected(testing::output_bytes(p));
      conv2d_reference(p, d.input.data(), d.weights.data(), p.has_bias ? d.bias.data() : nullptr, expected.data());
      for (const auto& k : kernels) {
        for (bool fuse : {true, false}) {
          const Conv2dConfig c = depthwise_config(isa, k, fuse);
          ASSERT_EQ(conv2d_check_config(p, c), "") << testing::describe(c);
          SCOPED_TRACE(testing::describe(c));
          testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(qi), &expected);
        }
      }
    }
  }
}

// Plans that take no short form (requant_neon.h): scales from 1/2 to 16 (arm's left shifts,
// tflite's and upward's general forms) and scales 2^-k, 1.5 * 2^-k, which small operands put on
// ties (tonearest's products, tflite's second rounding). The data are small (activations within 3
// of the zero point, weights within 3 of 0, biases within 20) so that most outputs do not saturate.
TEST_P(Conv2dIsaTest, DepthwiseMatchesReferenceWithScalesAroundOneAndTies) {
  const Isa isa = GetParam();
  const std::vector<DwTile> kernels =
      depthwise_tiles(isa, make_problem(kDepthwiseShapes[0], quant_kinds()[0], 1));
  if (kernels.empty()) GTEST_SKIP() << "no depthwise kernels for isa " << to_string(isa) << " in this build";
  const RoundingMode modes[] = {RoundingMode::tflite, RoundingMode::arm, RoundingMode::upward,
                                RoundingMode::tonearest, RoundingMode::fp32};
  // Ragged channels, 5x5, stride 2, blocks and a tail, wide rows, 7-pixel tiles, pixel pairs.
  for (std::size_t si : {0, 2, 5, 8, 9, 12, 13}) {
    for (std::size_t mi = 0; mi < std::size(modes); ++mi) {
      for (bool tying : {false, true}) {
        const auto seed = static_cast<std::uint32_t>(si * 31 + mi * 2 + (tying ? 1 : 0));
        testing::ConvQuant q;
        q.a_type = seed % 2 ? DType::s8 : DType::u8;
        q.out_type = seed / 2 % 2 ? DType::s8 : DType::u8;
        q.per_channel = (si + mi) % 2 == 0;
        q.rounding = modes[mi];
        Conv2dProblem p = make_problem(kDepthwiseShapes[si], q, seed);
        std::mt19937 rng(seed);
        std::vector<double> scales(q.per_channel ? static_cast<std::size_t>(p.out_c) : 1);
        for (double& s : scales) {
          s = tying ? std::ldexp(rng() % 2 ? 1.5 : 1.0, -2 - static_cast<int>(rng() % 6))
                    : std::ldexp(1.0 + static_cast<double>(rng() % 1000) / 1000.0, static_cast<int>(rng() % 5) - 1);
        }
        p.requant = RequantParams::make(q.rounding, scales, p.requant.output_zero_point, p.requant.qmin, p.requant.qmax);
        testing::ConvData d = testing::make_data(p, seed);
        const int x_lo = p.a_type == DType::u8 ? 0 : -128, x_hi = p.a_type == DType::u8 ? 255 : 127;
        for (auto& x : d.input) {
          x = static_cast<std::uint8_t>(std::clamp(p.a_zero_point + static_cast<int>(rng() % 7) - 3, x_lo, x_hi));
        }
        for (auto& w : d.weights) w = static_cast<std::int8_t>(static_cast<int>(rng() % 7) - 3);
        for (auto& b : d.bias) b = static_cast<std::int32_t>(rng() % 41) - 20;
        const std::int32_t* bias = p.has_bias ? d.bias.data() : nullptr;
        std::vector<std::uint8_t> expected(testing::output_bytes(p));
        conv2d_reference(p, d.input.data(), d.weights.data(), bias, expected.data());
        for (const auto& k : kernels) {
          for (bool fuse : {true, false}) {
            const Conv2dConfig c = depthwise_config(isa, k, fuse);
            ASSERT_EQ(conv2d_check_config(p, c), "") << testing::describe(c);
            const Conv2dOp op = Conv2dOp::prepare(p, c, d.weights.data(), bias);
            std::vector<std::uint8_t> got(expected.size(), 0xA5);
            op.run(d.input.data(), got.data());
            const auto differs = std::mismatch(got.begin(), got.end(), expected.begin()).first;
            EXPECT_TRUE(differs == got.end())
                << testing::describe(c) << " on " << testing::describe(p) << (tying ? " tying scales" : " scales ~1")
                << ": output " << (differs - got.begin()) << " differs from the reference";
          }
        }
      }
    }
  }
}

// algo=implicit on every representative tile of `isa`, fused and separate requantization, one and
// two threads, each shape in every quantization kind (with `zero_point_zero`, activation zero points
// that read as zero bytes: u8 0, s8 -128); returns how many configurations ran.
int check_implicit(Isa isa, const std::vector<Shape>& shapes, bool zero_point_zero) {
  int ran = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    for (std::size_t qi = 0; qi < quant_kinds().size(); ++qi) {
      Conv2dProblem p = make_problem(shapes[si], quant_kinds()[qi], static_cast<std::uint32_t>(si * 17 + qi));
      if (zero_point_zero) p.a_zero_point = p.a_type == DType::u8 ? 0 : -128;
      const testing::ConvData d = testing::make_data(p, static_cast<std::uint32_t>(qi + 5));
      std::vector<std::uint8_t> expected(testing::output_bytes(p));
      conv2d_reference(p, d.input.data(), d.weights.data(), p.has_bias ? d.bias.data() : nullptr, expected.data());
      for (const auto& tile : representative_tiles(isa)) {
        for (int threads : {1, 2}) {
          Conv2dConfig c;
          c.algo = ConvAlgo::implicit;
          c.gemm.isa = isa;
          c.gemm.mr = tile.mr;
          c.gemm.nr = tile.nr;
          c.gemm.pack_a = false;
          c.gemm.fuse_requant = (qi + static_cast<std::size_t>(threads)) % 2 == 0;
          c.gemm.threads = threads;
          if (!conv2d_check_config(p, c).empty()) continue;  // families that widen A (AVX2) never read it in place
          SCOPED_TRACE(testing::describe(c) + " a_zero_point " + std::to_string(p.a_zero_point));
          testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(qi + 5), &expected);
          ++ran;
        }
      }
    }
  }
  return ran;
}

// algo=implicit (kernel rows read in place from the input, padded by a copy where the layer has
// padding): shapes whose kernel rows are whole k groups, with every kind of padding, strides,
// dilation along H, kernels of one row or one column, batches, and the microkernels' segmented
// entry as well as the K-block fallback of families without one; with 8 or more channels, the
// weight zero point's row terms come from the input's pixels (conv2d_window_terms.h); every representative tile,
// quantization kind, fused and separate requantization, one and two threads.
TEST_P(Conv2dIsaTest, ImplicitMatchesReference) {
  const Isa isa = GetParam();
  if (representative_tiles(isa).empty()) GTEST_SKIP() << "no gemm microkernels for isa " << to_string(isa) << " in this build";
  //                                 n  h   w   c  oc kh kw sh sw dh dw pt pb pl pr g
  const std::vector<Shape> shapes = {{1, 9, 10, 8, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 3x3 pad 1, ragged N
                                     {2, 8, 9, 12, 16, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 1},    // stride 2, TF SAME, batch 2
                                     {1, 9, 5, 8, 6, 7, 1, 1, 1, 1, 1, 3, 3, 0, 0, 1},      // 7x1: 7 segments of C bytes
                                     {1, 4, 11, 4, 7, 1, 7, 1, 1, 1, 1, 0, 0, 3, 3, 1},     // 1x7: one segment of 28 bytes
                                     {1, 9, 8, 4, 5, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, 1},      // dilation 2 along H only
                                     {1, 7, 7, 8, 5, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},      // 1x1 stride 2: no copy at all
                                     {1, 3, 4, 4, 9, 5, 5, 1, 1, 1, 1, 3, 2, 1, 3, 1},      // 5x5, pads beyond the image
                                     {1, 6, 6, 64, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // K = 576, long segments
                                     // 8 channels or more: row terms from the pixels' (window terms)
                                     {1, 9, 8, 8, 5, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, 1},      // dilation 2 along H
                                     {1, 5, 9, 8, 9, 5, 5, 1, 2, 1, 1, 3, 2, 1, 3, 1}};     // 5x5 stride 2 along W, pads beyond
  const int ran = check_implicit(isa, shapes, false);
  // Families that read A in place ran every shape and kind on some tile.
  if (reads_a_in_place(isa)) {
    EXPECT_GE(ran, static_cast<int>(shapes.size() * quant_kinds().size()));
  }
}

// algo=implicit where the padding reads as zero bytes (the zero point of activations after a ReLU):
// each tile then runs only the span of kernel rows its output rows reach inside the image
// (GemmASource::live_segments). Tiles within one output row, tiles across two with different spans,
// output rows with no kernel row inside the image, dilation and stride along H, batches (a tile
// across two images), row terms summed by the engine (4 channels) and from the pixels (8 or more);
// 1xK kernels padded along W run columns first, their output rows copied back to NHWC.
TEST_P(Conv2dIsaTest, ImplicitSkipsKernelRowsInThePadding) {
  const Isa isa = GetParam();
  if (representative_tiles(isa).empty()) GTEST_SKIP() << "no gemm microkernels for isa " << to_string(isa) << " in this build";
  //                                 n  h   w   c  oc kh kw sh sw dh dw pt pb pl pr g
  const std::vector<Shape> shapes = {{1, 9, 5, 8, 6, 7, 1, 1, 1, 1, 1, 3, 3, 0, 0, 1},      // 7x1, rows of 5 pixels
                                     {2, 7, 3, 12, 20, 7, 1, 1, 1, 1, 1, 3, 3, 0, 0, 1},    // 7x1, batch 2, rows of 3
                                     {1, 9, 10, 8, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 3x3 pad 1
                                     {1, 3, 4, 4, 9, 5, 5, 1, 1, 1, 1, 3, 2, 1, 3, 1},      // 5x5, pads beyond the image
                                     {1, 9, 8, 4, 5, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, 1},      // dilation 2 along H
                                     {1, 5, 9, 8, 9, 5, 5, 2, 2, 1, 1, 3, 2, 1, 3, 1},      // 5x5 stride 2
                                     {1, 2, 3, 4, 4, 3, 3, 1, 1, 1, 1, 4, 4, 1, 1, 1},      // rows whose every kernel row is padding
                                     // 1xK, columns first (implicit_columns_first): taps as segments
                                     {1, 4, 11, 4, 7, 1, 7, 1, 1, 1, 1, 0, 0, 3, 3, 1},     // 1x7, engine-summed row terms
                                     {2, 5, 9, 8, 6, 1, 7, 1, 2, 1, 1, 0, 0, 3, 2, 1},      // batch 2, stride 2 along W
                                     {1, 3, 2, 4, 5, 1, 5, 1, 1, 1, 1, 0, 0, 3, 3, 1}};     // columns whose every tap is padding
  const int ran = check_implicit(isa, shapes, true);
  if (reads_a_in_place(isa)) {
    EXPECT_GE(ran, static_cast<int>(shapes.size() * quant_kinds().size()));
  }
}

// algo=implicit with a weight zero point on three threads: each GEMM task pads and sums the windows
// of its own rows (GemmASource::prepare_task, conv_window_terms over a range), and the tasks of a
// batch of two split the images mid-way, so a share starts and ends inside an image with kernel rows
// reaching into its neighbour's input rows (7x1) or the padding; with a zero point that reads as
// zero bytes, 1x7 runs columns first, where each task also puts its block of rows and columns
// back in pixel order (GemmASource::finish_task).
TEST_P(Conv2dIsaTest, ImplicitWindowTermsInSharesMatchReference) {
  const Isa isa = GetParam();
  const auto tiles = representative_tiles(isa);
  if (tiles.empty()) GTEST_SKIP() << "no gemm microkernels for isa " << to_string(isa) << " in this build";
  //                                 n  h   w   c  oc kh kw sh sw dh dw pt pb pl pr g
  const std::vector<Shape> shapes = {{2, 9, 5, 8, 6, 7, 1, 1, 1, 1, 1, 3, 3, 0, 0, 1},      // 7x1, batch 2
                                     {2, 7, 6, 8, 5, 3, 3, 2, 1, 1, 1, 1, 2, 1, 1, 1},      // 3x3, stride 2 along H
                                     {2, 5, 9, 8, 6, 1, 7, 1, 2, 1, 1, 0, 0, 3, 2, 1},      // 1x7
                                     {2, 5, 9, 8, 40, 1, 7, 1, 2, 1, 1, 0, 0, 3, 2, 1}};    // and tasks along N
  int ran = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    for (std::size_t qi = 0; qi < quant_kinds().size(); ++qi) {
      if (!quant_kinds()[qi].b_zero_point_nonzero) continue;
      for (bool zero_reads_zero : {false, true}) {
        Conv2dProblem p = make_problem(shapes[si], quant_kinds()[qi], static_cast<std::uint32_t>(si * 7 + qi));
        // Padding that reads as zero bytes: dead kernel rows skipped, 1xK kernels columns first.
        if (zero_reads_zero) p.a_zero_point = p.a_type == DType::u8 ? 0 : -128;
        Conv2dConfig c;
        c.algo = ConvAlgo::implicit;
        c.gemm.isa = isa;
        c.gemm.mr = tiles.front().mr;
        c.gemm.nr = tiles.front().nr;
        c.gemm.pack_a = false;
        c.gemm.threads = 3;
        // The engine's own split, then one task per panel of rows (each task pads its rows and
        // their kernel rows' reach again), then tasks along N that share their rows.
        for (const auto& [mc, nc] : {std::pair{0, 0}, std::pair{c.gemm.mr, 0}, std::pair{0, c.gemm.nr}}) {
          c.gemm.mc = mc;
          c.gemm.nc = nc;
          if (!conv2d_check_config(p, c).empty()) continue;
          SCOPED_TRACE(testing::describe(c));
          testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(qi + 3));
          ++ran;
        }
      }
    }
  }
  if (reads_a_in_place(isa)) {
    EXPECT_GT(ran, 0);
  }
}

// Several threads split the work differently; the result must not change. Depthwise takes one
// task per thread below 32 output rows per thread (22 rows here) and four above (80 rows of the
// tall shape), rows of an image and of two images in one task.
TEST_P(Conv2dIsaTest, ThreadsMatchReference) {
  const Isa isa = GetParam();
  const Shape general{2, 11, 10, 24, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const Shape depthwise{2, 11, 10, 24, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 24};
  const Shape tall_depthwise{2, 80, 5, 16, 16, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 16};
  for (const Shape& s : {general, depthwise, tall_depthwise}) {
    const Conv2dProblem p = make_problem(s, quant_kinds()[0], 9);
    for (ConvAlgo algo : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::implicit, ConvAlgo::depthwise}) {
      Conv2dConfig c = conv2d_default_config(p);
      c.algo = algo;
      c.gemm.isa = isa;
      const auto tiles = representative_tiles(isa);
      if (algo != ConvAlgo::depthwise && !tiles.empty()) {
        c.gemm.mr = tiles.front().mr;
        c.gemm.nr = tiles.front().nr;
        c.gemm.kc = c.gemm.mc = c.gemm.nc = 0;
        c.gemm.pack_a = algo != ConvAlgo::implicit;
      }
      if (algo == ConvAlgo::depthwise) {
        const auto dw = depthwise_tiles(isa, p);
        if (dw.empty()) continue;
        c.dw_channel_tile = dw.back().channel_tile;
        c.dw_width_tile = dw.back().width_tile;
      }
      for (int threads : {2, 3}) {
        c.gemm.threads = threads;
        if (!conv2d_check_config(p, c).empty()) continue;
        SCOPED_TRACE(testing::describe(c));
        testing::expect_matches_reference(p, c, 9);
      }
    }
  }
}

// First layers (3 input channels, so K is not a multiple of 4 and a kernel row is one short run of
// input bytes): im2col over every representative tile and quantization kind, on one thread and
// on blocks split across threads (uneven block counts leave a short last block); implicit on the
// kernel widened to whole k groups (implicit_widened: extra taps at the weight zero point, as
// many more padding columns); and the default configuration, which picks im2col for them where the
// weights have a zero point and implicit otherwise (and for 4 channels).
TEST_P(Conv2dIsaTest, FirstLayersMatchReference) {
  const Isa isa = GetParam();
  const auto tiles = representative_tiles(isa);
  if (tiles.empty()) GTEST_SKIP() << "no gemm microkernels for isa " << to_string(isa) << " in this build";
  //                                 n  h   w   c  oc kh kw sh sw dh dw pt pb pl pr g
  const std::vector<Shape> shapes = {{1, 23, 19, 3, 32, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 1},   // MobileNetV2 Conv, TF SAME
                                     {1, 21, 22, 3, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},   // ResNet-50 conv1
                                     {2, 17, 16, 3, 20, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},   // InceptionV3 stem, batch 2
                                     {1, 9, 40, 4, 24, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},    // 4 channels, 20-byte runs
                                     {1, 12, 13, 3, 17, 3, 3, 1, 2, 1, 1, 1, 1, 2, 0, 1}};  // uneven strides and pads
  int ran = 0, in_place_ran = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    for (std::size_t qi = 0; qi < quant_kinds().size(); ++qi) {
      const Conv2dProblem p = make_problem(shapes[si], quant_kinds()[qi], static_cast<std::uint32_t>(si * 13 + qi));
      const testing::ConvData d = testing::make_data(p, static_cast<std::uint32_t>(qi));
      std::vector<std::uint8_t> expected(testing::output_bytes(p));
      conv2d_reference(p, d.input.data(), d.weights.data(), p.has_bias ? d.bias.data() : nullptr, expected.data());
      Conv2dConfig standard = conv2d_default_config(p);
      if (p.as_gemm().b_zero_point_nonzero() && p.in_c % 4 != 0) {
        EXPECT_EQ(standard.algo, ConvAlgo::im2col) << testing::describe(p);
      } else {
        EXPECT_TRUE(standard.algo == ConvAlgo::implicit || standard.algo == ConvAlgo::im2col) << testing::describe(p);
      }
      testing::expect_matches_reference(p, standard, static_cast<std::uint32_t>(qi), &expected);
      for (const auto& tile : tiles) {
        for (bool pack_a : {true, false}) {
          for (int threads : {1, 2, 3}) {
            Conv2dConfig c;
            c.algo = ConvAlgo::im2col;
            c.gemm.isa = isa;
            c.gemm.mr = tile.mr;
            c.gemm.nr = tile.nr;
            c.gemm.pack_a = pack_a;
            c.gemm.fuse_requant = (qi + threads) % 2 == 0;
            c.gemm.threads = threads;
            // In-place A only where the family reads A in place (AVX2 widens A to int16: packed).
            if (!pack_a && !conv2d_check_config(p, c).empty()) continue;
            ASSERT_EQ(conv2d_check_config(p, c), "") << testing::describe(c);
            SCOPED_TRACE(testing::describe(c));
            testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(qi), &expected);
            ++ran;
            if (!pack_a) ++in_place_ran;
          }
        }
      }
    }
  }
  EXPECT_GE(ran, static_cast<int>(shapes.size() * quant_kinds().size() * tiles.size() * 3));  // packed A at least
  // Widened implicit (check_implicit: every representative tile, quantization kind, 1 and 2
  // threads) on every family that reads A in place.
  const int implicit_ran = check_implicit(isa, shapes, false);
  if (in_place_ran > 0) {
    EXPECT_GE(implicit_ran, static_cast<int>(shapes.size() * quant_kinds().size() * tiles.size() * 2));
  }
}

// The widened convolution of implicit_widened: the next width whose kernel rows are whole k
// groups (4 or 8 bytes), as many more padding columns on the right (same output), the extra taps'
// weights at each channel's zero point; none where no widening is needed or a zero point no weight
// byte can hold.
TEST(ImplicitWidened, WidensToWholeGroupsAtTheWeightZeroPoint) {
  Conv2dProblem p = make_problem({1, 9, 11, 3, 5, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 1}, quant_kinds()[1], 3);
  p.b_zero_points = {-3, 0, 7, 127, -128};
  const std::optional<Conv2dProblem> w = detail::implicit_widened(p, 4);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->kernel_w, 4);
  EXPECT_EQ(w->pad_right, 2);
  EXPECT_EQ(w->out_w(), p.out_w());
  EXPECT_EQ(w->out_h(), p.out_h());
  std::vector<std::int8_t> weights(static_cast<std::size_t>(3 * 3 * 3 * 5));
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<std::int8_t>(i % 251 - 120);
  const std::vector<std::int8_t> wide = detail::widen_weights(p, *w, weights.data());
  ASSERT_EQ(wide.size(), std::size_t{3 * 4 * 3 * 5});
  for (std::size_t kh = 0; kh < 3; ++kh) {
    for (std::size_t kw = 0; kw < 4; ++kw) {
      for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t n = 0; n < 5; ++n) {
          const std::int8_t got = wide[((kh * 4 + kw) * 3 + c) * 5 + n];
          const std::int8_t want = kw < 3 ? weights[((kh * 3 + kw) * 3 + c) * 5 + n]
                                          : static_cast<std::int8_t>(p.b_zero_points[n]);
          ASSERT_EQ(got, want) << kh << " " << kw << " " << c << " " << n;
        }
      }
    }
  }
  // 7x7 with 3 channels widens to 8 (24 bytes); 2 channels to 4 taps; 4 channels need nothing.
  Conv2dProblem seven = p;
  seven.kernel_h = seven.kernel_w = 7;
  seven.in_h = seven.in_w = 20;
  EXPECT_EQ(detail::implicit_widened(seven, 4)->kernel_w, 8);
  Conv2dProblem two = p;
  two.in_c = 2;
  EXPECT_EQ(detail::implicit_widened(two, 4)->kernel_w, 4);
  Conv2dProblem four = p;
  four.in_c = 4;
  EXPECT_FALSE(detail::implicit_widened(four, 4).has_value());
  // Families with 8-byte k groups (Arm i8mm) widen 3 channels to 8 taps.
  EXPECT_EQ(detail::implicit_widened(p, 8)->kernel_w, 8);
  EXPECT_EQ(detail::implicit_widened(p, 8)->pad_right, 6);
  EXPECT_FALSE(detail::implicit_widened(four, 2).has_value());
  Conv2dProblem wide_zb = p;
  wide_zb.b_zero_points = {200};
  EXPECT_FALSE(detail::implicit_widened(wide_zb, 4).has_value());
}

// The default configuration runs every shape of the sweep correctly.
TEST(Conv2dDefault, MatchesReferenceOnTheSweep) {
  std::vector<Shape> shapes = kGeneralShapes;
  shapes.insert(shapes.end(), kDepthwiseShapes.begin(), kDepthwiseShapes.end());
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Conv2dProblem p = make_problem(shapes[si], quant_kinds()[si % quant_kinds().size()], static_cast<std::uint32_t>(si));
    const Conv2dConfig c = conv2d_default_config(p);
    ASSERT_EQ(conv2d_check_config(p, c), "") << testing::describe(p);
    testing::expect_matches_reference(p, c, static_cast<std::uint32_t>(si));
  }
}

// A prepared operator is reusable and thread-safe: two calls (also concurrent) give the same output.
TEST(Conv2dOp, RepeatedAndConcurrentRunsAgree) {
  const Conv2dProblem p = make_problem({1, 9, 9, 16, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, quant_kinds()[1], 2);
  for (ConvAlgo algo : {ConvAlgo::im2col, ConvAlgo::indirect, ConvAlgo::implicit}) {
    Conv2dConfig c = conv2d_default_config(p);
    c.algo = algo;
    c.gemm.kc = 0;
    c.gemm.pack_a = algo != ConvAlgo::implicit;
    if (!conv2d_check_config(p, c).empty()) continue;  // implicit where the default family packs A
    const testing::ConvData d = testing::make_data(p, 1);
    const Conv2dOp op = Conv2dOp::prepare(p, c, d.weights.data(), d.bias.data());
    std::vector<std::uint8_t> a(testing::output_bytes(p)), b(a.size()), e(a.size());
    conv2d_reference(p, d.input.data(), d.weights.data(), d.bias.data(), e.data());
    std::thread t([&] { op.run(d.input.data(), a.data()); });
    op.run(d.input.data(), b.data());
    t.join();
    EXPECT_EQ(a, e) << to_string(algo);
    EXPECT_EQ(b, e) << to_string(algo);
  }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, Conv2dIsaTest, ::testing::ValuesIn(compiled_isas()),
                         [](const ::testing::TestParamInfo<Isa>& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace qtune
