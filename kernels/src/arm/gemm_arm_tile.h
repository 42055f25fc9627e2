// The Arm GEMM microkernel template: the parts every Arm family shares (K-block partial sums, the
// zero-point terms, int32 output and fused NEON requantization), written once over a family
// "core" that owns the inner loop and the accumulator layout. Layouts and argument meanings are
// those of gemm_ukernel.h; each family instantiates this template per tile in its own
// translation unit (arm/neon, arm/dotprod, arm/i8mm), compiled with that family's -march.
//
// A core C provides:
//   kIsa, kMr, kNr, kKr, kAFormat, kBFormat     (kNr a multiple of 4: kVecs = kNr / 4 vectors a row)
//   struct Acc;                                   the accumulators in the core's own layout
//   void zero(Acc&)
//   void accumulate_packed(Acc&, const GemmUkernelArgs&)    A from a packed panel
//   void accumulate_in_place(Acc&, const GemmUkernelArgs&)  A read from the row pointers
//   void to_rows(const Acc&, RowTile<kMr, kVecs>&)          the layout as row-major C vectors
//   void from_rows(const RowTile<kMr, kVecs>&, Acc&)        its inverse (for K-block partials)
// Row-major cores (neon, dotprod) make to_rows/from_rows plain copies that the compiler removes;
// the i8mm core's 2x2 blocks are converted by i8mm_layout.h.
#pragma once

#include <arm_neon.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "arm/neon/requant_neon.h"
#include "gemm/gemm_ukernel.h"
#include "quant/requant_plan.h"

namespace qtune::detail::arm {

// An MR x (4 * V) tile of C as int32x4 vectors: v[i][j] holds columns 4j .. 4j+3 of row i.
template <int MR, int V>
struct RowTile {
  int32x4_t v[MR][V];
};

// Row-major accumulators (neon, dotprod): the RowTile itself.
template <int MR, int V>
struct RowMajorLayout {
  using Acc = RowTile<MR, V>;
  static void zero(Acc& acc) {
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < V; ++j) acc.v[i][j] = vdupq_n_s32(0);
    }
  }
  static void to_rows(const Acc& acc, RowTile<MR, V>& rows) { rows = acc; }
  static void from_rows(const RowTile<MR, V>& rows, Acc& acc) { acc = rows; }
};

// Byte loads of A read in place: `valid` (<= N) bytes of one k group, zero beyond them, never
// reading past the row. The flip is applied to real bytes only.
template <int N>
inline void load_group(std::uint8_t* dst, const std::uint8_t* src, std::size_t valid, std::uint8_t flip) {
  if (valid >= static_cast<std::size_t>(N)) {
    std::memcpy(dst, src, N);
  } else {
    std::memset(dst, 0, N);
    std::memcpy(dst, src, valid);
  }
  // A fixed trip count: with `valid` as the bound GCC's vectorized loop claimed stores past dst[N).
  const std::size_t real = std::min<std::size_t>(valid, N);
  for (std::size_t t = 0; t < static_cast<std::size_t>(N); ++t) dst[t] ^= t < real ? flip : 0;
}

// Valid bytes of k group g when A is read in place.
inline std::size_t group_bytes(const GemmUkernelArgs& args, std::size_t g, std::size_t kr) {
  const std::size_t start = g * kr;
  return args.a_k_bytes > start ? std::min(kr, args.a_k_bytes - start) : 0;
}

template <class C>
struct ArmGemmTile {
  static constexpr int kMr = C::kMr, kNr = C::kNr, kVecs = C::kNr / 4;
  static_assert(C::kNr % 4 == 0, "Arm tiles hold whole int32x4 vectors per row");
  using Rows = RowTile<kMr, kVecs>;

  static void run(const GemmUkernelArgs& args) {
    for_each_m_panel(args, kMr, C::kKr * packed_a_elem_bytes(C::kAFormat),
                     [](const GemmUkernelArgs& panel_args) __attribute__((always_inline)) { run_panel(panel_args); });
  }

