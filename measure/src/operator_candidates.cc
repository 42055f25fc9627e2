// The built-in operators as candidates: the prepared operator for one configuration, run on the
// workload's seeded inputs, checked against the reference output computed once per workload.
#include <cstring>
#include <functional>

#include "operator_candidates.h"
#include "qtune/kernels/cpu_features.h"
#include "qtune/libraries/library_ops.h"
#include "qtune/search_space/operator_spaces.h"
#include "reference_data.h"

namespace qtune::detail {
namespace {

// Any prepared operator: `run_into` writes the operator's output for data's input.
class PreparedCandidate final : public Candidate {
 public:
  using RunInto = std::function<void(const ReferenceData&, std::uint8_t* output)>;

  PreparedCandidate(std::shared_ptr<const ReferenceData> data, RunInto run_into, double gops, DType out_type)
      : data_(std::move(data)), run_into_(std::move(run_into)), gops_(gops), out_type_(out_type),
        output_(data_->expected.size()) {}

  void run() override { run_into_(*data_, output_.data()); }

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
  RunInto run_into_;
  double gops_;
  DType out_type_;
  std::vector<std::uint8_t> output_;
};

Config parse_candidate_config(const Workload& workload, const std::string& config_key) {
  try {
    return space_for(workload, cpu_features()).parse(config_key);
  } catch (const InvalidConfig& e) {
    throw CandidateError(ErrorKind::invalid_config, e.what());
  }
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
PreparedCandidate::RunInto gemm_run_into(std::shared_ptr<Op> op) {
  return [op](const ReferenceData& d, std::uint8_t* output) {
    op->run(d.input.data(), static_cast<std::size_t>(d.gemm.k), output, static_cast<std::size_t>(d.gemm.n));
  };
}

}  // namespace

std::unique_ptr<Candidate> make_gemm_candidate(const Workload& workload, const std::string& config_key,
                                               std::uint64_t seed) {
  const Config parsed = parse_candidate_config(workload, config_key);
  auto data = reference_data(workload, seed);
  const auto ldb = static_cast<std::size_t>(workload.n);
  PreparedCandidate::RunInto run_into;
  if (const auto library = to_library_config(parsed)) {
    // The library's primitive is created here, once, as the runtime creates it per layer.
    std::shared_ptr<const libraries::LibraryGemm> op = prepare_or_invalid_config("the library layer", [&] {
      return libraries::prepare_library_gemm(library->library, data->gemm, data->weights.data(), ldb,
                                             data->gemm.has_bias ? data->bias.data() : nullptr, library->threads);
    });
    run_into = gemm_run_into(op);
  } else {
    const GemmConfig config = to_gemm_config(parsed);
    auto op = std::make_shared<GemmOp>(prepare_or_invalid_config("GemmOp::prepare", [&] {
      return GemmOp::prepare(data->gemm, config, data->weights.data(), ldb, data->bias.data());
    }));
    run_into = gemm_run_into(op);
  }
  const DType out_type = data->gemm.out_type;
  return std::make_unique<PreparedCandidate>(std::move(data), std::move(run_into), workload.gops(), out_type);
}

std::unique_ptr<Candidate> make_conv2d_candidate(const Workload& workload, const std::string& config_key,
                                                 std::uint64_t seed) {
  const Config parsed = parse_candidate_config(workload, config_key);
  auto data = reference_data(workload, seed);
  const DType out_type = data->conv.out_type;
  PreparedCandidate::RunInto run_into;
  if (const auto library = to_library_config(parsed)) {
    // The library's primitive is created here, once, as the runtime creates it per layer.
    std::shared_ptr<const libraries::LibraryConv2d> op = prepare_or_invalid_config("the library layer", [&] {
      return libraries::prepare_library_conv2d(library->library, data->conv, data->weights.data(),
                                               data->conv.has_bias ? data->bias.data() : nullptr, library->threads);
    });
    run_into = [op](const ReferenceData& d, std::uint8_t* output) { op->run(d.input.data(), output); };
  } else {
    const Conv2dConfig config = to_conv2d_config(parsed);
    auto op = std::make_shared<Conv2dOp>(prepare_or_invalid_config("Conv2dOp::prepare", [&] {
      return Conv2dOp::prepare(data->conv, config, data->weights.data(), data->bias.data());
    }));
    run_into = [op](const ReferenceData& d, std::uint8_t* output) { op->run(d.input.data(), output); };
  }
  return std::make_unique<PreparedCandidate>(std::move(data), std::move(run_into), workload.gops(), out_type);
}

}  // namespace qtune::detail
