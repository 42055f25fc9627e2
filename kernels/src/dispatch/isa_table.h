// The instruction-set table: one row per instruction set compiled into this build, in the order of
// default preference (the fastest family first, scalar last), saying what the set offers. Every
// dispatch (GEMM, depthwise, requantization, the separate requantization pass of a GEMM), every
// default configuration and the test sweeps read this table, so adding an instruction set is:
//   1. its enumerator in qtune/kernels/isa.h (to_string, and CpuFeatures::usable in
//      platform/cpu_features.cc, whose switch the compiler checks for completeness),
//   2. a folder x86/<isa>/ or arm/<isa>/ with its flags in kernels/CMakeLists.txt (which defines
//      QTUNE_HAVE_<ISA>),
//   3. its row in dispatch/isa_table.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "dwconv/dwconv.h"
#include "gemm/gemm_pack.h"
#include "gemm/gemm_ukernel.h"
#include "qtune/kernels/isa.h"
#include "qtune/kernels/quant.h"
#include "quant/requant_plan.h"

namespace qtune::detail {

struct RequantConstants;

// A standalone requantization kernel of one instruction set (requantize/requantize_internal.h):
// unroll 1, 2 or 4; out_type u8 or s8; no checks.
using RequantizeRowsFn = void (*)(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                                  std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                                  std::size_t out_stride);

struct GemmTile {
  int mr = 0, nr = 0;
};

// A depthwise channel tile the default configuration may choose, widest first: the first whose
// conditions hold is taken (a tile wider than the layer leaves lanes idle).
struct DwDefaultTile {
  int channel_tile = 0;
  int width_tile = 1;       // output pixels per step
  bool needs_int8_form = false;  // only where a vpdpbusd form applies (DwForm dot4 or rowdot)
  bool whole_rows = false;  // only where the output rows are whole tiles (out_w % width_tile == 0)
};

struct IsaRow {
  explicit IsaRow(Isa set) : isa(set) {}

  Isa isa;
  // Kernel families; an empty span where the set has none.
  std::span<const GemmUkernel> (*gemm)() = nullptr;
  std::span<const DwKernel> (*dwconv)() = nullptr;
  GemmDotPeak (*dot_peak)() = nullptr;  // the family's throughput ceiling, for `qtune bench`
  // A vector packer of A panels, used for every GEMM family's format it knows where the set is
  // usable (the first such row wins), or null.
  PackAPanelFn pack_a_panel = nullptr;
  // A vector kernel of the row sums of A read in place (the term of per-tensor weight zero
  // points), used by every GEMM family where the set is usable (the first such row wins), or null.
  RowSumsFn a_row_sums = nullptr;
  // The same for rows stored back to back, for the row lengths it takes, or null.
  DenseRowSumsFn a_dense_row_sums = nullptr;
  // The set's own standalone requantization kernel (a value of the requantize isa knob), or null.
  RequantizeRowsFn requantize = nullptr;
  // The kernel a GEMM of this set uses for its separate requantization pass (fuse = 0), with its
  // unroll: its own, or that of the set it extends (AVX-VNNI runs AVX2's); null: scalar.
  RequantizeRowsFn separate_requantize = nullptr;
  int separate_requantize_unroll = 1;
  // Integer-rounding layers run a float epilogue where a float form is proven exactly equivalent
  // (RequantPlan::make, quant/fp32_equivalent.h): x86, where the 64-bit products of the
  // integer modes cost 11-15 instructions per vector against 6-7; the centred form only with
  // AVX-512's per-instruction rounding. Not Arm, whose sqrdmulh + srshl are as short as the fp32
  // path.
  FloatForms float_forms = FloatForms::none;
  // Default configuration (gemm_default_config, conv2d_default_config): the GEMM tiles, preferred
  // first (among them the one that pads M and N least wins); the tile for narrow layers
  // (N <= narrow_n, where wide tiles would mostly compute padding); the depthwise tiles.
  std::span<const GemmTile> gemm_tiles;
  int narrow_n = 0;
  GemmTile narrow_tile;
  // The tile for matrix-vector layers (M = 1), where every taller tile repeats the one row; {0, 0}:
  // none (the workhorse tiles then compete as for any M).
  GemmTile single_row_tile{0, 0};
  // The smallest GEMM the set is the default for: smaller ones go to the next usable row, where
  // the set's fixed cost per output tile outweighs its rate (AMX: tile loads and stores of C and
  // the requantization from memory per 16 rows, K padded to 64 bytes).
  std::int64_t default_min_m = 1, default_min_n = 1, default_min_k = 1;
  std::span<const DwDefaultTile> dw_tiles;
};

// The rows of the instruction sets compiled into this build, preferred first, scalar last.
std::span<const IsaRow> isa_table();
// The row of `isa`, or null when it is not compiled in.
const IsaRow* find_isa_row(Isa isa);
// The exact float forms `isa`'s kernels take for integer-rounding plans (IsaRow).
FloatForms float_forms(Isa isa);

}  // namespace qtune::detail