 private:
  __attribute__((always_inline)) static inline void run_panel(const GemmUkernelArgs& args) {
    typename C::Acc acc;
    if (args.first) {
      C::zero(acc);
    } else {
      Rows rows;
      for (int i = 0; i < kMr; ++i) {
        for (int j = 0; j < kVecs; ++j) {
          rows.v[i][j] = static_cast<std::size_t>(i) < args.rows
                             ? vld1q_s32(args.partial + i * args.partial_stride + 4 * j)
                             : vdupq_n_s32(0);
        }
      }
      C::from_rows(rows, acc);
    }
    if (args.a_packed != nullptr) {
      C::accumulate_packed(acc, args);
    } else {
      C::accumulate_in_place(acc, args);
    }
    Rows rows;
    C::to_rows(acc, rows);
    if (!args.last) {
      for (int i = 0; i < kMr; ++i) {
        if (static_cast<std::size_t>(i) >= args.rows) break;
        for (int j = 0; j < kVecs; ++j) vst1q_s32(args.partial + i * args.partial_stride + 4 * j, rows.v[i][j]);
      }
      return;
    }
    add_zero_point_terms(rows, args);
    write_output(rows, args);
  }

  // acc += col_term[n] (+ row_term[m] * zb[n] when some zb != 0), wrapping like the reference.
  // Per-tensor weights: the row terms come multiplied by the one zb (GemmUkernelArgs::zb_uniform).
  // Rows are indexed by constants only (a loop to kMr that breaks at args.rows), here and before
  // the epilogue: a run-time index put the whole tile in memory, and the epilogue reloaded it.
  static void add_zero_point_terms(Rows& rows, const GemmUkernelArgs& args) {
    int32x4_t col[kVecs], zb[kVecs];
    for (int j = 0; j < kVecs; ++j) col[j] = vld1q_s32(args.col_terms + 4 * j);
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kVecs; ++j) rows.v[i][j] = vaddq_s32(rows.v[i][j], col[j]);
    }
    if (args.row_terms == nullptr) return;
    if (args.zb_uniform) {
      for (int i = 0; i < kMr; ++i) {
        if (static_cast<std::size_t>(i) >= args.rows) break;
        const int32x4_t term = vdupq_n_s32(args.row_terms[i]);
        for (int j = 0; j < kVecs; ++j) rows.v[i][j] = vaddq_s32(rows.v[i][j], term);
      }
      return;
    }
    for (int j = 0; j < kVecs; ++j) zb[j] = vld1q_s32(args.col_zb + 4 * j);
    for (int i = 0; i < kMr; ++i) {
      if (static_cast<std::size_t>(i) >= args.rows) break;
      for (int j = 0; j < kVecs; ++j) rows.v[i][j] = vmlaq_n_s32(rows.v[i][j], zb[j], args.row_terms[i]);
    }
  }

  // Calls store(i, first_column, vector, valid_lanes) for every vector holding valid outputs.
  template <class Store>
  static void for_each_valid(const Rows& rows, const GemmUkernelArgs& args, Store store) {
    for (int i = 0; i < kMr; ++i) {
      if (static_cast<std::size_t>(i) >= args.rows) break;
      for (int j = 0; j < kVecs; ++j) {
        const std::size_t first = 4 * static_cast<std::size_t>(j);
        if (first >= args.cols) break;
        store(static_cast<std::size_t>(i), first, rows.v[i][j], std::min<std::size_t>(4, args.cols - first));
      }
    }
  }

  // Bytes [0, n) of b (n < 16) at dst: 8-, 4-, 2- and 1-byte stores, never a call (a memcpy of
  // variable length was one per vector). With n known at compile time the branches fold away.
  __attribute__((always_inline)) static inline void store_bytes(std::uint8_t* dst, uint8x16_t b, std::size_t n) {
    if (n & 8) {
      vst1_u8(dst, vget_low_u8(b));
      b = vextq_u8(b, b, 8);
      dst += 8;
    }
    if (n & 4) {
      const std::uint32_t four = vgetq_lane_u32(vreinterpretq_u32_u8(b), 0);
      std::memcpy(dst, &four, 4);
      b = vextq_u8(b, b, 4);
      dst += 4;
    }
    if (n & 2) {
      const std::uint16_t two = vgetq_lane_u16(vreinterpretq_u16_u8(b), 0);
      std::memcpy(dst, &two, 2);
      b = vextq_u8(b, b, 2);
      dst += 2;
    }
    if (n & 1) vst1q_lane_u8(dst, b, 0);
  }

  // Whole rows of one or two vectors share a 16-byte vector: kRowsPerStore of them.
  static constexpr int kRowsPerStore = kVecs <= 2 && kMr % (4 / kVecs) == 0 ? 4 / kVecs : 1;

  // Bytes 4r .. 4r+3 of b at dst (no alignment).
  __attribute__((always_inline)) static inline void store_lane32(std::uint8_t* dst, uint8x16_t b, int r) {
    const uint32x4_t u = vreinterpretq_u32_u8(b);
    const std::uint32_t lane[4] = {vgetq_lane_u32(u, 0), vgetq_lane_u32(u, 1), vgetq_lane_u32(u, 2),
                                   vgetq_lane_u32(u, 3)};
    std::memcpy(dst, &lane[r], 4);
  }

  // Lane r (of kNr bytes) of b at dst.
  __attribute__((always_inline)) static inline void store_lane(std::uint8_t* dst, uint8x16_t b, int r) {
    if constexpr (kVecs == 1) {
      store_lane32(dst, b, r);
    } else {
      const uint64x2_t u = vreinterpretq_u64_u8(b);
      const std::uint64_t lane[2] = {vgetq_lane_u64(u, 0), vgetq_lane_u64(u, 1)};
      std::memcpy(dst, &lane[r], 8);
    }
  }

  // The first n (<= kNr) bytes of a row of neon::epilogue4 values.
  template <RoundingMode Mode, bool Plain>
  __attribute__((always_inline)) static inline void store_row(std::uint8_t* dst, const int32x4_t (&q)[kVecs],
                                                              const neon::OutputLanes& out, std::size_t n) {
#pragma GCC unroll 4
    for (int j = 0; j < kVecs; j += 4, dst += 16, n -= 16) {
      const auto at = [&](int k) { return q[std::min(j + k, kVecs - 1)]; };
      const uint8x16_t b = neon::epilogue_bytes16<Mode, Plain>(at(0), at(1), at(2), at(3), out);
      if (n < 16) return store_bytes(dst, b, n);
      vst1q_u8(dst, b);
      if (n == 16) return;
    }
  }

  // The tile's constants, one RequantLanes per channel block, loaded once per tile and then held in
  // registers: reloaded from the stack for every vector they cost more than the requantization
  // itself (docs/arm-static-analysis.md).
  template <RoundingMode Mode, bool Plain>
  __attribute__((always_inline)) static inline void load_lanes(neon::RequantLanes<Mode, Plain> (&lanes)[kVecs],
                                                               const GemmUkernelArgs& args) {
    const RequantConstants plan = *args.plan;  // a local copy: see RequantConstants
#pragma GCC unroll 4
    for (int j = 0; j < kVecs; ++j) lanes[j] = neon::load_requant_lanes<Mode, Plain>(plan, args.channel + 4 * j);
  }

  template <RoundingMode Mode, bool Plain>
  __attribute__((always_inline)) static inline void write_row(const int32x4_t (&acc)[kVecs],
                                                              const neon::RequantLanes<Mode, Plain> (&lanes)[kVecs],
                                                              const neon::OutputLanes& out, std::uint8_t* dst,
                                                              std::size_t n) {
    int32x4_t q[kVecs];
#pragma GCC unroll 4
    for (int j = 0; j < kVecs; ++j) q[j] = neon::epilogue4(acc[j], lanes[j]);
    store_row<Mode, Plain>(dst, q, out, n);
  }

  // Whole tiles store whole vectors (n = kNr is a constant), ragged ones only their `cols` bytes.
  // Rows by constant index only, as in add_zero_point_terms. Always inlined: as a call of its own
  // (GCC's choice for some of the modes' forms) the tile went through memory.
  template <RoundingMode Mode, bool Plain>
  __attribute__((always_inline)) static inline void write_requantized(const Rows& rows, const GemmUkernelArgs& args) {
    auto* c = static_cast<std::uint8_t*>(args.c);  // u8 and s8 results share their bit patterns
    neon::RequantLanes<Mode, Plain> lanes[kVecs];
    const neon::OutputLanes out = neon::load_output_lanes(*args.plan);
    if (args.rows == kMr && args.cols == kNr) {
      load_lanes(lanes, args);
      if constexpr (kRowsPerStore > 1) {
        // Rows of one or two vectors: 4 / kVecs rows narrowed into one 16-byte vector (three uzp1,
        // not two a vector), each row stored from its lane.
#pragma GCC unroll 8
        for (int i = 0; i < kMr; i += kRowsPerStore) {
          int32x4_t q[4];
#pragma GCC unroll 4
          for (int k = 0; k < 4; ++k) {
            q[k] = neon::epilogue4(rows.v[i + k / kVecs][k % kVecs], lanes[k % kVecs]);
          }
          const uint8x16_t b = neon::epilogue_bytes16<Mode, Plain>(q[0], q[1], q[2], q[3], out);
#pragma GCC unroll 4
          for (int r = 0; r < kRowsPerStore; ++r) store_lane(c + (i + r) * args.ldc, b, r);
        }
      } else if constexpr (kVecs == 3 && kMr % 2 == 0) {
        // Rows of 12: two rows' 24 outputs in a 16-byte and an 8-byte vector (a row alone narrowed
        // a copy of its third vector as a fourth).
#pragma GCC unroll 8
        for (int i = 0; i < kMr; i += 2) {
          int32x4_t q[6];
#pragma GCC unroll 6
          for (int k = 0; k < 6; ++k) q[k] = neon::epilogue4(rows.v[i + k / 3][k % 3], lanes[k % 3]);
          const uint8x16_t first = neon::epilogue_bytes16<Mode, Plain>(q[0], q[1], q[2], q[3], out);
          const uint8x8_t rest = neon::epilogue_bytes8<Mode, Plain>(q[4], q[5], out);
          std::uint8_t* row = c + i * args.ldc;
          std::uint8_t* next = row + args.ldc;
          vst1_u8(row, vget_low_u8(first));
          store_lane32(row + 8, first, 2);
          store_lane32(next, first, 3);
          vst1_u8(next + 4, rest);
        }
      } else {
        // Every vector of the tile scaled before any is narrowed: independent work between each
        // instruction and its result's use, which an in-order core (Cortex-A55) needs.
        int32x4_t q[kMr][kVecs];
#pragma GCC unroll 8
        for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 4
          for (int j = 0; j < kVecs; ++j) q[i][j] = neon::epilogue4(rows.v[i][j], lanes[j]);
        }
#pragma GCC unroll 8
        for (int i = 0; i < kMr; ++i) store_row<Mode, Plain>(c + i * args.ldc, q[i], out, kNr);
      }
      return;
    }
    load_lanes(lanes, args);
