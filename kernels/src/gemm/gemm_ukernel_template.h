// The one GEMM microkernel template, written once over an instruction-set traits struct and
// instantiated per family in that family's own translation unit (scalar: gemm_scalar.cc, x86:
// x86/<isa>/gemm_<isa>.cc). Layouts and argument meanings: gemm_ukernel.h.
//
// A traits struct T provides its instruction set's vector operations (vector/vector_ops.h:
// kIsa, kLanes, zero, set1, add, mullo, load, store of whole and partial vectors to int32 / u8 /
// s8, requantize), with Acc = Vec, and the GEMM's own:
//   kKr, kAElem, kBElem             k per group; bytes per packed A / B element
//   kInPlace                        can read byte-format A rows in place (4-byte groups)
//   BVec load_b(const uint8_t*)     one vector of kLanes columns x kKr k values of a B panel
//   AVec broadcast_a(const uint8_t*) one A group (kKr elements) broadcast to every lane
//   AVec broadcast_bits(uint32_t)   (kInPlace) one 4-byte A group given as bits
//   AVec xor_bits(AVec, uint32_t)   (kInPlace) every lane XOR the bits (the s8 -> u8 flip)
//   Acc dot(Acc, AVec, BVec)        acc[lane] += sum_t a[t] * b[lane][t]
//   void prefetch_b(const uint8_t*) hint for the B panel stream
//   optional: BVec load_b_half(const uint8_t*) and Acc dot_half(Acc, AVec, BVec): load_b and dot
//             on the low half of the lanes only (see GemmTileKernel::kHalfLast)
//   optional: Acc dot_from(Acc, AVec, const uint8_t* b) and kDotScratch (with vector_ops.h's
//             kVectorRegisters): dot with the B vector read by the multiply itself, and the
//             registers dot needs beside its operands (see GemmTileKernel::kBInRegisters)
//   optional: template <RoundingMode> Lanes requant_lanes(const RequantConstants&, size_t channel)
//             and requantize(Acc, const Lanes&, const RequantConstants&): a vector's constants
//             loaded once and applied to every row of a tile column
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gemm/gemm_ukernel.h"
#include "vector/force_inline.h"
#include "vector/vector_ops.h"
#include "quant/requant_plan.h"

#define QTUNE_GEMM_UNROLL _Pragma("GCC unroll 32")
// The tile's epilogue, inlined into it by force except in sanitizer builds (see kInlineEpilogue).
#define QTUNE_EPILOGUE_INLINE QTUNE_FORCE_INLINE inline
#define QTUNE_EPILOGUE_INLINE_LAMBDA QTUNE_FORCE_INLINE

namespace qtune::detail {

inline std::uint32_t gemm_load_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The first n (< 4) bytes at p, zero elsewhere; never reads p[n] or beyond.
inline std::uint32_t gemm_load_partial_u32(const std::uint8_t* p, std::size_t n) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, n);
  return v;
}

// How an instance of the tile walks A read in place. Each walk is an instance of its own rather
// than a branch in run: beside the plain walk, even an out-of-line segment loop changed GCC's code
// for the whole tile (short-K 1x1 layers ran slower: docs/measurements.md, "GEMM microkernels"),
// and a second entry into shared helpers made it outline the epilogue.
enum class AWalk : unsigned char {
  plain,     // GemmUkernel::fn: one run of a_k_bytes per row (or a packed panel)
  segments,  // GemmUkernel::fn_segments: a_segments runs per row (GemmUkernelArgs::a_segments)
  row_sums,  // GemmUkernel::fn_row_sums: one run per row, whose row terms the tile sums itself
};

// Families that can sum rows inside the tile (AWalk::row_sums) provide
//   kRowChunkBytes                                   bytes per row-sum load (the vector's width)
//   Acc sum_row_chunk(Acc, const uint8_t*, flip)    lanes += sums of kRowChunkBytes bytes ^ flip
//   Acc sum_row_chunk_partial(Acc, p, n, flip)       the same over the first n < kRowChunkBytes
//   int32_t reduce_add(Acc)                          the sum of the lanes (wrapping)
//   kRegisters                                       vector registers (the instance exists only
//                                                    where the tile and the sums fit in them)
template <class T>
concept SumsRowsInTile = requires(typename T::Acc acc, const std::uint8_t* p) {
  T::kRowChunkBytes;
  T::kRegisters;
  T::sum_row_chunk(acc, p, 0u);
  T::sum_row_chunk_partial(acc, p, std::size_t{1}, 0u);
  T::reduce_add(acc);
};

