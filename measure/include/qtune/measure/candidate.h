// A candidate is one (workload, configuration) made ready to run: inputs drawn from the seed,
// weights packed, output buffer allocated. The measurer checks it once against the reference
// and then times run().
//
// The layers (gemm, conv2d) are what a Workload describes. Operators defined above measure register
// a factory with register_operator(): the executor's blocks of layers (an inverted-residual block,
// block_workload.h) and tests' deliberately faulty operators. A Workload cannot describe those, so
// they exist only as keys ("inverted_residual:...", "fault:n=64"), found by the key's prefix where
// keys arrive as text (measure_keys_in_process, the isolated worker).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "qtune/kernels/quant.h"
#include "qtune/measure/result.h"
#include "qtune/search_space/knob_space.h"
#include "qtune/search_space/workload.h"

namespace qtune {

class Candidate {
 public:
  virtual ~Candidate() = default;
  virtual void run() = 0;            // one execution of the kernel: what is timed
  virtual std::string check() = 0;   // runs once and compares with the reference bit for bit:
                                     // "" when equal, else the first mismatch
  virtual double gops() const = 0;   // 2 * MACs / 1e9 of one run
};

// Thrown while making a candidate: the kind says which error result it becomes.
struct CandidateError : std::runtime_error {
  CandidateError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind(kind) {}
  ErrorKind kind;
};

// A registered operator's factory parses its own keys: the text boundary is the only place it is called.
using CandidateFactory = std::function<std::unique_ptr<Candidate>(
    const std::string& workload_key, const std::string& config_key, std::uint64_t seed)>;

// Makes workload keys "<op>:..." resolve to `factory` (in this process and in isolated
// workers started afterwards). Built-in operators cannot be replaced.
void register_operator(const std::string& op, CandidateFactory factory);

// Throws CandidateError: invalid_workload when the workload does not validate, invalid_config when
// `config` is not a point of the workload's space on this CPU, runtime_error.
std::unique_ptr<Candidate> make_candidate(const Workload& workload, const Config& config, std::uint64_t seed);

// Bit-exact comparison of `count` elements of `type` laid out as rows of `columns`: "" when
// equal, else "first mismatch at index i (row r, column c): got X, expected Y; N of M differ".
std::string compare_outputs(const void* got, const void* expected, std::size_t count, DType type,
                            std::size_t columns);

}  // namespace qtune
