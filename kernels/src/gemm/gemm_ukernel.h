// The internal GEMM microkernel interface and registry. Every instruction-set family (scalar,
// AVX2, AVX-VNNI, AVX-512 VNNI, NEON, dotprod, i8mm) plugs into the GEMM driver through the
// descriptors declared here, listed by its row of the instruction-set table
// (dispatch/isa_table.h); the driver (gemm_driver.h) never knows which family runs.
//
// What a microkernel computes
// ---------------------------
// One register tile of C: `rows` x `cols` (<= mr x nr) outputs over one K block of `k_groups`
// groups of kr consecutive k values, from a packed A panel (or A rows read in place) and a packed
// B panel. Across K blocks the int32 accumulators are carried in a `partial` buffer. After the last
// block the epilogue adds the precomputed zero-point/bias terms and writes C (int32, or requantized
// to u8/s8 while the tile is still in registers).
//
// The zero-point algebra (all of it in wrapping int32 arithmetic, so it is bit-exact with the
// reference computed in uint32):
//   sum_k (a - za)(b - zb) = sum_k a'*b  - za'*colsum(B)  - zb*rowsum(A')  + K*za'*zb
// where a' is the packed activation and za' its zero point: a' = a, za' = za for int16 formats;
// for formats that need unsigned activations (vpdpbusd is u8 x s8) s8 inputs are flipped,
// a' = a ^ 0x80 = a + 128 (as u8), and za' = za + 128, which leaves (a' - za') unchanged.
// The per-column part  col_term[n] = bias[n] - za'*colsum(B[:,n]) + K*za'*zb[n]  is computed once
// when B is packed and stored with the B panel; the per-row part  -rowsum(A'[m,:]) * zb[n]  is only
// applied when some zb != 0 (row sums are produced while packing A, or in a separate pass when A is
// read in place).
//
// Packed layouts (kr = the format's k-group size, "elem" = 1 byte or 2 bytes)
// ----------------------------------------------------------------------------
// A panel (one per mr rows, per call):  [k_groups][mr][kr] elem
//     element (g, i, t) = A'[m0 + i][k0 + g*kr + t]; k >= K and rows beyond the valid ones hold 0.
//     PackedA::u8:  bytes, s8 activations flipped (^0x80); 0 padding (its B partner is 0 anyway).
//     PackedA::s16: int16, u8 zero-extended / s8 sign-extended (no flip; za' = za).
// B panel (one per nr columns, at prepare), 64-byte aligned, `nr_stride` >= nr columns so that
// vector loads never need masks (columns >= N and the padding columns are all zero):
//     int32 col_term[nr_stride]             bias - za'*colsum + K*za'*zb   (0 in padding columns)
//     int32 col_zb[nr_stride]               zb per column                  (0 in padding columns)
//     elem  b[k_groups_total][nr_stride][kr] B[k][n0 + j] at (g, j, t) with k = g*kr + t, 0 padded
//     PackedB::s8: int8;  PackedB::s16: int16 (sign-extended, for vpmaddwd);
//     PackedB::s8_quads: int8 with each group's k split into quads, b[g][t / 4][j][t % 4] (AMX).
//   The byte size of one panel is gemm_b_panel_bytes(); panels follow each other in column order.
// In-place A (descriptor.a_in_place): the kernel reads kr-byte groups straight from the mr row
//   pointers (byte formats only): full groups as 4-byte loads, the ragged last group of a row with
//   a copy of only the valid bytes (never past the end of a row), XOR-ing `a_flip` into each byte.
//
// Note on AVX2: vpmaddubsw (u8 x s8 -> saturating int16 pair sums) would be twice as dense, but it
// saturates (255*127*2 > 32767), so it is not bit-exact; the AVX2 family widens A and B to int16
// and uses vpmaddwd, whose int32 pair sums cannot overflow for 8-bit inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "qtune/kernels/isa.h"