template <class T, int MR, int NR, AWalk Walk = AWalk::plain>
struct GemmTileKernel {
  using Acc = typename T::Acc;
  static constexpr int kVecs = (NR + T::kLanes - 1) / T::kLanes;
  static constexpr int kNrStride = kVecs * T::kLanes;
  static constexpr std::size_t kBVecBytes = std::size_t{T::kLanes} * T::kKr * T::kBElem;
  static constexpr std::size_t kBGroupBytes = kVecs * kBVecBytes;
  static constexpr std::size_t kAGroupBytes = std::size_t{T::kKr} * T::kAElem;
  // How far ahead of the current group the B stream is prefetched (about 4 cache lines).
  static constexpr std::size_t kPrefetchGroups = std::max<std::size_t>(1, 256 / kBGroupBytes);
  // A last vector at most half full (NR = 24, 8 or 4 on 16 lanes) is loaded and multiplied at
  // half width where the family can: its padding lanes would cost a whole vector's products. On
  // Zen 4 a 512-bit vpdpbusd issues once per cycle and a 256-bit one twice, so the half-width last
  // vector costs half of a full one (12x24 against 12x32 at N = 24: docs/measurements.md,
  // "GEMM microkernels"). The accumulator stays a full vector (its upper lanes zero, never
  // stored): the epilogue is shared.
  static constexpr bool kHalfLast =
      requires(typename T::Acc acc, typename T::AVec a, typename T::BVec b, const std::uint8_t* p) {
        T::dot_half(acc, a, b);
        T::load_b_half(p);
      } && NR - (kVecs - 1) * T::kLanes <= T::kLanes / 2;

  // The B vectors a k group holds in registers; the others are read from the panel by each row's
  // multiply (T::dot_from). A k group needs MR x kVecs accumulators, the A broadcast, the dot's
  // scratch (kDotScratch: vpmaddwd's product) and the B vectors; where that left no register
  // spare (6x16 in 16 ymm: 12 + 1 + 1 + 2), GCC kept an accumulator in memory, a store and a
  // reload every k group (docs/x86-without-vnni.md, "Register pressure"), so one register is
  // left spare. Tiles whose accumulators alone leave none keep every B vector: memory operands
  // would not save them.
  static constexpr int kBInRegisters = [] {
    if constexpr (requires(typename T::Acc acc, typename T::AVec a, const std::uint8_t* p) {
                    T::dot_from(acc, a, p);
                    T::kVectorRegisters;
                    T::kDotScratch;
                  }) {
      const int spare = T::kVectorRegisters - 1 - MR * kVecs - 1 - T::kDotScratch;
      return spare >= 0 ? std::min(spare, kVecs) : kVecs;
    } else {
      return kVecs;
    }
  }();

  static_assert(!kHalfLast || kBInRegisters == kVecs, "a half-width last B vector is held in a register");

  // Whether the whole tiles' epilogue loads each column's requantization constants once
  // (T::requant_lanes) and applies them inline to the column's rows. Not for tiles whose
  // accumulators alone fill the vector registers (ymm 8x12, 8x16): they spill in the k-loop
  // anyway, and GCC spilled more there (scripts/x86-kloop-spills.py) with the constants inlined.
  template <RoundingMode Mode>
  static constexpr bool kColumnConstants =
      HasRequantLanes<T, Mode> && (T::kVectorRegisters == 0 || MR * kVecs < T::kVectorRegisters);

  struct Tile {
    Acc acc[MR][kVecs];
  };

  // Families whose epilogue takes a kFp32Centred plan's accumulators less its origin X0
  // (folds_centred_origin_v): the driver then starts them from column terms less X0
  // (GemmUkernel::folds_centred_origin).
  static constexpr bool kFoldedOrigin = folds_centred_origin_v<T>;

  // Families whose dot product saturates pair sums (vpmaddubsw) say kClipsPairs: their B panels
  // hold clipped weights and each call may bring what was clipped away (GemmUkernelArgs::corrections
  // or b_excess).
  static constexpr bool kClipsPairs = requires { requires T::kClipsPairs; };

