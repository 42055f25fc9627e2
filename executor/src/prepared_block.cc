// A block prepared at one configuration: the executor's fused step (FusedInvertedResidual) or its
// layers one by one through buffers of their own, as the tuner compares them.
#include <optional>
#include <stdexcept>

#include "fused_inverted_residual.h"
#include "qtune/executor/model_blocks.h"
#include "qtune/search_space/operator_spaces.h"

namespace qtune::executor {

struct PreparedBlock::Impl {
  std::optional<FusedInvertedResidual> fused;
  std::vector<Conv2dOp> layers;
  mutable std::vector<std::vector<std::uint8_t>> between;  // the layers' intermediates
  mutable std::vector<std::uint8_t> scratch;               // the fused step's per-thread buffers
};

namespace {

std::size_t output_bytes(const Conv2dProblem& p) {
  return static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c) * (p.out_type == DType::s32 ? 4 : 1);
}

}  // namespace

PreparedBlock::PreparedBlock(const std::vector<BlockLayer>& members, const BlockConfig& config, int threads)
    : impl_(std::make_unique<Impl>()) {
  if (members.size() != 2 && members.size() != 3)
    throw std::invalid_argument("block: expected 2 or 3 members, got " + std::to_string(members.size()));
  if (config.member_configs.size() != members.size())
    throw std::invalid_argument("block: " + std::to_string(config.member_configs.size()) +
                                " member configurations for " + std::to_string(members.size()) + " members");
  const KnobSpace space = full_space(OpKind::conv2d);
  std::vector<BlockMember> parsed;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::string which = "block member " + std::to_string(i + 1);
    Config member_config;
    try {
      member_config = space.parse(config.member_configs[i]);
    } catch (const InvalidConfig& e) {
      throw std::invalid_argument(which + ": " + e.what());
    }
    if (to_library_config(member_config))
      throw std::invalid_argument(which + ": a library's configuration cannot run in a block");
    parsed.push_back({members[i].problem, to_conv2d_config(member_config), members[i].weights, members[i].bias});
  }
  const bool expands = parsed.size() == 3;
  if (const std::string why = inverted_residual_mismatch(expands ? &parsed[0].problem : nullptr,
                                                         parsed[expands ? 1 : 0].problem, parsed.back().problem);
      !why.empty())
    throw std::invalid_argument("inverted-residual block: " + why);
  if (config.fused) {
    std::optional<BlockMember> expand;
    if (expands) expand = parsed[0];
    impl_->fused.emplace(expand, parsed[expands ? 1 : 0], parsed.back(), config.rows, threads);
    impl_->scratch.resize(impl_->fused->scratch_bytes());
    return;
  }
  for (BlockMember& m : parsed) {
    m.config.gemm.threads = threads;
    impl_->layers.push_back(Conv2dOp::prepare(m.problem, m.config, m.weights, m.bias));
  }
  for (std::size_t i = 0; i + 1 < parsed.size(); ++i) impl_->between.emplace_back(output_bytes(parsed[i].problem));
}

PreparedBlock::PreparedBlock(PreparedBlock&&) noexcept = default;
PreparedBlock& PreparedBlock::operator=(PreparedBlock&&) noexcept = default;
PreparedBlock::~PreparedBlock() = default;

void PreparedBlock::run(const void* input, void* output) const {
  if (impl_->fused) {
    impl_->fused->run(input, output, impl_->scratch.data());
    return;
  }
  const void* in = input;
  for (std::size_t i = 0; i < impl_->layers.size(); ++i) {
    void* out = i + 1 < impl_->layers.size() ? static_cast<void*>(impl_->between[i].data()) : output;
    impl_->layers[i].run(in, out);
    in = out;
  }
}

}  // namespace qtune::executor
