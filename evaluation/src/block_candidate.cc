// The inverted-residual block as an operator the measurer runs from its keys: the members'
// problems drawn from their workloads (each input zero point the previous member's output zero
// point, as a quantized model chains them; weights as trained layers have them), checked against
// the three convolutions run whole, one after another, by the scalar reference.
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <utility>

#include "qtune/evaluation/block_tuning.h"
#include "qtune/executor/model_blocks.h"
#include "qtune/measure/candidate.h"
#include "qtune/measure/drawn_weights.h"

namespace qtune::evaluation {
namespace {

std::size_t out_bytes_of(const Conv2dProblem& p) {
  return static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * (p.out_type == DType::s32 ? 4 : 1);
}

// A block's drawn data and the reference output for it.
struct BlockData {
  std::vector<Conv2dProblem> problems;
  std::vector<std::vector<std::int8_t>> weights;
  std::vector<std::vector<std::int32_t>> biases;
  std::vector<std::uint8_t> input, expected;
};

BlockData draw_block(const BlockWorkload& block, std::uint64_t seed) {
  BlockData d;
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < block.members.size(); ++i) {
    Conv2dProblem p = block.members[i].conv2d_problem(seed + i);
    if (i > 0) p.a_zero_point = d.problems[i - 1].requant.output_zero_point;
    const auto k = static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups));
    d.weights.push_back(draw_weights(WeightDistribution::trained, k * static_cast<std::size_t>(p.out_c),
                                     static_cast<std::size_t>(p.out_c), rng));
    std::uniform_int_distribution<std::int32_t> bias(-20000, 20000);
    d.biases.emplace_back(static_cast<std::size_t>(p.out_c));
    for (auto& b : d.biases.back()) b = bias(rng);
    d.problems.push_back(std::move(p));
  }
  const Conv2dProblem& first = d.problems.front();
  d.input.resize(static_cast<std::size_t>(first.batch * first.in_h * first.in_w * first.in_c));
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& b : d.input) b = static_cast<std::uint8_t>(byte(rng));
  std::vector<std::uint8_t> in = d.input;
  for (std::size_t i = 0; i < d.problems.size(); ++i) {
    std::vector<std::uint8_t> out(out_bytes_of(d.problems[i]));
    conv2d_reference(d.problems[i], in.data(), d.weights[i].data(), d.biases[i].data(), out.data());
    in = std::move(out);
  }
  d.expected = std::move(in);
  return d;
}

// The last block's data, kept: a tuner measures one block's candidates one after another, and the
// scalar reference of a large block takes long (as measure's reference_data keeps each layer's).
std::shared_ptr<const BlockData> block_data(const BlockWorkload& block, std::uint64_t seed) {
  static std::mutex mutex;
  static std::pair<std::string, std::uint64_t> kept_for;
  static std::shared_ptr<const BlockData> kept;
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept && kept_for == std::make_pair(block.key(), seed)) return kept;
  kept = std::make_shared<const BlockData>(draw_block(block, seed));
  kept_for = {block.key(), seed};
  return kept;
}

class BlockCandidate final : public Candidate {
 public:
  BlockCandidate(const BlockWorkload& block, const BlockConfig& config, std::uint64_t seed)
      : data_(block_data(block, seed)), output_(data_->expected.size()), gops_(block.gops()) {
    std::vector<executor::BlockLayer> layers;
    for (std::size_t i = 0; i < data_->problems.size(); ++i)
      layers.push_back({data_->problems[i], data_->weights[i].data(), data_->biases[i].data()});
    try {
      block_.emplace(layers, config, block.members.front().threads);
    } catch (const std::invalid_argument& e) {
      throw CandidateError(ErrorKind::invalid_config, e.what());
    }
  }

  void run() override { block_->run(data_->input.data(), output_.data()); }

  std::string check() override {
    std::memset(output_.data(), 0xA5, output_.size());  // elements never written are caught too
    run();
    const Conv2dProblem& last = data_->problems.back();
    const std::size_t element = last.out_type == DType::s32 ? 4 : 1;
    return compare_outputs(output_.data(), data_->expected.data(), data_->expected.size() / element, last.out_type,
                           static_cast<std::size_t>(last.out_c));
  }

  double gops() const override { return gops_; }

 private:
  std::shared_ptr<const BlockData> data_;
  std::vector<std::uint8_t> output_;
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