  // Families whose accumulators live in registers of their own (AMX tiles) provide
  // accumulate_tiles<MR, NR>(args, c, load_c): the K block into c (MR x kNrStride int32), starting
  // from the sums in c when load_c. The epilogue then runs on vectors loaded from c.
  static constexpr bool kTileAccumulators =
      requires(const GemmUkernelArgs& a, std::int32_t* c) { T::template accumulate_tiles<MR, NR>(a, c, true); };

  static void run(const GemmUkernelArgs& args) {
    for_each_m_panel(args, MR, kAGroupBytes, [](const GemmUkernelArgs& panel_args) __attribute__((always_inline)) {
      run_panel(panel_args);
    });
  }

 private:
  __attribute__((always_inline)) static inline void run_panel(const GemmUkernelArgs& args) {
    Tile t;
    if constexpr (Walk == AWalk::row_sums) {
      // One K block (first and last) of rows read in place; the row terms come from the walk.
      std::int32_t row_terms[MR];
      init(t, args);
      if (args.a_flip != 0) {
        accumulate_in_place_summing<true>(t, args, row_terms);
      } else {
        accumulate_in_place_summing<false>(t, args, row_terms);
      }
      add_zero_point_terms(t, args, row_terms);
      write_output(t, args);
      return;
    }
    if constexpr (kTileAccumulators) {
      run_tile_accumulators(t, args);
      if (!args.last) return;
    } else {
      init(t, args);
      accumulate(t, args);
      if constexpr (kClipsPairs) {
        if (args.b_excess != nullptr) {
          // The clipped weights' excesses, a panel of their own: the same walk over A again.
          GemmUkernelArgs excess = args;
          excess.b_packed = args.b_excess;
          accumulate(t, excess);
        }
      }
      if (!args.last) {
        store_partial(t, args);
        return;
      }
    }
    add_zero_point_terms(t, args, args.row_terms);
    write_output(t, args);
  }

  __attribute__((always_inline)) static inline void accumulate(Tile& t, const GemmUkernelArgs& args) {
    if (args.a_packed != nullptr) {
      accumulate_packed(t, args);
    } else if constexpr (T::kInPlace) {
      accumulate_in_place(t, args);
    }
  }

