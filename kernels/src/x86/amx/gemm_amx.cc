// The AMX-INT8 GEMM family: the accumulators live in tile registers, 16 x 16 int32 each, and one
// tdpbusd multiplies a 16-row x 64-byte tile of u8 activations by a 64 x 16 tile of s8 weights.
// A is packed in k groups of 64 (kr 64, PackedA::u8: one group of 16 rows is exactly an A tile,
// rows 64 bytes apart; s8 activations flipped with +128 zero-point compensation, as for vpdpbusd),
// B in the VNNI-4 layout (PackedB::s8_quads: a group of 64 k is one B tile per 16 columns, rows
// nr_stride * 4 bytes apart). The tile block (MR / 16) x (NR / 16) is 1x1, 1x2, 2x1 or 2x2: at
// 2x2, four C tiles, two A and two B tiles use all eight registers of palette 1, and every A and
// B tile loaded feeds two dot products.
//
// After the last k group the C tiles are stored to a small buffer while hot and the epilogue of
// gemm_ukernel_template.h (AVX-512: zero-point terms, fused requantization or int32 output) runs
// on them; the separate requantization pass is AVX-512's (the instruction-set table). A is never
// read in place: a tile load needs rows at one stride, which an indirection table does not give.
//
// Each kernel runs over the AMX instructions or, while amx_model::active() (tests), over the
// portable model: the same code against the tile interface of amx_tiles.h.
#include "x86/avx512vnni/avx512_vector.h"  // first: wraps <immintrin.h> in GCC 12's -Wmaybe-uninitialized workaround

#include "gemm/gemm_ukernel_template.h"
#include "x86/amx/amx_tiles.h"

namespace qtune::detail {
namespace {

constexpr int kTileRows = 16;      // rows of every tile, and int32 columns of a C tile
constexpr int kTileBytes = 64;     // bytes per row of every tile: one k group of A, 16 int32 of C
constexpr int kFirstATile = 4, kFirstBTile = 6;  // C tiles are 0..3

// Palette 1 with the shapes of a (MT x NT) block: C tiles 0..MT*NT-1, A tiles 4..4+MT-1, B tiles
// 6..6+NT-1, all 16 x 64 bytes.
template <int MT, int NT>
amx_model::TileConfig block_config() {
  amx_model::TileConfig config;
  config.palette = 1;
  auto shape = [&](int t) {
    config.rows[t] = kTileRows;
    config.colsb[t] = kTileBytes;
  };
  for (int t = 0; t < MT * NT; ++t) shape(t);
  for (int t = 0; t < MT; ++t) shape(kFirstATile + t);
  for (int t = 0; t < NT; ++t) shape(kFirstBTile + t);
  return config;
}

// Calls f.template operator()<mt, nt>() for every tile of the block (tile numbers must be
// constants: the instructions encode them).
template <int MT, int NT, class F>
void each_tile(F f) {
  f.template operator()<0, 0>();
  if constexpr (NT > 1) f.template operator()<0, 1>();
  if constexpr (MT > 1) f.template operator()<1, 0>();
  if constexpr (MT > 1 && NT > 1) f.template operator()<1, 1>();
}

template <class Tiles, int MR, int NR>
void accumulate_block(const GemmUkernelArgs& args, std::int32_t* c, bool load_c) {
  constexpr int MT = MR / kTileRows, NT = NR / kTileRows;
  static_assert(MR % kTileRows == 0 && NR % kTileRows == 0 && MT <= 2 && NT <= 2);
  constexpr std::size_t kCStride = NR * sizeof(std::int32_t);
  constexpr std::size_t kBStride = NR * 4;  // a B tile row: 16 columns x 4 k of a quad, nr_stride = NR
  // Configured on every call: another kernel of this thread (another block shape, or a library's
  // AMX code) may have loaded its own configuration since.
  static const amx_model::TileConfig config = block_config<MT, NT>();
  Tiles::configure(config);
  each_tile<MT, NT>([&]<int mt, int nt>() {
    if (load_c) {
      Tiles::template load<mt * NT + nt>(c + mt * kTileRows * NR + nt * kTileRows, kCStride);
    } else {
      Tiles::template zero<mt * NT + nt>();
    }
  });
  const auto* a = static_cast<const std::uint8_t*>(args.a_packed);
  const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
  for (std::size_t g = 0; g < args.k_groups; ++g) {
    Tiles::template load<kFirstATile>(a, kTileBytes);
    if constexpr (MT > 1) Tiles::template load<kFirstATile + 1>(a + kTileRows * kTileBytes, kTileBytes);
    Tiles::template load<kFirstBTile>(b, kBStride);
    if constexpr (NT > 1) Tiles::template load<kFirstBTile + 1>(b + kTileBytes, kBStride);
    each_tile<MT, NT>([&]<int mt, int nt>() {
      Tiles::template dot_u8s8<mt * NT + nt, kFirstATile + mt, kFirstBTile + nt>();
    });
    a += MR * kTileBytes;
    b += NR * kTileBytes;
  }
  each_tile<MT, NT>([&]<int mt, int nt>() {
    Tiles::template store<mt * NT + nt>(c + mt * kTileRows * NR + nt * kTileRows, kCStride);
  });
}

struct AmxTraits : Avx512Vector {
  static constexpr Isa kIsa = Isa::amx;
  static constexpr int kKr = 64;
  static constexpr std::size_t kAElem = 1, kBElem = 1;
  static constexpr PackedA kAFormat = PackedA::u8;
  static constexpr PackedB kBFormat = PackedB::s8_quads;
  static constexpr bool kInPlace = false;
  using Acc = Vec;

  // The tile-accumulator hook of GemmTileKernel: the K block into c (MR x NR int32, dense), which
  // holds the partial sums to start from when load_c.
  template <int MR, int NR>
  static void accumulate_tiles(const GemmUkernelArgs& args, std::int32_t* c, bool load_c) {
    if (amx_model::active()) {
      accumulate_block<ModelTiles, MR, NR>(args, c, load_c);
    } else {
      accumulate_block<NativeTiles, MR, NR>(args, c, load_c);
    }
  }
};

constexpr GemmUkernel kAmxUkernels[] = {
    make_gemm_ukernel<AmxTraits, 16, 16>("qu8-gemm-16x16c64-amx"),
    make_gemm_ukernel<AmxTraits, 16, 32>("qu8-gemm-16x32c64-amx"),
    make_gemm_ukernel<AmxTraits, 32, 16>("qu8-gemm-32x16c64-amx"),
    make_gemm_ukernel<AmxTraits, 32, 32>("qu8-gemm-32x32c64-amx"),
};

}  // namespace

std::span<const GemmUkernel> gemm_ukernels_amx() { return kAmxUkernels; }

}  // namespace qtune::detail
