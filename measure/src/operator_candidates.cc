// The built-in operators as candidates: the prepared operator for one configuration, run on the
// workload's seeded inputs, checked against the reference output computed once per workload.
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <random>

#include "operator_candidates.h"
#include "qtune/libraries/library_ops.h"
#include "qtune/measure/placed_bytes.h"
#include "qtune/search_space/operator_spaces.h"
#include "reference_data.h"

namespace qtune::detail {
namespace {

// Any prepared operator: `run_into` writes the operator's output for an input. Each candidate is
// a new placement in memory (qtune/measure/placed_bytes.h): its own copy of the input and its
// output at random offsets, and behind the spacer its maker allocated before preparing the
// operator, the operator's packed weights and scratch. So the measurements of one configuration
// in one worker process see different placements, as `qtune run` does, instead of the same
// addresses every time.
class PreparedCandidate final : public Candidate {
 public:
  using RunInto = std::function<void(const std::uint8_t* input, std::uint8_t* output)>;

  PreparedCandidate(std::shared_ptr<const ReferenceData> data, std::vector<std::uint8_t> spacer, RunInto run_into,
                    double gops, DType out_type, std::mt19937_64& placement)
      : data_(std::move(data)), spacer_(std::move(spacer)), run_into_(std::move(run_into)), gops_(gops),
        out_type_(out_type), input_(data_->input, placement), output_(data_->expected.size(), placement) {}

  void run() override { run_into_(input_.data(), output_.data()); }

  std::string check() override {
    // A recognisable pattern first, so that elements the kernel never writes are caught too.
    std::memset(output_.data(), 0xA5, output_.size());
    run();
    return compare_outputs(output_.data(), data_->expected.data(), data_->output_elements, out_type_,
                           data_->output_columns);
  }

  double gops() const override { return gops_; }

 private:
  std::shared_ptr<const ReferenceData> data_;
  std::vector<std::uint8_t> spacer_;
  RunInto run_into_;
  double gops_;
  DType out_type_;
  PlacedBytes input_, output_;
};

// A placement per candidate, seeded from the clock and a count of the candidates made (callable
// from any thread): timings differ from run to run anyway, and a fixed sequence would give every
// new worker process the same first placement.
std::mt19937_64 new_placement() {
  static std::atomic<std::uint64_t> made{0};
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return std::mt19937_64(now ^ (made.fetch_add(1) * 0x9E3779B97F4A7C15ull));
}

// prepare() of an operator throws std::invalid_argument for a configuration it cannot run.
template <typename Prepare>
auto prepare_or_invalid_config(const char* what, Prepare&& prepare) {
  try {
    return prepare();
  } catch (const std::invalid_argument& e) {
    throw CandidateError(ErrorKind::invalid_config, std::string(what).append(" rejected the configuration: ").append(e.what()));
  }
}

// A prepared GEMM (qtune's GemmOp or a library's) on the workload's dense A and C.
template <typename Op>
PreparedCandidate::RunInto gemm_run_into(std::shared_ptr<Op> op, const ReferenceData& d) {
  return [op, k = static_cast<std::size_t>(d.gemm.k), n = static_cast<std::size_t>(d.gemm.n)](
             const std::uint8_t* input, std::uint8_t* output) { op->run(input, k, output, n); };
}

std::unique_ptr<Candidate> make_gemm_candidate(const Workload& workload, const Config& config, std::uint64_t seed) {
  auto data = reference_data(workload, seed);
  std::mt19937_64 placement = new_placement();
  std::vector<std::uint8_t> spacer = placement_spacer(placement);  // before the operator allocates
  const auto ldb = static_cast<std::size_t>(workload.n);
  PreparedCandidate::RunInto run_into;
  if (const auto library = to_library_config(config)) {
    // The library's primitive is created here, once, as the runtime creates it per layer.
    std::shared_ptr<const libraries::LibraryGemm> op = prepare_or_invalid_config("the library layer", [&] {
      return libraries::prepare_library_gemm(library->library, data->gemm, data->weights.data(), ldb,
                                             data->gemm.has_bias ? data->bias.data() : nullptr, library->threads);
    });
    run_into = gemm_run_into(op, *data);
  } else {
    const GemmConfig kernel_config = to_gemm_config(config);
    auto op = std::make_shared<GemmOp>(prepare_or_invalid_config("GemmOp::prepare", [&] {
      return GemmOp::prepare(data->gemm, kernel_config, data->weights.data(), ldb, data->bias.data());
    }));
    run_into = gemm_run_into(op, *data);
  }
  const DType out_type = data->gemm.out_type;
  return std::make_unique<PreparedCandidate>(std::move(data), std::move(spacer), std::move(run_into), workload.gops(),
                                             out_type, placement);
}

std::unique_ptr<Candidate> make_conv2d_candidate(const Workload& workload, const Config& config, std::uint64_t seed) {
  auto data = reference_data(workload, seed);
  std::mt19937_64 placement = new_placement();
  std::vector<std::uint8_t> spacer = placement_spacer(placement);  // before the operator allocates
  const DType out_type = data->conv.out_type;
  PreparedCandidate::RunInto run_into;
  if (const auto library = to_library_config(config)) {
    // The library's primitive is created here, once, as the runtime creates it per layer.
    std::shared_ptr<const libraries::LibraryConv2d> op = prepare_or_invalid_config("the library layer", [&] {
      return libraries::prepare_library_conv2d(library->library, data->conv, data->weights.data(),
                                               data->conv.has_bias ? data->bias.data() : nullptr, library->threads);
    });
    run_into = [op](const std::uint8_t* input, std::uint8_t* output) { op->run(input, output); };
  } else {
    const Conv2dConfig kernel_config = to_conv2d_config(config);
    auto op = std::make_shared<Conv2dOp>(prepare_or_invalid_config("Conv2dOp::prepare", [&] {
      return Conv2dOp::prepare(data->conv, kernel_config, data->weights.data(), data->bias.data());
    }));
    run_into = [op](const std::uint8_t* input, std::uint8_t* output) { op->run(input, output); };
  }
  return std::make_unique<PreparedCandidate>(std::move(data), std::move(spacer), std::move(run_into), workload.gops(),
                                             out_type, placement);
}

}  // namespace

std::unique_ptr<Candidate> make_operator_candidate(const Workload& workload, const Config& config,
                                                   std::uint64_t seed) {
  return workload.op == OpKind::gemm ? make_gemm_candidate(workload, config, seed)
                                     : make_conv2d_candidate(workload, config, seed);
}

}  // namespace qtune::detail