  static void run_tile_accumulators(Tile& t, const GemmUkernelArgs& args) {
    alignas(64) std::int32_t c[MR * kNrStride];
    if (!args.first) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(MR); ++i) {
        if (i < args.rows) {
          std::memcpy(c + i * kNrStride, args.partial + i * args.partial_stride, kNrStride * sizeof(std::int32_t));
        } else {
          std::memset(c + i * kNrStride, 0, kNrStride * sizeof(std::int32_t));
        }
      }
    }
    T::template accumulate_tiles<MR, NR>(args, c, !args.first);
    if (!args.last) {
      for (std::size_t i = 0; i < args.rows; ++i) {
        std::memcpy(args.partial + i * args.partial_stride, c + i * kNrStride, kNrStride * sizeof(std::int32_t));
      }
      return;
    }
    for (int i = 0; i < MR; ++i) {
      for (int v = 0; v < kVecs; ++v) t.acc[i][v] = T::load(c + i * kNrStride + v * T::kLanes);
    }
  }

  // The first K block starts from the column terms (bias and the activation zero point's terms),
  // not from zero: one addition per output vector less in the epilogue, where small-K layers spend
  // most of their time. Later blocks continue from the partial sums, which hold them already.
  static void init(Tile& t, const GemmUkernelArgs& args) {
    if (args.first) {
      Acc col[kVecs];
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) col[v] = T::load(args.col_terms + v * T::kLanes);
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) t.acc[i][v] = col[v];
      }
    } else {
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
          t.acc[i][v] = static_cast<std::size_t>(i) >= args.rows
                            ? T::zero()
                            : T::load(args.partial + i * args.partial_stride + v * T::kLanes);
        }
      }
    }
    if constexpr (kClipsPairs) {
      if (args.corrections != nullptr) add_corrections(t, args);
    }
  }

  // Clipped weight pairs (GemmUkernel::clips_pairs): the products they leave out, which the driver
  // worked out for the block (rows past `rows` hold whatever; their sums are never stored).
  __attribute__((always_inline)) static inline void add_corrections(Tile& t, const GemmUkernelArgs& args) {
    QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
        t.acc[i][v] = T::add(t.acc[i][v], T::load(args.corrections + i * args.corrections_stride + v * T::kLanes));
      }
    }
  }

  // (Deduced operand types: families with tile accumulators have no A and B vectors.)
  // b: the group's B vectors in registers (the first kBInRegisters); group: the group in the panel.
  template <class AVec, class BVec>
  __attribute__((always_inline)) static inline void step(Tile& t, const AVec& a, int i, const BVec* b,
                                                         [[maybe_unused]] const std::uint8_t* group) {
    QTUNE_GEMM_UNROLL for (int v = 0; v < kBInRegisters; ++v) {
      if constexpr (kHalfLast) {
        if (v == kVecs - 1) {
          t.acc[i][v] = T::dot_half(t.acc[i][v], a, b[v]);
          continue;
        }
      }
      t.acc[i][v] = T::dot(t.acc[i][v], a, b[v]);
    }
    if constexpr (kBInRegisters < kVecs) {
      QTUNE_GEMM_UNROLL for (int v = kBInRegisters; v < kVecs; ++v) {
        t.acc[i][v] = T::dot_from(t.acc[i][v], a, group + v * kBVecBytes);
      }
    }
  }

  // The B vectors of one k group held in registers (kBInRegisters; the last at half width: kHalfLast).
  template <class BVec>
  __attribute__((always_inline)) static inline void load_b_group(BVec (&bv)[kVecs], const std::uint8_t* b) {
    QTUNE_GEMM_UNROLL for (int v = 0; v < kBInRegisters; ++v) {
      if constexpr (kHalfLast) {
        if (v == kVecs - 1) {
          bv[v] = T::load_b_half(b + v * kBVecBytes);
          continue;
        }
      }
      bv[v] = T::load_b(b + v * kBVecBytes);
    }
  }

  static void accumulate_packed(Tile& t, const GemmUkernelArgs& args) {
    const auto* a = static_cast<const std::uint8_t*>(args.a_packed);
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    for (std::size_t g = args.k_groups; g != 0; --g) {
      T::prefetch_b(b + kPrefetchGroups * kBGroupBytes);
      typename T::BVec bv[kVecs];
      load_b_group(bv, b);
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) step(t, T::broadcast_a(a + i * kAGroupBytes), i, bv, b);
      a += MR * kAGroupBytes;
      b += kBGroupBytes;
    }
  }

  // Byte formats with 4-byte groups only: whole groups are broadcast straight from the rows (one
  // load each, at a shared offset), the ragged last group copies only the row's remaining bytes.
  // The flip of s8 activations is one vector XOR per broadcast, applied to real bytes only (the
  // zero padding meets zero B padding, so its value would not matter, but this keeps it exact).
  static void accumulate_in_place(Tile& t, const GemmUkernelArgs& args) {
    if (args.a_flip != 0) {
      accumulate_in_place_rows<true>(t, args);
    } else {
      accumulate_in_place_rows<false>(t, args);
    }
  }

  template <bool Flip>
  static void accumulate_in_place_rows(Tile& t, const GemmUkernelArgs& args) {
    static_assert(T::kKr == 4 && T::kAElem == 1, "in-place A reads 4-byte groups");
    const std::uint8_t* rows[MR];
    QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) rows[i] = args.a_rows[i];
    const std::uint32_t flip = std::uint32_t{args.a_flip} * 0x01010101u;
    const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
    const std::size_t whole = args.a_k_bytes / 4, tail = args.a_k_bytes % 4;
    std::size_t offset = 0;
    if constexpr (Walk == AWalk::segments) {
      // Whole groups only: after each segment, the shared offset jumps to the next.
      const std::size_t jump = args.a_segment_stride - whole * 4;
      for (std::size_t segment = args.a_segments; segment != 0; --segment, offset += jump) {
        in_place_groups<Flip>(t, rows, whole, flip, offset, b);
      }
      return;
    } else {
      in_place_groups<Flip>(t, rows, whole, flip, offset, b);
    }
    if (tail != 0) in_place_tail(t, rows, tail, flip, offset, b);
  }

  // The ragged last group of every row: its `tail` (1..3) bytes from `offset`, zero above them.
  __attribute__((always_inline)) static inline void in_place_tail(Tile& t, const std::uint8_t* const (&rows)[MR],
                                                                  std::size_t tail, std::uint32_t flip,
                                                                  std::size_t offset, const std::uint8_t* b) {
    const std::uint32_t tail_flip = flip & ((std::uint32_t{1} << (8 * tail)) - 1);
    typename T::BVec bv[kVecs];
    load_b_group(bv, b);
    QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
      step(t, T::broadcast_bits(gemm_load_partial_u32(rows[i] + offset, tail) ^ tail_flip), i, bv, b);
    }
  }

  // AWalk::row_sums: the plain walk, and beside it each row's bytes summed kRowChunkBytes at a
  // time (one load and one dot product per row per kRowChunkBytes / 4 groups, from lines the
  // broadcasts bring to L1 anyway) into row_terms[i] = -rowsum(A'[i]), times the weight zero
  // point where it is per tensor (GemmUkernelArgs::zb_uniform). The separate row-sum pass it
  // replaces read each row once more and ran with almost no arithmetic beside the tile's
  // (docs/measurements.md, "GEMM microkernels").
  template <bool Flip>
  static void accumulate_in_place_summing(Tile& t, const GemmUkernelArgs& args, std::int32_t (&row_terms)[MR]) {
    if constexpr (SumsRowsInTile<T> && T::kInPlace) {
      constexpr std::size_t kChunk = T::kRowChunkBytes, kChunkGroups = kChunk / 4;
      const std::uint8_t* rows[MR];
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) rows[i] = args.a_rows[i];
      const std::uint32_t flip = Flip ? std::uint32_t{args.a_flip} * 0x01010101u : 0;
      const auto* b = static_cast<const std::uint8_t*>(args.b_packed);
      const std::size_t k_bytes = args.a_k_bytes, whole = k_bytes / 4, tail = k_bytes % 4;
      Acc sums[MR];
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) sums[i] = T::zero();
      std::size_t offset = 0;
      for (std::size_t chunk = whole / kChunkGroups; chunk != 0; --chunk) {
        QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) sums[i] = T::sum_row_chunk(sums[i], rows[i] + offset, flip);
        // Unrolled: as a loop of its own, a chunk's few groups ended in a mispredicted exit
        // every time, which made this walk slower than the plain one (docs/measurements.md,
        // "GEMM microkernels").
        QTUNE_GEMM_UNROLL for (std::size_t g = 0; g < kChunkGroups; ++g) in_place_groups<Flip>(t, rows, 1, flip, offset, b);
      }
      if (offset < k_bytes) {
        QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
          sums[i] = T::sum_row_chunk_partial(sums[i], rows[i] + offset, k_bytes - offset, flip);
        }
        in_place_groups<Flip>(t, rows, whole % kChunkGroups, flip, offset, b);
        if (tail != 0) in_place_tail(t, rows, tail, flip, offset, b);
      }
      const std::uint32_t scale = args.zb_uniform ? static_cast<std::uint32_t>(args.col_zb[0]) : 1u;
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        row_terms[i] = static_cast<std::int32_t>((0u - static_cast<std::uint32_t>(T::reduce_add(sums[i]))) * scale);
      }
    } else {
      static_assert(SumsRowsInTile<T> && T::kInPlace, "AWalk::row_sums needs in-place A and the family's row sums");
    }
  }

  // `groups` whole 4-byte groups of every row from `offset`, advancing offset and b past them.
  template <bool Flip>
  __attribute__((always_inline)) static inline void in_place_groups(Tile& t, const std::uint8_t* const (&rows)[MR],
                                                                    std::size_t groups, std::uint32_t flip,
                                                                    std::size_t& offset, const std::uint8_t*& b) {
    for (std::size_t g = groups; g != 0; --g) {
      T::prefetch_b(b + kPrefetchGroups * kBGroupBytes);
      typename T::BVec bv[kVecs];
      load_b_group(bv, b);
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        typename T::AVec a = T::broadcast_a(rows[i] + offset);
        if constexpr (Flip) a = T::xor_bits(a, flip);
        step(t, a, i, bv, b);
      }
      offset += 4;
      b += kBGroupBytes;
    }
  }

  static void store_partial(const Tile& t, const GemmUkernelArgs& args) {
    QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
      if (static_cast<std::size_t>(i) >= args.rows) break;
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
        T::store(args.partial + i * args.partial_stride + v * T::kLanes, t.acc[i][v]);
      }
    }
  }

  // acc += row_term[m] * zb[n] when some zb != 0, and col_term[n] where the accumulators did not
  // start from it (tile-register families), wrapping. The row terms come first, so that the
  // symmetric-weights path ends in straight-line code: with the branch last, the register
  // allocator spilled the whole tile at the join. Per-tensor weights (TFLite's uint8 models) have
  // one zb, by which the driver has multiplied the row terms: one broadcast per row instead of a
  // vpmulld per vector.
  // row_terms: args.row_terms, or the terms an AWalk::row_sums walk summed.
  static void add_zero_point_terms(Tile& t, const GemmUkernelArgs& args, const std::int32_t* row_terms) {
    if (row_terms != nullptr && args.zb_uniform) {
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        if (static_cast<std::size_t>(i) >= args.rows) break;
        const Acc row = T::set1(row_terms[i]);
        QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) t.acc[i][v] = T::add(t.acc[i][v], row);
      }
    } else if (row_terms != nullptr) {
      Acc zb[kVecs];
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) zb[v] = T::load(args.col_zb + v * T::kLanes);
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        if (static_cast<std::size_t>(i) >= args.rows) break;
        const Acc row = T::set1(row_terms[i]);
        QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
          t.acc[i][v] = T::add(t.acc[i][v], T::mullo(row, zb[v]));
        }
      }
    }
    if constexpr (kTileAccumulators) {
      Acc col[kVecs];
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) col[v] = T::load(args.col_terms + v * T::kLanes);
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) t.acc[i][v] = T::add(t.acc[i][v], col[v]);
      }
    }
  }

  // Calls store(i, first, value, n) for every vector holding valid outputs (n valid lanes). The
  // rows are a run-time loop over a stored copy of the tile (unrolled over the row's vectors only):
  // the requantization is long, and unrolling it MR times per rounding mode and output type would
  // multiply the code size (and compile time) for nothing.
  template <class Store>
  __attribute__((always_inline)) static inline void for_each_valid(const Tile& t, const GemmUkernelArgs& args,
                                                                   Store store) {
    if (args.rows == MR && args.cols == NR) {
      // Whole tiles (all but the last row and column of tiles): straight from the registers, with
      // lane counts known at compile time.
      QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
        QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
          constexpr std::size_t kLanes = T::kLanes;
          const std::size_t first = static_cast<std::size_t>(v) * kLanes;
          store(static_cast<std::size_t>(i), first, t.acc[i][v], std::min<std::size_t>(kLanes, NR - first));
        }
      }
      return;
    }
    Acc rows[MR][kVecs];
    QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) rows[i][v] = t.acc[i][v];
    }
