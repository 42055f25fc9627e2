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
  for (std::size_t t = 0; t < std::min<std::size_t>(valid, N); ++t) dst[t] ^= flip;
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
      for (std::size_t i = 0; i < std::min<std::size_t>(args.rows, kMr); ++i) {
        for (int j = 0; j < kVecs; ++j) vst1q_s32(args.partial + i * args.partial_stride + 4 * j, rows.v[i][j]);
      }
      return;
    }
    add_zero_point_terms(rows, args);
    write_output(rows, args);
  }

  // acc += col_term[n] (+ row_term[m] * zb[n] when some zb != 0), wrapping like the reference.
  // Per-tensor weights: the row terms come multiplied by the one zb (GemmUkernelArgs::zb_uniform).
  static void add_zero_point_terms(Rows& rows, const GemmUkernelArgs& args) {
    int32x4_t col[kVecs], zb[kVecs];
    for (int j = 0; j < kVecs; ++j) col[j] = vld1q_s32(args.col_terms + 4 * j);
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kVecs; ++j) rows.v[i][j] = vaddq_s32(rows.v[i][j], col[j]);
    }
    if (args.row_terms == nullptr) return;
    if (args.zb_uniform) {
      for (std::size_t i = 0; i < std::min<std::size_t>(args.rows, kMr); ++i) {
        const int32x4_t term = vdupq_n_s32(args.row_terms[i]);
        for (int j = 0; j < kVecs; ++j) rows.v[i][j] = vaddq_s32(rows.v[i][j], term);
      }
      return;
    }
    for (int j = 0; j < kVecs; ++j) zb[j] = vld1q_s32(args.col_zb + 4 * j);
    for (std::size_t i = 0; i < std::min<std::size_t>(args.rows, kMr); ++i) {
      for (int j = 0; j < kVecs; ++j) rows.v[i][j] = vmlaq_n_s32(rows.v[i][j], zb[j], args.row_terms[i]);
    }
  }

  // Calls store(i, first_column, vector, valid_lanes) for every vector holding valid outputs.
  template <class Store>
  static void for_each_valid(const Rows& rows, const GemmUkernelArgs& args, Store store) {
    for (std::size_t i = 0; i < std::min<std::size_t>(args.rows, kMr); ++i) {
      for (int j = 0; j < kVecs; ++j) {
        const std::size_t first = 4 * static_cast<std::size_t>(j);
        if (first >= args.cols) break;
        store(i, first, rows.v[i][j], std::min<std::size_t>(4, args.cols - first));
      }
    }
  }

  template <RoundingMode Mode>
  static void write_requantized(const Rows& rows, const GemmUkernelArgs& args) {
    const RequantConstants plan = *args.plan;  // a local copy: see RequantConstants
    neon::RequantLanes<Mode> lanes[kVecs];
    for (int j = 0; j < kVecs; ++j) lanes[j] = neon::load_requant_lanes<Mode>(plan, args.channel + 4 * j);
    auto* c = static_cast<std::uint8_t*>(args.c);  // u8 and s8 results share their bit patterns
    for_each_valid(rows, args, [&](std::size_t i, std::size_t first, int32x4_t x, std::size_t n) {
      const int32x4_t q = neon::requantize4<Mode>(x, lanes[first / 4]);
      const std::uint32_t four = vget_lane_u32(vreinterpret_u32_u8(neon::narrow8(q, q)), 0);
      std::memcpy(c + i * args.ldc + first, &four, n);
    });
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
        return with_rounding_mode(args.plan->mode, [&]<RoundingMode Mode>() { write_requantized<Mode>(rows, args); });
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
