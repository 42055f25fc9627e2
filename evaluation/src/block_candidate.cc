// The inverted-residual block as an operator the measurer runs from its keys: the members'
// problems drawn from their workloads (each input zero point the previous member's output zero
// point, as a quantized model chains them; weights as trained layers have them), checked against
// the three convolutions run whole, one after another, by the scalar reference.
#include <cstring>
#include <mutex>
#include <random>

#include "qtune/evaluation/block_tuning.h"
#include "qtune/executor/model_blocks.h"
#include "qtune/measure/candidate.h"
#include "qtune/measure/drawn_weights.h"

namespace qtune::evaluation {
namespace {

std::size_t out_bytes_of(const Conv2dProblem& p) {
  return static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * (p.out_type == DType::s32 ? 4 : 1);
}

class BlockCandidate final : public Candidate {
 public:
  BlockCandidate(const BlockWorkload& block, const BlockConfig& config, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < block.members.size(); ++i) {
      Conv2dProblem p = block.members[i].conv2d_problem(seed + i);
      if (i > 0) p.a_zero_point = problems_[i - 1].requant.output_zero_point;
      const auto k = static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups));
      weights_.push_back(draw_weights(WeightDistribution::trained, k * static_cast<std::size_t>(p.out_c),
                                      static_cast<std::size_t>(p.out_c), rng));
      std::uniform_int_distribution<std::int32_t> bias(-20000, 20000);
      biases_.emplace_back(static_cast<std::size_t>(p.out_c));
      for (auto& b : biases_.back()) b = bias(rng);
      problems_.push_back(std::move(p));
    }
    const Conv2dProblem& first = problems_.front();
    input_.resize(static_cast<std::size_t>(first.batch * first.in_h * first.in_w * first.in_c));
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : input_) b = static_cast<std::uint8_t>(byte(rng));
    std::vector<std::uint8_t> in = input_;
    for (std::size_t i = 0; i < problems_.size(); ++i) {
      std::vector<std::uint8_t> out(out_bytes_of(problems_[i]));
      conv2d_reference(problems_[i], in.data(), weights_[i].data(), biases_[i].data(), out.data());
      in = std::move(out);
    }
    expected_ = std::move(in);
    output_.resize(expected_.size());
    std::vector<executor::BlockLayer> layers;
    for (std::size_t i = 0; i < problems_.size(); ++i)
      layers.push_back({problems_[i], weights_[i].data(), biases_[i].data()});
    try {
      block_.emplace(layers, config, block.members.front().threads);
    } catch (const std::invalid_argument& e) {
      throw CandidateError(ErrorKind::invalid_config, e.what());
    }
    gops_ = block.gops();
  }

  void run() override { block_->run(input_.data(), output_.data()); }

  std::string check() override {
    std::memset(output_.data(), 0xA5, output_.size());  // elements never written are caught too
    run();
    const Conv2dProblem& last = problems_.back();
    const std::size_t element = last.out_type == DType::s32 ? 4 : 1;
    return compare_outputs(output_.data(), expected_.data(), expected_.size() / element, last.out_type,
                           static_cast<std::size_t>(last.out_c));
  }

  double gops() const override { return gops_; }

 private:
  std::vector<Conv2dProblem> problems_;
  std::vector<std::vector<std::int8_t>> weights_;
  std::vector<std::vector<std::int32_t>> biases_;
  std::vector<std::uint8_t> input_, expected_, output_;
  std::optional<executor::PreparedBlock> block_;
  double gops_ = 0;
};

std::unique_ptr<Candidate> make_block_candidate(const std::string& workload_key, const std::string& config_key,
                                                std::uint64_t seed) {
  BlockWorkload block;
  try {
    block = BlockWorkload::parse_key(workload_key);
  } catch (const std::invalid_argument& e) {
    throw CandidateError(ErrorKind::invalid_workload, e.what());
  }
  BlockConfig config;
  try {
    config = BlockConfig::parse(config_key, block.members.size());
  } catch (const std::invalid_argument& e) {
    throw CandidateError(ErrorKind::invalid_config, e.what());
  }
  return std::make_unique<BlockCandidate>(block, config, seed);
}

}  // namespace

void register_block_operators() {
  static std::once_flag once;
  std::call_once(once, [] { register_operator(std::string(kInvertedResidualOp), make_block_candidate); });
}

}  // namespace qtune::evaluation