#pragma GCC unroll 1
    for (std::size_t i = 0; i < args.rows; ++i) {
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
        const std::size_t first = static_cast<std::size_t>(v) * T::kLanes;
        if (first >= args.cols) break;
        store(i, first, rows[i][v], std::min<std::size_t>(T::kLanes, args.cols - first));
      }
    }
  }

  // One vector requantized with the constants of the channels from `channel`.
  template <RoundingMode Mode>
  QTUNE_EPILOGUE_INLINE static Acc requantize_at(const Acc& x, const RequantConstants& plan, std::size_t channel) {
    if constexpr (kFoldedOrigin) {
      return T::template requantize<Mode, true>(x, plan, channel);
    } else {
      return T::template requantize<Mode>(x, plan, channel);
    }
  }

  // U8Full: the short u8 epilogue of the whole tiles (HasU8FullRangeEpilogue).
  // Always inlined, like every part of the vector families' epilogue (see kInlineEpilogue).
  template <RoundingMode Mode, class Out, bool U8Full>
  QTUNE_EPILOGUE_INLINE static void write_requantized(const Tile& t, const GemmUkernelArgs& args) {
    // The family's epilogue scope (vector_ops.h) around the requantization and the stores: GCC
    // keeps computations before the stores that use them, not before a change of MXCSR.
    [[maybe_unused]] const epilogue_scope_t<T, Mode> scope;
    const RequantConstants plan = *args.plan;  // a local copy: see RequantConstants
    auto* c = static_cast<Out*>(args.c);
    if (args.rows == MR && args.cols == NR) {
      // Whole tiles: each vector is requantized in place and stored at once, column by column,
      // with lane counts known at compile time. Families with RequantLanes load a column's
      // per-channel constants once, before its stores; otherwise they are reloaded after each
      // store (an 8-bit store may alias them), but as folded memory operands, which costs less
      // than the spills of holding a requantized copy of the tile.
      QTUNE_GEMM_UNROLL for (int v = 0; v < kVecs; ++v) {
        constexpr std::size_t kLanes = T::kLanes;
        const std::size_t first = static_cast<std::size_t>(v) * kLanes;
        if constexpr (kColumnConstants<Mode>) {
          // The column's constants through the caller's plan, not the local copy: its pointers
          // read back from the just-written copy waited on store forwarding (a large share of a
          // small-K tile's time: docs/measurements.md, "GEMM microkernels").
          const auto lanes = T::template requant_lanes<Mode>(*args.plan, args.channel + first);
          QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
            Acc q;
            if constexpr (U8Full && kFoldedOrigin) {
              q = T::template requantize_u8_full<Mode, true>(t.acc[i][v], lanes, plan);
            } else if constexpr (U8Full) {
              q = T::template requantize_u8_full<Mode>(t.acc[i][v], lanes, plan);
            } else if constexpr (kFoldedOrigin) {
              q = T::template requantize<Mode, true>(t.acc[i][v], lanes, plan);
            } else {
              q = T::template requantize<Mode>(t.acc[i][v], lanes, plan);
            }
            T::store(c + i * args.ldc + first, q, std::min<std::size_t>(kLanes, NR - first));
          }
        } else {
          QTUNE_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
            T::store(c + i * args.ldc + first, requantize_at<Mode>(t.acc[i][v], plan, args.channel + first),
                     std::min<std::size_t>(kLanes, NR - first));
          }
        }
      }
      return;
    }
    for_each_valid(t, args, [&](std::size_t i, std::size_t first, const Acc& x, std::size_t n) {
      T::store(c + i * args.ldc + first, requantize_at<Mode>(x, plan, args.channel + first), n);
    });
  }

  // The vector families' epilogue, the mode's dispatch included, is inlined into the tile: as a
  // call (GCC's choice once the tile had an epilogue for kFp32Offset as well) the accumulators went
  // through memory and the 12x32 and 8x48 tiles' K loops lost their registers. The scalar
  // family's stays a call: its fully unrolled epilogues, six modes in one function, made
  // gemm_scalar.cc's compile under ASan prohibitively long. Sanitizer builds, which check
  // correctness and not speed, leave all of it to GCC (QTUNE_EPILOGUE_INLINE): forced there,
  // gemm_avx512vnni.cc's compile was prohibitively long too (docs/measurements.md,
  // "Build and test times").
  static constexpr bool kInlineEpilogue = T::kIsa != Isa::scalar;

  template <RoundingMode Mode, class Out>
  QTUNE_EPILOGUE_INLINE static void write_mode(const Tile& t, const GemmUkernelArgs& args) {
    if constexpr (std::is_same_v<Out, std::uint8_t> && HasU8FullRangeEpilogue<T, Mode>) {
      if (u8_full_range_epilogue(*args.plan, Mode)) return write_requantized<Mode, Out, true>(t, args);
    }
    write_requantized<Mode, Out, false>(t, args);
  }

  template <class Out>
  __attribute__((noinline)) static void write_requantized_out_of_line(const Tile& t, const GemmUkernelArgs& args) {
    with_rounding_mode(args.plan->mode, [&]<RoundingMode Mode>() { write_mode<Mode, Out>(t, args); });
  }

  template <class Out>
  QTUNE_EPILOGUE_INLINE static void write_requantized(const Tile& t, const GemmUkernelArgs& args) {
    if constexpr (kInlineEpilogue) {
      with_rounding_mode_inlined(args.plan->mode, [&]<RoundingMode Mode>() QTUNE_EPILOGUE_INLINE_LAMBDA {
        write_mode<Mode, Out>(t, args);
      });
    } else {
      write_requantized_out_of_line<Out>(t, args);
    }
  }

  QTUNE_EPILOGUE_INLINE static void write_output(const Tile& t, const GemmUkernelArgs& args) {
    switch (args.output) {
      case UkernelOutput::s32: {
        auto* c = static_cast<std::int32_t*>(args.c);
        for_each_valid(t, args, [&](std::size_t i, std::size_t first, const Acc& x, std::size_t n) {
          T::store(c + i * args.ldc + first, x, n);
        });
        return;
      }
      case UkernelOutput::u8: return write_requantized<std::uint8_t>(t, args);
      case UkernelOutput::s8: return write_requantized<std::int8_t>(t, args);
    }
  }
};