namespace qtune::detail {

struct RequantConstants;  // kernels/src/quant/requant_plan.h: requantization constants padded for vector loads

enum class PackedA : unsigned char {
  u8,   // bytes; s8 activations are flipped to u8 with +128 zero-point compensation (vpdpbusd)
  s16,  // int16 widened by the activation type's signedness (vpmaddwd)
  s8,   // bytes; u8 activations are flipped to s8 (^0x80) with -128 zero-point compensation
        // (Arm sdot / smull, which multiply signed by signed)
};
enum class PackedB : unsigned char {
  s8,   // int8 weights as given
  s16,  // int16 sign-extended weights
  s8_quads,  // int8, each group of kr k values split into quads of 4: [kr/4][nr_stride][4], the
             // VNNI-4 layout of an AMX B tile (a group of 64 is one tile: 16 rows of 16 columns x 4)
};

inline constexpr std::size_t packed_a_elem_bytes(PackedA f) { return f == PackedA::s16 ? 2 : 1; }
inline constexpr std::size_t packed_b_elem_bytes(PackedB f) { return f == PackedB::s16 ? 2 : 1; }

// What the microkernel writes after the last K block.
enum class UkernelOutput : unsigned char {
  s32,  // int32 result (also used for the separate-requantization path, into an int32 buffer)
  u8,   // fused requantization to u8 (clamped to [qmin, qmax])
  s8,   // fused requantization to s8
};

struct GemmUkernelArgs {
  // Tile of this call.
  std::size_t rows = 0;      // valid rows, 1..mr
  std::size_t cols = 0;      // valid columns, 1..nr
  std::size_t k_groups = 0;  // kr-groups in this K block, >= 1

  // A: exactly one of a_packed / a_rows is set.
  const void* a_packed = nullptr;           // packed panel at this block: [k_groups][mr][kr] elem
  const std::uint8_t* const* a_rows = nullptr;  // in place: mr row pointers at this block's first k;
                                            // rows >= `rows` repeat the last valid row's pointer
  std::size_t a_k_bytes = 0;                // in place: valid bytes of each row in this block,
                                            // (k_groups - 1)*kr < a_k_bytes <= k_groups*kr
  std::uint8_t a_flip = 0;                  // in place: 0x80 for s8 activations in a u8 format, else 0
  // In place, GemmUkernel::fn_segments only: each row is a_segments runs of a_k_bytes
  // bytes (a whole number of groups when a_segments > 1), run s at a_rows[i] + s * a_segment_stride
  // (the kernel rows of a convolution read from its input); k_groups counts the groups of all.
  std::size_t a_segments = 1;
  std::size_t a_segment_stride = 0;

  // B panel at this block's first group: [k_groups][nr_stride][kr] elem.
  const void* b_packed = nullptr;

  // K blocking. `first`: accumulators start at 0, else they are loaded from `partial`.
  // `last`: run the epilogue, else store the accumulators to `partial` (rows x nr_stride int32,
  // row stride partial_stride elements; whole vectors of nr_stride columns are stored).
  bool first = true, last = true;
  std::int32_t* partial = nullptr;
  std::size_t partial_stride = 0;

  // Epilogue (last block only).
  const std::int32_t* col_terms = nullptr;  // nr_stride per-column constants of the B panel
  const std::int32_t* col_zb = nullptr;     // nr_stride zb per column; null iff row_terms is null
  const std::int32_t* row_terms = nullptr;  // `rows` values -rowsum(A'); null when every zb == 0
                                            // (GemmUkernel::fn_row_sums: ignored, summed in the tile)
  // Per-tensor weights: every column's zb is the same, and row_terms hold each row's whole term,
  // -rowsum(A') * zb (wrapping), added as it is to every column: one broadcast and add per row
  // vector. (With the product in the epilogue, a load, multiply and move to a vector register per
  // row, which a small-K tile notices: docs/measurements.md, "GEMM microkernels".)
  bool zb_uniform = false;
  UkernelOutput output = UkernelOutput::s32;
  void* c = nullptr;                        // first element of the tile
  std::size_t ldc = 0;                      // row stride of c in elements
  // Fused requantization (u8/s8 outputs): column j of the tile is output channel `channel + j`
  // (ignored by per-tensor plans). The plan's arrays are padded for 16-lane loads.
  const RequantConstants* plan = nullptr;
  std::size_t channel = 0;

