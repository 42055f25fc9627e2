// The rows of the instruction-set table (isa_table.h). A row exists when kernels/CMakeLists.txt
// compiled the set's folder (QTUNE_HAVE_<ISA>); its kernel lists are defined in that folder, each
// list in the translation unit of its family, compiled with the set's flags.
#include "dispatch/isa_table.h"

#include <vector>

#include "requantize/requantize_internal.h"

namespace qtune::detail {

std::span<const GemmUkernel> gemm_ukernels_scalar();  // gemm/gemm_scalar.cc
std::span<const DwKernel> dw_kernels_scalar();        // dwconv/dwconv_scalar.cc

#if defined(QTUNE_HAVE_AVX2)
std::span<const GemmUkernel> gemm_ukernels_avx2();  // x86/avx2/
std::span<const DwKernel> dw_kernels_avx2();
GemmDotPeak gemm_dot_peak_avx2();
void requantize_rows_avx2(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                          std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                          std::size_t out_stride);
#endif
#if defined(QTUNE_HAVE_AVX512BW)
std::span<const GemmUkernel> gemm_ukernels_avx512bw();  // x86/avx512bw/
std::span<const DwKernel> dw_kernels_avx512bw();
GemmDotPeak gemm_dot_peak_avx512bw();
void requantize_rows_avx512bw(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                              std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                              std::size_t out_stride);
#endif
#if defined(QTUNE_HAVE_AVX512UBSW)
std::span<const GemmUkernel> gemm_ukernels_avx512ubsw();  // x86/avx512ubsw/
GemmDotPeak gemm_dot_peak_avx512ubsw();
#endif
#if defined(QTUNE_HAVE_AVX2UBSW)
std::span<const GemmUkernel> gemm_ukernels_avx2ubsw();  // x86/avx2ubsw/
GemmDotPeak gemm_dot_peak_avx2ubsw();
#endif
#if defined(QTUNE_HAVE_AVXVNNI)
std::span<const GemmUkernel> gemm_ukernels_avxvnni();  // x86/avxvnni/
GemmDotPeak gemm_dot_peak_avxvnni();
#endif
#if defined(QTUNE_HAVE_AMX)
std::span<const GemmUkernel> gemm_ukernels_amx();  // x86/amx/
#endif
#if defined(QTUNE_HAVE_AVX512VNNI)
std::span<const GemmUkernel> gemm_ukernels_avx512vnni();  // x86/avx512vnni/
std::span<const DwKernel> dw_kernels_avx512vnni();
GemmDotPeak gemm_dot_peak_avx512vnni();
void requantize_rows_avx512(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                            std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                            std::size_t out_stride);
#endif
#if defined(QTUNE_HAVE_NEON)
std::span<const GemmUkernel> gemm_ukernels_neon();  // arm/neon/
std::span<const DwKernel> dw_kernels_neon();
void requantize_rows_neon(int unroll, const RequantConstants& plan, DType out_type, const std::int32_t* acc,
                          std::size_t rows, std::size_t cols, std::size_t acc_stride, void* out,
                          std::size_t out_stride);
#endif
#if defined(QTUNE_HAVE_DOTPROD)
std::span<const GemmUkernel> gemm_ukernels_dotprod();  // arm/dotprod/
#endif
#if defined(QTUNE_HAVE_I8MM)
std::span<const GemmUkernel> gemm_ukernels_i8mm();  // arm/i8mm/
#endif

namespace {

// Default tiles, measured on this project's workloads (the tiles that keep the most accumulators
// in registers without spilling; see each family's file for its register budget).
// AMX: the 2x2 tile block loads each A and B tile once for two dot products. [[maybe_unused]]: a
// build without the family's instruction set (the fuzz preset, another architecture) has no row
// that reads its tiles.
[[maybe_unused]] constexpr GemmTile kAmxTiles[] = {{32, 32}, {16, 32}, {32, 16}, {16, 16}};
// AVX-512: the five-row tiles pad the least rows of 7x7, 17x17 and 35x35 images and their
// five-vector tile no column of N = 80 * k (InceptionV3's 73x73x64 -> 80, where 8x48 computes a
// fifth more columns than it keeps: docs/measurements.md, "Default GEMM configuration"); 32-trial
// tunings missed them where the default did not start there. 12x24 comes last: ties on padding go
// to the full-vector tiles before it, and it wins where only its half-width last vector avoids
// padding (N = 24, 72, 120).
[[maybe_unused]] constexpr GemmTile kAvx512Tiles[] = {{6, 64}, {8, 48}, {12, 32}, {4, 64},
                                                      {5, 80}, {5, 64}, {12, 24}};
[[maybe_unused]] constexpr GemmTile kYmmTiles[] = {{6, 16}};
[[maybe_unused]] constexpr GemmTile kArmDotTiles[] = {{8, 12}};
// dotprod: 4x16 first (ties go to it), as XNNPACK's aarch64 neondot kernels; llvm-mca predicts
// its epilogues shorter than 8x12's, whose rows of 12 take more narrowing and stores. 8x12 where it
// pads less (N = 24, 40, ...).
[[maybe_unused]] constexpr GemmTile kDotprodTiles[] = {{4, 16}, {8, 12}};
// neon: the c8 tile, whose k-loop is loads, smull and sadalp only (arm/neon/gemm_neon.cc); the c2
// tiles spend a vector instruction per row broadcasting A (docs/arm-static-analysis.md).
[[maybe_unused]] constexpr GemmTile kNeonTiles[] = {{2, 8}};
constexpr GemmTile kEightByEight[] = {{8, 8}};
// Depthwise: output pixels per step share each weight vector load (and a kernel row's inputs,
// tile_rows); 2 x 16 (AVX-512) or 2 x 8 (AVX2) channels keep 8 to 16 accumulators, the tiles that
// measured best on MobileNetV2's depthwise layers. AVX-512: 8 pixels (16 accumulators, 10 input
// vectors of a kernel row) beat 4 on every MobileNetV2 depthwise layer, each weight vector load
// serving twice the pixels; the vpdpbusd forms of the 64-channel tile (4 pixels: their 4
// accumulators per pixel allow no more) are faster still where they apply: rowdot on every
// MobileNetV2 depthwise layer, 112x112x32 included (in pixel pairs) and 56x56x144 despite its
// 16-channel tail in the general form; channel tiles wider than the layer otherwise leave lanes
// idle. Rows of 7 * 2^k pixels (every
// MobileNetV2 depthwise layer) take 7 pixels: 8 and 4 recompute pixels of the 7, 14 and 28 wide
// rows, and 7 is as fast as 8 on the 56 and 112 wide ones (figures: docs/measurements.md,
// "Depthwise convolution").
[[maybe_unused]] constexpr DwDefaultTile kAvx512DwTiles[] = {
    {64, 4, true}, {32, 7, false, true}, {32, 8, false}, {16, 7, false, true}, {16, 8, false}};
// AVX-512 BW: the VNNI family's tiles but the dot4 form, which needs vpdpbusd.
[[maybe_unused]] constexpr DwDefaultTile kAvx512BwDwTiles[] = {
    {32, 7, false, true}, {32, 8, false}, {16, 7, false, true}, {16, 8, false}};
[[maybe_unused]] constexpr DwDefaultTile kAvx2DwTiles[] = {{16, 4, false}};
constexpr DwDefaultTile kScalarDwTiles[] = {{8, 2, false}};
// NEON: 2 vectors of 4 channels x 7 pixels on rows of 7 * 2^k pixels (as the AVX-512 rule),
// else x 4 pixels. llvm-mca puts both tap loops at smlal's peak on Neoverse N1 and N2 without
// spills, where 4 vectors x 4 pixels spill (docs/arm-static-analysis.md). Not measured on a board:
// qemu timings mean nothing.
[[maybe_unused]] constexpr DwDefaultTile kNeonDwTiles[] = {{8, 7, false, true}, {8, 4, false}};

std::vector<IsaRow> rows() {
  std::vector<IsaRow> out;
#if defined(QTUNE_HAVE_AMX) && defined(QTUNE_HAVE_AVX512VNNI)
  {
    // Usable only where the CPU has AMX-INT8 and the OS granted tile data (or tests run it over the
    // model); on large GEMMs oneDNN runs well above the VNNI rate there (docs/measurements.md,
    // "Default GEMM configuration").
    IsaRow& row = out.emplace_back(Isa::amx);
    row.gemm = gemm_ukernels_amx;
    row.float_forms = FloatForms::directed_rounding;
    row.separate_requantize = requantize_rows_avx512;
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kAmxTiles;
    row.narrow_n = 16;
    row.narrow_tile = {32, 16};
    // Below K = 128 or N = 96, and for M = 1, AVX-512 VNNI's tiles were faster on every ResNet-50
    // and MobileNetV2 layer measured, up to 15x (docs/measurements.md, "Default GEMM configuration").
    row.default_min_m = 2;
    row.default_min_n = 96;
    row.default_min_k = 128;
  }
#endif
#if defined(QTUNE_HAVE_AVX512VNNI)
  {
    IsaRow& row = out.emplace_back(Isa::avx512vnni);
    row.gemm = gemm_ukernels_avx512vnni;
    row.float_forms = FloatForms::directed_rounding;
    row.dwconv = dw_kernels_avx512vnni;
    row.dot_peak = gemm_dot_peak_avx512vnni;
    row.a_row_sums = a_row_sums_avx512vnni;
#if defined(QTUNE_HAVE_AVX512BW)
    row.a_dense_row_sums = a_dense_row_sums_avx512;  // compiled with BW's flags; VNNI CPUs have BW
#endif
    row.requantize = requantize_rows_avx512;
    row.separate_requantize = requantize_rows_avx512;
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kAvx512Tiles;
    row.narrow_n = 16;
    row.narrow_tile = {8, 16};
    row.single_row_tile = {1, 64};
    row.dw_tiles = kAvx512DwTiles;
  }
#endif
#if defined(QTUNE_HAVE_AVXVNNI)
  {
    IsaRow& row = out.emplace_back(Isa::avxvnni);
    row.gemm = gemm_ukernels_avxvnni;
#if defined(QTUNE_HAVE_AVX2)
    row.a_row_sums = a_row_sums_avx2;  // AVX-VNNI CPUs have AVX2
    row.a_dense_row_sums = a_dense_row_sums_avx2;
#endif
    row.float_forms = FloatForms::centred_when_folded;
    row.dot_peak = gemm_dot_peak_avxvnni;
    row.separate_requantize = requantize_rows_avx2;  // AVX-VNNI CPUs have AVX2
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kYmmTiles;
  }
#endif
#if defined(QTUNE_HAVE_AVX512BW) && defined(QTUNE_HAVE_AVX2)
  {
    // After AVX-VNNI: a ymm vpdpbusd is 32 MACs in one instruction, vpmaddwd on zmm 32 in two. The
    // tiles and depthwise tiles are the VNNI family's (the same registers); A panels are packed
    // by AVX2's packer (every AVX-512 BW CPU has AVX2) even where QTUNE_ISAS leaves avx2 out.
    IsaRow& row = out.emplace_back(Isa::avx512bw);
    row.gemm = gemm_ukernels_avx512bw;
    row.a_row_sums = a_row_sums_avx512bw;
    row.a_dense_row_sums = a_dense_row_sums_avx512;
    row.float_forms = FloatForms::directed_rounding;
    row.dwconv = dw_kernels_avx512bw;
    row.dot_peak = gemm_dot_peak_avx512bw;
    row.pack_a_panel = pack_a_panel_avx2;
    row.requantize = requantize_rows_avx512bw;
    row.separate_requantize = requantize_rows_avx512bw;
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kAvx512Tiles;
    row.narrow_n = 16;
    row.narrow_tile = {8, 16};
    row.single_row_tile = {1, 64};
    row.dw_tiles = kAvx512BwDwTiles;
  }
#endif
#if defined(QTUNE_HAVE_AVX512UBSW) && defined(QTUNE_HAVE_AVX512BW) && defined(QTUNE_HAVE_AVX2)
  {
    // After the widening family it complements: exact through clipped weight pairs, its speed
    // depends on the weights (few clipped pairs in trained networks, a quarter of all pairs in
    // uniform draws), which no default can see; the tuner measures it on the layer's weights. GEMM
    // only; depthwise layers run AVX-512 BW's kernels.
    IsaRow& row = out.emplace_back(Isa::avx512ubsw);
    row.gemm = gemm_ukernels_avx512ubsw;
    row.a_row_sums = a_row_sums_avx512bw;
    row.a_dense_row_sums = a_dense_row_sums_avx512;
    row.float_forms = FloatForms::directed_rounding;
    row.dot_peak = gemm_dot_peak_avx512ubsw;
    row.pack_a_panel = pack_a_panel_avx2;
    row.separate_requantize = requantize_rows_avx512bw;
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kAvx512Tiles;
    row.narrow_n = 16;
    row.narrow_tile = {8, 16};
    row.single_row_tile = {1, 64};
  }
#endif
#if defined(QTUNE_HAVE_AVX2)
  {
    IsaRow& row = out.emplace_back(Isa::avx2);
    row.gemm = gemm_ukernels_avx2;
    row.a_row_sums = a_row_sums_avx2;
    row.a_dense_row_sums = a_dense_row_sums_avx2;
    row.float_forms = FloatForms::centred_when_folded;
    row.dwconv = dw_kernels_avx2;
    row.dot_peak = gemm_dot_peak_avx2;
    row.pack_a_panel = pack_a_panel_avx2;
    row.requantize = requantize_rows_avx2;
    row.separate_requantize = requantize_rows_avx2;
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kYmmTiles;
    row.single_row_tile = {1, 32};
    row.dw_tiles = kAvx2DwTiles;
  }
#endif
#if defined(QTUNE_HAVE_AVX2UBSW) && defined(QTUNE_HAVE_AVX2)
  {
    // After AVX2 for the reason given at avx512ubsw.
    IsaRow& row = out.emplace_back(Isa::avx2ubsw);
    row.gemm = gemm_ukernels_avx2ubsw;
    row.a_row_sums = a_row_sums_avx2;
    row.a_dense_row_sums = a_dense_row_sums_avx2;
    row.float_forms = FloatForms::centred_when_folded;
    row.dot_peak = gemm_dot_peak_avx2ubsw;
    row.pack_a_panel = pack_a_panel_avx2;
    row.separate_requantize = requantize_rows_avx2;
    row.separate_requantize_unroll = 2;
    row.gemm_tiles = kYmmTiles;
  }
#endif
#if defined(QTUNE_HAVE_I8MM)
  {
    IsaRow& row = out.emplace_back(Isa::i8mm);
    row.gemm = gemm_ukernels_i8mm;
    row.separate_requantize = requantize_rows_neon;
    row.separate_requantize_unroll = 4;
    row.gemm_tiles = kArmDotTiles;
  }
#endif
#if defined(QTUNE_HAVE_DOTPROD)
  {
    IsaRow& row = out.emplace_back(Isa::dotprod);
    row.gemm = gemm_ukernels_dotprod;
    row.separate_requantize = requantize_rows_neon;
    row.separate_requantize_unroll = 4;
    row.gemm_tiles = kDotprodTiles;
  }
#endif
#if defined(QTUNE_HAVE_NEON)
  {
    IsaRow& row = out.emplace_back(Isa::neon);
    row.gemm = gemm_ukernels_neon;
    row.dwconv = dw_kernels_neon;
    row.requantize = requantize_rows_neon;
    row.separate_requantize = requantize_rows_neon;
    row.separate_requantize_unroll = 4;
    row.gemm_tiles = kNeonTiles;
    row.dw_tiles = kNeonDwTiles;
  }
#endif
  // Scalar: always there; its requantization is requantize_rows_scalar (no unroll knob).
  {
    IsaRow& row = out.emplace_back(Isa::scalar);
    row.gemm = gemm_ukernels_scalar;
    row.dwconv = dw_kernels_scalar;
    row.gemm_tiles = kEightByEight;
    row.dw_tiles = kScalarDwTiles;
  }
  return out;
}

}  // namespace

std::span<const IsaRow> isa_table() {
  static const std::vector<IsaRow> table = rows();
  return table;
}

const IsaRow* find_isa_row(Isa isa) {
  for (const IsaRow& row : isa_table()) {
    if (row.isa == isa) return &row;
  }
  return nullptr;
}

FloatForms float_forms(Isa isa) {
  const IsaRow* row = find_isa_row(isa);
  return row != nullptr ? row->float_forms : FloatForms::none;
}

}  // namespace qtune::detail

namespace qtune {

std::vector<Isa> compiled_isas() {
  std::vector<Isa> out;
  for (const detail::IsaRow& row : detail::isa_table()) out.push_back(row.isa);
  return out;
}

}  // namespace qtune
