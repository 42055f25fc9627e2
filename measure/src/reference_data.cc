#include "reference_data.h"

#include "qtune/measure/drawn_weights.h"

#include <list>
#include <mutex>
#include <random>
#include <string>

namespace qtune::detail {
namespace {

void fill_bytes(std::vector<std::uint8_t>& out, std::size_t count, std::mt19937_64& rng) {
  out.resize(count);
  // Full-range bytes: as u8 they cover 0..255, as s8 -128..127.
  for (std::size_t i = 0; i < count; i += 8) {
    std::uint64_t r = rng();
    for (std::size_t j = i; j < count && j < i + 8; ++j, r >>= 8) out[j] = static_cast<std::uint8_t>(r);
  }
}

std::shared_ptr<ReferenceData> build(const Workload& w, std::uint64_t seed) {
  auto d = std::make_shared<ReferenceData>();
  std::mt19937_64 rng(seed ^ 0xD1B54A32D192ED03ull);
  // Weights as a trained network's (drawn_weights.h): the candidates are timed on what they will
  // multiply, and the speed of the families that clip weight pairs depends on it. The tests'
  // sweeps check every variant over uniform draws.
  std::vector<std::int8_t> weights;
  std::uniform_int_distribution<std::int32_t> bias_value(-20000, 20000);
  const std::size_t out_size = w.quant.out_type == DType::s32 ? 4 : 1;
  if (w.op == OpKind::gemm) {
    d->gemm = w.gemm_problem(seed);
    const auto m = static_cast<std::size_t>(w.m), n = static_cast<std::size_t>(w.n), k = static_cast<std::size_t>(w.k);
    fill_bytes(d->input, m * k, rng);
    weights = draw_weights(WeightDistribution::trained, k * n, n, rng);
    d->bias.resize(n);
    d->output_elements = m * n;
    d->output_columns = n;
  } else {
    d->conv = w.conv2d_problem(seed);
    const Conv2dProblem& p = d->conv;
    fill_bytes(d->input, static_cast<std::size_t>(p.batch * p.in_h * p.in_w * p.in_c), rng);
    weights = draw_weights(WeightDistribution::trained,
                           static_cast<std::size_t>(p.kernel_h * p.kernel_w * (p.in_c / p.groups) * p.out_c),
                           static_cast<std::size_t>(p.out_c), rng);
    d->bias.resize(static_cast<std::size_t>(p.out_c));
    d->output_elements = static_cast<std::size_t>(p.batch * p.out_h() * p.out_w() * p.out_c);
    d->output_columns = static_cast<std::size_t>(p.out_c);
  }
  d->weights = std::move(weights);
  for (auto& b : d->bias) b = bias_value(rng);
  d->expected.assign(d->output_elements * out_size, 0);
  if (w.op == OpKind::gemm) {
    gemm_reference(d->gemm, d->input.data(), static_cast<std::size_t>(w.k), d->weights.data(),
                   static_cast<std::size_t>(w.n), d->bias.data(), d->expected.data(), static_cast<std::size_t>(w.n));
  } else {
    conv2d_reference(d->conv, d->input.data(), d->weights.data(), d->bias.data(), d->expected.data());
  }
  return d;
}

}  // namespace

std::shared_ptr<const ReferenceData> reference_data(const Workload& workload, std::uint64_t seed) {
  // A tuning session measures one workload many times in a row: two entries are enough, and
  // keep memory bounded (a large layer's data is tens of MB).
  static std::mutex mutex;
  static std::list<std::pair<std::string, std::shared_ptr<const ReferenceData>>> cache;
  const std::string key = workload.key() + "#" + std::to_string(seed);
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (it->first == key) {
        cache.splice(cache.begin(), cache, it);
        return cache.front().second;
      }
    }
  }
  std::shared_ptr<const ReferenceData> data = build(workload, seed);
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace_front(key, data);
  while (cache.size() > 2) cache.pop_back();
  return data;
}

}  // namespace qtune::detail