// The family's throughput ceiling: kPeakChains independent accumulators fed by T::dot on register
// operands only (no loads, no stores, no epilogue), enough chains to cover the instruction's
// latency (a product outside the chain, as AVX2's vpmaddwd before its vpaddd, needs fewer).
// `opaque` hides the operands from the optimizer, A before every dot, so that the product of a dot
// built from several instructions (AVX2: vpmaddwd + vpaddd) can be neither hoisted out of the loop
// nor computed once for all the chains. Returns the operations done (2 per multiply-accumulate).
template <class T, class Opaque>
std::uint64_t gemm_dot_peak_loop(std::size_t iterations, Opaque opaque) {
  // 16 chains, or as many as leave A, B, a product and one more in registers (AVX2: 12 of 16).
  constexpr int kPeakChains = std::min(16, T::kVectorRegisters - 4);
  typename T::Acc acc[kPeakChains];
  QTUNE_GEMM_UNROLL for (int c = 0; c < kPeakChains; ++c) {
    acc[c] = T::zero();
    opaque(acc[c]);  // unknown start values: nothing to fold, no copies of constants to keep
  }
  typename T::AVec a = T::broadcast_bits(0x01020304u);
  typename T::BVec b = T::broadcast_bits(0x7F80FF01u);
  for (std::size_t it = 0; it < iterations; ++it) {
    opaque(b);
    QTUNE_GEMM_UNROLL for (int c = 0; c < kPeakChains; ++c) {
      opaque(a);  // before every dot: the product of a dot built from two instructions is not shared
      acc[c] = T::dot(acc[c], a, b);
      opaque(acc[c]);  // in a register: without it GCC kept AVX2's accumulators in memory
    }
  }
  QTUNE_GEMM_UNROLL for (int c = 1; c < kPeakChains; ++c) acc[0] = T::add(acc[0], acc[c]);
  opaque(acc[0]);  // the results are used
  return std::uint64_t{iterations} * kPeakChains * T::kLanes * T::kKr * 2;
}