#pragma GCC unroll 8
    for (int i = 0; i < kMr; ++i) {
      if (static_cast<std::size_t>(i) >= args.rows) break;
      write_row(rows.v[i], lanes, out, c + i * args.ldc, args.cols);
    }
  }

  static void write_output(const Rows& rows, const GemmUkernelArgs& args) {
    switch (args.output) {
      case UkernelOutput::s32: {
        auto* c = static_cast<std::int32_t*>(args.c);
        for_each_valid(rows, args, [&](std::size_t i, std::size_t first, int32x4_t x, std::size_t n) {
          std::int32_t* dst = c + i * args.ldc + first;
          if (n == 4) {
            vst1q_s32(dst, x);
          } else {
            std::int32_t lanes[4];
            vst1q_s32(lanes, x);
            std::memcpy(dst, lanes, n * sizeof(std::int32_t));
          }
        });
        return;
      }
      case UkernelOutput::u8:
      case UkernelOutput::s8:
        return with_rounding_mode(args.plan->mode, [&]<RoundingMode Mode>() {
          if constexpr (neon::kHasPlainForm<Mode>) {
            if (neon::takes_plain_form<Mode>(*args.plan)) return write_requantized<Mode, true>(rows, args);
          }
          write_requantized<Mode, false>(rows, args);
        });
    }
  }
};

// The descriptor of ArmGemmTile<C>; every Arm core works on bytes, so every tile can read A in place.
template <class C>
constexpr GemmUkernel make_arm_gemm_ukernel(const char* name) {
  return GemmUkernel{C::kIsa,     C::kMr,     C::kNr, C::kKr, C::kNr, C::kAFormat, C::kBFormat,
                     /*a_in_place=*/true, &ArmGemmTile<C>::run, name};
}

}  // namespace qtune::detail::arm
