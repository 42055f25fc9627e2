#include "xnnpack_fully_connected.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace qtune::peers {
namespace {

void check(xnn_status status, const char* call) {
  if (status != xnn_status_success) {
    throw std::runtime_error(std::string("XNNPACK ") + call + " failed with status " + std::to_string(status));
  }
}

}  // namespace

struct XnnpackFullyConnected::Impl {
  xnn_operator_t op = nullptr;
  pthreadpool_t pool = nullptr;
  std::vector<std::int8_t> input, output;
  ~Impl() {
    if (op != nullptr) xnn_delete_operator(op);
    if (pool != nullptr) pthreadpool_destroy(pool);
  }
};

XnnpackFullyConnected::XnnpackFullyConnected(std::int64_t m, std::int64_t n, std::int64_t k, int threads)
    : impl_(std::make_unique<Impl>()) {
  if (m < 1 || n < 1 || k < 1 || threads < 1) throw std::invalid_argument("XNNPACK peer: bad shape or thread count");
  static const xnn_status initialized = xnn_initialize(nullptr);
  check(initialized, "xnn_initialize");
  Impl& s = *impl_;
  std::mt19937 rng(1);
  std::vector<std::int8_t> weights(static_cast<std::size_t>(n * k));  // [N][K]
  for (auto& v : weights) v = static_cast<std::int8_t>(rng());
  std::vector<std::int32_t> bias(static_cast<std::size_t>(n), 100);
  s.input.resize(static_cast<std::size_t>(m * k));
  for (auto& v : s.input) v = static_cast<std::int8_t>(rng());
  s.output.resize(static_cast<std::size_t>(m * n));
  // The scales make the output scale of qtune's benchmark problem: input * kernel / output = 0.0005.
  check(xnn_create_fully_connected_nc_qs8(static_cast<std::size_t>(k), static_cast<std::size_t>(n),
                                          static_cast<std::size_t>(k), static_cast<std::size_t>(n), /*input_zero_point=*/3,
                                          /*input_scale=*/0.05f, /*kernel_scale=*/0.01f, weights.data(), bias.data(),
                                          /*output_zero_point=*/0, /*output_scale=*/1.0f, -128, 127, 0, &s.op),
        "xnn_create_fully_connected_nc_qs8");
  if (threads > 1) {
    s.pool = pthreadpool_create(static_cast<std::size_t>(threads));
    if (s.pool == nullptr) throw std::runtime_error("XNNPACK peer: pthreadpool_create failed");
  }
  check(xnn_setup_fully_connected_nc_qs8(s.op, static_cast<std::size_t>(m), s.input.data(), s.output.data(), s.pool),
        "xnn_setup_fully_connected_nc_qs8");
  run();
}

XnnpackFullyConnected::~XnnpackFullyConnected() = default;

void XnnpackFullyConnected::run() { check(xnn_run_operator(impl_->op, impl_->pool), "xnn_run_operator"); }

std::string XnnpackFullyConnected::implementation() { return "fully_connected_nc_qs8"; }

}  // namespace qtune::peers