// The descriptor of GemmTileKernel<T, MR, NR>; `name` must be a string literal.
template <class T, int MR, int NR>
constexpr GemmUkernel make_gemm_ukernel(const char* name) {
  using K = GemmTileKernel<T, MR, NR>;
  // The scalar family, a reference rather than a speed path, keeps the driver's fallback (one
  // segment per K block through `partial`): no second instance to compile, and the fallback that
  // the Arm families use stays tested on every machine.
  GemmUkernelFn segments = nullptr, row_sums = nullptr;
  if constexpr (T::kInPlace && T::kIsa != Isa::scalar) segments = &GemmTileKernel<T, MR, NR, AWalk::segments>::run;
  // In-tile row sums where their MR vectors fit beside the tile, its B vectors, the broadcast and
  // the ones vector of the sums in the family's registers: spilled, they cost more than they save
  // (docs/measurements.md, "GEMM microkernels").
  constexpr int kRegistersForRowSums = MR * K::kVecs + K::kVecs + 1 + MR + 1;
  if constexpr (T::kInPlace && SumsRowsInTile<T>) {
    if constexpr (kRegistersForRowSums <= T::kRegisters) row_sums = &GemmTileKernel<T, MR, NR, AWalk::row_sums>::run;
  }
  ClippedProductsFn clipped_products = nullptr;
  if constexpr (requires { T::kClippedProducts; }) {
    static_assert(T::kKr == 4 && K::kNrStride % 8 == 0 && K::kNrStride <= 256,
                  "clipped products are written for groups of 4, 8 columns a vector, 32 vectors at most");
    clipped_products = T::kClippedProducts;
  }
  return GemmUkernel{T::kIsa,      MR,      NR,   T::kKr,   K::kNrStride,      T::kAFormat, T::kBFormat,
                     T::kInPlace, &K::run, name, segments, K::kFoldedOrigin, row_sums,    K::kClipsPairs,
                     clipped_products};
}

}  // namespace qtune::detail
