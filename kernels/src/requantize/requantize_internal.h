// The standalone requantization kernel on a prebuilt plan (the GEMM's separate pass builds the
// plan once per operator), and the per-ISA entry points behind the dispatch in requantize.cc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qtune/kernels/requantize.h"
#include "vector/vector_ops.h"
#include "quant/requant_plan.h"

namespace qtune::detail {

// As qtune::requantize(), with the checks on config, out_type and shapes; the plan is not rebuilt.
void requantize(const RequantizeConfig& config, const RequantConstants& plan, DType out_type,
                const std::int32_t* acc, std::size_t rows, std::size_t cols, std::size_t acc_stride,
                void* out, std::size_t out_stride);

// The scalar kernel: no checks (the caller validated); out_type u8 or s8. The vector kernels are
// the rows of dispatch/isa_table.cc (RequantizeRowsFn).
void requantize_rows_scalar(const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                            std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                            std::size_t out_stride);

// ---- the one loop every vector ISA instantiates ------------------------------------------------
// VectorIsa: an instruction set's vector operations (vector/vector_ops.h; of them this loop uses
// kLanes, load, load_partial, requantize and the partial stores). Instantiated only in that ISA's
// translation unit (compiled with its flags); the types differ per ISA, so the instantiations
// never collide across translation units.
//
// Each row: `Unroll` full vectors per iteration, then the rest in full or partial vectors (masked
// loads and stores): every element goes through the same vector code, no scalar tail.
//
// U8Full: the short u8 epilogue (HasU8FullRangeEpilogue, u8_full_range_epilogue), which the GEMM
// and depthwise kernels use in their fused epilogues; here it also serves their separate pass, and
// the requantization tests check it over the int32 limits.
//
// Families with RequantLanes (HasRequantLanes) load a per-tensor plan's constants once, before
// the rows, and a per-channel plan's once per vector of channels; the others load them inside each
// requantize call.
template <class VectorIsa, int Unroll, RoundingMode Mode, bool U8Full, class Out>
void requantize_rows_vector(const RequantConstants plan, const std::int32_t* acc, std::size_t rows, std::size_t cols,
                            std::size_t acc_stride, Out* out, std::size_t out_stride) {
  constexpr std::size_t kLanes = VectorIsa::kLanes, kStep = kLanes * Unroll;
  using Vec = typename VectorIsa::Vec;
  const auto rows_with = [&](auto requantize) {
    for (std::size_t r = 0; r < rows; ++r) {
      const std::int32_t* src = acc + r * acc_stride;
      Out* dst = out + r * out_stride;
      std::size_t c = 0;
      for (; c + kStep <= cols; c += kStep) {
        Vec v[Unroll];
        for (int u = 0; u < Unroll; ++u) v[u] = VectorIsa::load(src + c + u * kLanes);
        for (int u = 0; u < Unroll; ++u) v[u] = requantize(v[u], c + u * kLanes);
        for (int u = 0; u < Unroll; ++u) VectorIsa::store(dst + c + u * kLanes, v[u], kLanes);
      }
      for (; c < cols; c += kLanes) {
        const std::size_t n = cols - c < kLanes ? cols - c : kLanes;
        VectorIsa::store(dst + c, requantize(VectorIsa::load_partial(src + c, n), c), n);
      }
    }
  };
  if constexpr (HasRequantLanes<VectorIsa, Mode>) {
    const auto with_lanes = [&](Vec v, const auto& lanes) {
      if constexpr (U8Full) {
        return VectorIsa::template requantize_u8_full<Mode>(v, lanes, plan);
      } else {
        return VectorIsa::template requantize<Mode>(v, lanes, plan);
      }
    };
    if (plan.per_channel) {
      rows_with([&](Vec v, std::size_t channel) {
        return with_lanes(v, VectorIsa::template requant_lanes<Mode>(plan, channel));
      });
    } else {
      const auto tensor_lanes = VectorIsa::template requant_lanes<Mode>(plan, 0);
      rows_with([&](Vec v, std::size_t) { return with_lanes(v, tensor_lanes); });
    }
  } else {
    static_assert(!U8Full, "the short u8 epilogue takes a column's RequantLanes");
    rows_with([&](Vec v, std::size_t channel) { return VectorIsa::template requantize<Mode>(v, plan, channel); });
  }
}

// Picks the instantiation for (mode, out_type) at a fixed unroll: 5 x 2 per ISA and unroll. The
// depthwise kernels' separate pass calls it too.
template <class VectorIsa, int Unroll>
void requantize_rows_unrolled(const RequantConstants& plan, DType out_type, const std::int32_t* acc, std::size_t rows,
                              std::size_t cols, std::size_t acc_stride, void* out, std::size_t out_stride) {
  with_rounding_mode(plan.mode, [&]<RoundingMode Mode>() {
    if (out_type == DType::u8) {
      auto* dst = static_cast<std::uint8_t*>(out);
      if constexpr (HasU8FullRangeEpilogue<VectorIsa, Mode>) {
        if (u8_full_range_epilogue(plan, Mode)) {
          return requantize_rows_vector<VectorIsa, Unroll, Mode, true>(plan, acc, rows, cols, acc_stride, dst,
                                                                       out_stride);
        }
      }
      requantize_rows_vector<VectorIsa, Unroll, Mode, false>(plan, acc, rows, cols, acc_stride, dst, out_stride);
    } else {
      requantize_rows_vector<VectorIsa, Unroll, Mode, false>(plan, acc, rows, cols, acc_stride,
                                                             static_cast<std::int8_t*>(out), out_stride);
    }
  });
}

// Picks the instantiation for (unroll, mode, out_type): 3 x 5 x 2 per ISA.
template <class VectorIsa>
void requantize_rows_dispatch(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                              std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                              std::size_t out_stride) {
  switch (unroll) {
    case 1: return requantize_rows_unrolled<VectorIsa, 1>(plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
    case 2: return requantize_rows_unrolled<VectorIsa, 2>(plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
    case 4: return requantize_rows_unrolled<VectorIsa, 4>(plan, out_type, acc, rows, cols, acc_stride, out, out_stride);
    default: return;  // excluded by requantize_check_config()
  }
}

}  // namespace qtune::detail
