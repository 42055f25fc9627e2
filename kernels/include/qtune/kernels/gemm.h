// Quantized GEMM: the problem (what is computed), the configuration (how: the tuning knobs), and
// a prepared operator that packs the weights once and runs many times.
//
//   C[m][n] = sum_k (A[m][k] - za) * (B[k][n] - zb[n]) + bias[n]
//
// A (M x K) holds u8 or s8 activations with one zero point; B (K x N) int8 weights with a zero
// point per tensor or per output channel; bias int32 per output channel. The output is the int32
// accumulator (out_type s32, wrapping arithmetic) or that value requantized to u8/s8 with
// problem.requant (per tensor or per channel, any RoundingMode).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qtune/kernels/isa.h"
#include "qtune/kernels/quant.h"

namespace qtune {

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  DType a_type = DType::u8;                  // u8 or s8
  std::int32_t a_zero_point = 0;             // within the range of a_type
  std::vector<std::int32_t> b_zero_points{0};  // size 1 (per tensor) or n, each in [-128, 127]
  bool has_bias = true;
  DType out_type = DType::s8;                // s32, u8 or s8
  RequantParams requant;                     // used unless out_type == s32; channels() 1 or n

  bool b_zero_point_nonzero() const;
  // Throws std::invalid_argument naming the offending field (sizes, ranges, types, requant).
  void validate() const;
};

// The knobs of one GEMM variant. Which combinations are valid is decided by
// gemm_check_config(); search_space/ describes the same constraints declaratively.
struct GemmConfig {
  Isa isa = Isa::scalar;
  int mr = 4, nr = 4;           // register tile (rows x columns of C held in registers)
  // Cache blocking of K, M, N; 0 means "whole dimension". kc is a multiple of the microkernel's
  // k group; mc and nc are block sizes in rows / columns that the driver rounds down to whole
  // tiles (at least one), so one value means the same cache footprint for every tile.
  int kc = 0, mc = 0, nc = 0;
  bool pack_a = true;           // pack/interleave A per call, or read it in place
  bool fuse_requant = true;     // requantize in the microkernel epilogue, or in a separate pass
  int threads = 1;              // worker threads for this operator (1 or more)
};

// A microkernel compiled into this build (the build may hold kernels the CPU cannot run).
struct GemmMicrokernelInfo {
  Isa isa;
  int mr, nr;
  int kr;            // k values consumed together (the packing group): 1, 2, 4, 8 or 64
  std::string name;  // XNNPACK-style, e.g. "qu8-gemm-8x16c4-avx512vnni"
};

// Every microkernel compiled in, runnable or not; filter with cpu_features().usable(info.isa).
const std::vector<GemmMicrokernelInfo>& gemm_microkernels();

// The throughput ceiling of a family's dot-product instruction on one core, for "share of peak"
// figures measured in the same run as the kernels: a register-only loop of independent dot
// products (no loads, stores or epilogue). Families that have one, compiled in and usable here:
struct GemmPeakLoop {
  Isa isa;
  std::string instruction;  // e.g. "vpdpbusd zmm"
};
std::vector<GemmPeakLoop> gemm_peak_loops();
// Runs `iterations` rounds of the loop of `isa` and returns the int8 operations done (2 per
// multiply-accumulate): time it to get the peak GOP/s. std::invalid_argument when `isa` has no
// peak loop here (see gemm_peak_loops()).
std::uint64_t run_gemm_peak_loop(Isa isa, std::size_t iterations);

// Empty when `config` can run `problem` on this CPU, else a message naming the problem
// ("isa avx512vnni is not usable on this CPU", "no 8x5 tile for avx2", "kc must be a multiple of 4").
std::string gemm_check_config(const GemmProblem& problem, const GemmConfig& config);

// A heuristic configuration that is good for the shape on this CPU (never the scalar path when a
// vector path is usable): the runtime's fallback and the tuner's "untuned default".
GemmConfig gemm_default_config(const GemmProblem& problem);

// Instruction sets whose kernels multiply bytes with saturating pair sums (Isa::avx2ubsw,
// Isa::avx512ubsw): exact for every weight, through weight pairs clipped when the layer is prepared
// and the products clipped away added back at every run (one by one where few pairs clip, as a
// second pass over A where many do), so their speed depends on the weights: close to the
// instruction's peak on a trained network's (about two clipped pairs per output channel), below the
// widening families on uniform draws (a quarter of all pairs clip).
bool isa_clips_weight_pairs(Isa isa);
// The family of `isa`'s registers that clips weight pairs (avx2 -> avx2ubsw, avx512bw ->
// avx512ubsw), or nullopt where there is none. No default takes such a family, so the tuner
// measures it beside a default of `isa` (qtune::weight_dependent_alternatives).
std::optional<Isa> pair_clipping_twin(Isa isa);
// The share of the pairs of weights (k, k + 1), k even, of a K x N weight matrix (row stride ldb)
// that such a family clips.
double clipped_weight_pair_share(const std::int8_t* b, std::size_t k, std::size_t n, std::size_t ldb);
// Trained networks' weights clip at most about a tenth of their pairs (at the smallest K, 16), uniform
// draws a quarter: past this share the weights are not what the tuner timed these families on, and
// the runtime runs the layer's default instead of a tuned configuration of them.
inline constexpr double kMaxClippedWeightPairShare = 0.2;

class GemmOp {
 public:
  // Packs B (K x N int8, row stride ldb >= n) and bias (n values; null iff !has_bias) for
  // `config`. Throws std::invalid_argument if the problem is invalid or the config cannot run it.
  static GemmOp prepare(const GemmProblem& problem, const GemmConfig& config, const std::int8_t* b,
                        std::size_t ldb, const std::int32_t* bias);

  // A: M rows of K elements (u8 or s8) with row stride lda >= k; C: M rows of N elements of
  // out_type with row stride ldc >= n. Thread-safe: concurrent calls on one GemmOp are allowed.
  void run(const void* a, std::size_t lda, void* c, std::size_t ldc) const;

  const GemmProblem& problem() const;
  const GemmConfig& config() const;
  std::size_t packed_weight_bytes() const;

  GemmOp(GemmOp&&) noexcept;
  GemmOp& operator=(GemmOp&&) noexcept;
  ~GemmOp();

  struct Impl;
 private:
  explicit GemmOp(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The plain scalar definition every variant must match bit for bit.
void gemm_reference(const GemmProblem& problem, const void* a, std::size_t lda, const std::int8_t* b,
                    std::size_t ldb, const std::int32_t* bias, void* c, std::size_t ldc);

}  // namespace qtune