  // Consecutive M panels in one call (one K block only: first and last): panel p reads the row
  // pointers a_rows + p*mr (in place) or the packed panel a_packed + p * k_groups*mr*kr elem,
  // adds row_terms + p*mr and writes c + p*mr*ldc. Every panel but the last has mr valid rows;
  // `rows` is the last one's. At small K the call's set-up (copies of these arguments and of the
  // plan, the epilogue's constants) is a visible share of a tile's work (docs/measurements.md,
  // "GEMM microkernels").
  std::size_t panels = 1;

  // Families that clip weight pairs (GemmUkernel::clips_pairs): what the clipped weights leave out
  // of this K block's dot products (gemm/pair_clipping.h), `rows` x nr_stride int32 at row stride
  // corrections_stride (panel p of a call at corrections + p*mr*corrections_stride), added to the
  // accumulators before the block's products; null where the block has none.
  const std::int32_t* corrections = nullptr;
  std::size_t corrections_stride = 0;
  // Or, where the weights clip many pairs, the excesses as a panel of their own in the B panel's
  // weight layout at this block's first group ([k_groups][nr_stride][kr] int8, at most one of each
  // pair nonzero), multiplied in a second walk over A; null where the block has none.
  const void* b_excess = nullptr;
};

using GemmUkernelFn = void (*)(const GemmUkernelArgs& args);

// One weight's excess over its clipped value (gemm/pair_clipping.h): row k of B, column `column`
// of its panel.
struct ClippedWeight {
  std::uint32_t k = 0;
  std::uint16_t column = 0;
  std::int16_t excess = 0;
};

// The products of one call's clipped weights with packed A (GemmUkernel::clipped_products): each
// excess times its k's byte in every row of the call's `panels` packed panels, summed per row and
// column into `corrections`, what GemmUkernelArgs::corrections points at: rows x nr_stride int32,
// clipped_products_rows(panels, mr) rows, every one written.
struct ClippedProductsArgs {
  const std::uint8_t* a_packed = nullptr;  // the call's first panel at its K block
  std::size_t a_panel_bytes = 0;
  std::size_t panels = 0, mr = 0, nr_stride = 0;
  std::size_t k0 = 0;  // the K block's first k (the excesses count k from B's first row)
  const ClippedWeight* clipped = nullptr;
  std::size_t clipped_count = 0;
  // Scratch: nr_stride columns of panels * round_up(mr, 8) int32, each panel's rows in whole
  // vectors of 8 of its own.
  std::int32_t* by_column = nullptr;
  std::int32_t* corrections = nullptr;
};
using ClippedProductsFn = void (*)(const ClippedProductsArgs& args);

// The rows ClippedProductsArgs::corrections holds: the call's, and the last panel's up to a whole
// vector of 8.
constexpr std::size_t clipped_products_rows(std::size_t panels, std::size_t mr) {
  return (panels - 1) * mr + (mr + 7) / 8 * 8;
}

// The loop of every tile template's entry point: panel(args) for each of the call's M panels
// (GemmUkernelArgs::panels), with `rows`, A, the row terms and C moved to that panel.
// a_group_bytes: the bytes of one row's k group in a packed A panel (kr * element size).
template <class Panel>
__attribute__((always_inline)) inline void for_each_m_panel(const GemmUkernelArgs& args_in, std::size_t mr,
                                                            std::size_t a_group_bytes, Panel&& panel) {
  // A local copy: C is written through byte pointers, which may alias anything, so fields read
  // through the caller's reference would be reloaded after every store of the epilogue.
  GemmUkernelArgs args = args_in;
  const std::size_t last_rows = args.rows;
  for (std::size_t p = args.panels; p != 0; --p) {
    args.rows = p == 1 ? last_rows : mr;
    panel(static_cast<const GemmUkernelArgs&>(args));
    if (args.a_packed != nullptr) {
      args.a_packed = static_cast<const std::uint8_t*>(args.a_packed) + args.k_groups * mr * a_group_bytes;
    } else {
      args.a_rows += mr;
    }
    if (args.row_terms != nullptr) args.row_terms += mr;
    if (args.corrections != nullptr) args.corrections += mr * args.corrections_stride;
    const std::size_t out_bytes = args.output == UkernelOutput::s32 ? sizeof(std::int32_t) : 1;
    args.c = static_cast<std::uint8_t*>(args.c) + mr * args.ldc * out_bytes;
  }
}

struct GemmUkernel {
  Isa isa;
  int mr, nr;
  int kr;            // k values per group (the packing group)
  int nr_stride;     // columns per packed B panel row: nr rounded up to the vector width
  PackedA a_format;
  PackedB b_format;
  bool a_in_place;   // can read A rows in place (pack_a = 0)
  GemmUkernelFn fn;
  const char* name;  // XNNPACK-style, e.g. "qu8-gemm-8x16c4-avx512vnni"
  // The entry that reads segmented in-place A in one call (GemmUkernelArgs::a_segments), or null:
  // the driver then gives `fn` one segment per K block and carries the sums in `partial`.
  GemmUkernelFn fn_segments = nullptr;
  // The epilogue of a kFp32Centred plan takes the accumulators less each channel's origin X0: the
  // driver starts them from column terms less X0 where that is exact, and otherwise gives the
  // microkernel no centred plan (gemm_driver.cc).
  bool folds_centred_origin = false;
  // The entry that reads in-place A of one K block (first and last) with a weight zero point and
  // sums each row's bytes itself, as it goes (GemmUkernelArgs::row_terms ignored), or null: the
  // driver then sums the rows in a pass of their own before the tiles.
  GemmUkernelFn fn_row_sums = nullptr;
  // The family multiplies bytes with saturating pair sums (vpmaddubsw): its B panels hold the
  // weights with every pair that could saturate clipped, and the driver gives each call what was
  // clipped away (GemmUkernelArgs::corrections or b_excess; gemm/pair_clipping.h).
  bool clips_pairs = false;
  // Such a family's products of clipped weights with packed A in vectors, or null: the driver then
  // multiplies each excess by each row's byte itself.
  ClippedProductsFn clipped_products = nullptr;
};

// Where a packed B panel's weights begin: after its col_term and col_zb, one int32 per column each.
inline std::size_t gemm_b_panel_weights_offset(const GemmUkernel& uk) {
  return 2 * sizeof(std::int32_t) * static_cast<std::size_t>(uk.nr_stride);
}

// Bytes of one packed B panel (col_term + col_zb + weights), rounded up to 64 for alignment.
inline std::size_t gemm_b_panel_bytes(const GemmUkernel& uk, std::size_t k_groups_total) {
  const std::size_t bytes = gemm_b_panel_weights_offset(uk) + k_groups_total *
                                                                  static_cast<std::size_t>(uk.nr_stride * uk.kr) *
                                                                  packed_b_elem_bytes(uk.b_format);
  return (bytes + 63) / 64 * 64;
}

// A family's throughput ceiling on one core (gemm_dot_peak_loop in gemm_ukernel_template.h).
struct GemmDotPeak {
  Isa isa;
  const char* instruction;                          // e.g. "vpdpbusd zmm"
  std::uint64_t (*loop)(std::size_t iterations);    // returns the operations done
};
// The peak loops compiled into this build (the vector families of dispatch/isa_table.cc).
std::span<const GemmDotPeak> gemm_dot_peak_registry();

// Every microkernel compiled into this build (runnable here or not), in the order of the
// instruction-set table (dispatch/isa_table.h), then tile order.
std::span<const GemmUkernel> gemm_ukernel_registry();
// The microkernel for (isa, mr x nr), or null.
const GemmUkernel* find_gemm_ukernel(Isa isa, int mr, int nr);

}  // namespace qtune::detail
