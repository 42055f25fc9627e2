// How one task of the GEMM engine (an mc x nc block of C, gemm_driver.cc) runs, decided once when
// the engine is made: where its microkernels read A, when the row terms of a weight zero point are
// made, which microkernel entry runs the tiles and how their results reach C. A task then runs the
// steps its plan names instead of re-deriving them from the config, the ukernel and the source.
// What only a task can know stays with the task: whether its source gives the row terms
// (GemmASource::row_terms, prepare_task), and which N block it runs (the last may be narrower).
#pragma once

#include <cstddef>

#include "gemm/gemm_ukernel.h"
#include "qtune/kernels/gemm.h"

namespace qtune::detail {

struct GemmTaskPlan {
  // Where the microkernels read A.
  enum class APanels : unsigned char {
    packed,              // gathered (dense rows or an indirection table) and packed per K block
    rows_in_place,       // dense rows in place: one table of row pointers, moved k0 on per K block
    segments_in_place,   // segmented rows in place: one K block per segment (GemmUkernel::fn)
    segments_in_kernel,  // segmented rows in place: every segment in one call (fn_segments), so
                         // the accumulators never leave the registers
  };
  // When the row terms of a weight zero point (GemmUkernelArgs::row_terms) are made.
  enum class RowTerms : unsigned char {
    none,             // every weight zero point is 0
    while_packing,    // the packer subtracts each row's sum; scaled after the last K block
    before_tiles,     // in place over several K blocks: a row's term needs every block's bytes, so
                      // one pass over the task's rows comes first
    ahead_of_groups,  // in place in one K block: a group of panels' terms right before the group's
                      // first tile, so that its rows come into L1 once for both (summed up front
                      // for the whole of M they were read from L2 twice); or in the tiles
                      // themselves where tile_sums_rows
  };
  // How the tiles' results reach C.
  enum class Epilogue : unsigned char {
    fused,     // the microkernels write C: int32, or requantized while the tile is in registers
    separate,  // int32 into the task's buffer, then the requantize kernel over the task's block
  };

  APanels a_panels = APanels::packed;
  RowTerms row_terms = RowTerms::none;
  Epilogue epilogue = Epilogue::fused;
  // The task's K loop: k_blocks blocks of block_groups k groups (the last may have fewer); one
  // where the microkernel walks the segments. K blocks after the first accumulate through the
  // task's int32 partial buffer.
  std::size_t k_blocks = 1, block_groups = 0;
  bool accumulates_partial() const { return k_blocks > 1; }
  // Groups of M panels of about 8 KiB of A (at least 16 rows, the vector row-sum kernels' block):
  // with the row terms ahead of groups, a group's terms are made right before its first tile and
  // are still in L1 for its tiles. Where one K block covers K, up to a group's panels are one
  // microkernel call (GemmUkernelArgs::panels).
  std::size_t group_panels = 1, panels_per_call = 1;
  // Dense rows in place in one K block with a weight zero point: whether the microkernel sums each
  // row as it reads it (GemmUkernel::fn_row_sums) instead of the row terms ahead of groups, in a
  // task of a whole N block and in one of the last N block, which may have fewer column panels
  // (tile_row_sums_pay). Not where the source gives the row terms.
  bool tile_sums_rows = false, last_block_tile_sums_rows = false;
  // The microkernel entry of the tiles: fn, or fn_segments where the microkernel walks the
  // segments (a task whose tiles sum the rows runs fn_row_sums instead).
  GemmUkernelFn kernel = nullptr;
};

// The plan of the tasks of an engine that runs `problem` with `config` on `uk`, in K blocks of
// kc_groups k groups and N blocks of nc columns, for A given as segmented rows
// (GemmASource::dense_segments) or not.
GemmTaskPlan plan_gemm_task(const GemmUkernel& uk, const GemmProblem& problem, const GemmConfig& config,
                            std::size_t kc_groups, std::size_t nc, bool segmented);

}  // namespace qtune::detail
