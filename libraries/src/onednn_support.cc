#include "onednn_support.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>

namespace qtune::libraries::detail {

dnnl::memory::data_type onednn_type(DType type) {
  switch (type) {
    case DType::u8: return dnnl::memory::data_type::u8;
    case DType::s8: return dnnl::memory::data_type::s8;
    case DType::s32: return dnnl::memory::data_type::s32;
  }
  return dnnl::memory::data_type::undef;
}

std::string onednn_accumulator_range(DType a_type, std::int64_t k) {
  const std::int64_t largest_product = (a_type == DType::u8 ? 255 : 128) * 128;
  if (k > (std::int64_t{1} << 31) / largest_product - 1) {
    return "K = " + std::to_string(k) + " lets oneDNN's int32 dot products overflow";
  }
  return "";
}

bool exact_implementation(const std::string& implementation, DType a_type, std::int64_t k) {
  const bool dot_product = implementation.find("vnni") != std::string::npos ||
                           implementation.find("amx") != std::string::npos;
  if (dot_product && implementation.find("brg") != std::string::npos) return true;
  // The float round trip: exact when no sum can reach 2^24. x64's gemm_s8u8s32 / gemm_s8s8s32
  // name no ISA; on the CPUs library_unavailable() admits they run on vpdpbusd.
  const std::int64_t largest_product = (a_type == DType::u8 ? 255 : 128) * 128;
  const bool below_float_precision = k * largest_product < (std::int64_t{1} << 24);
  return below_float_precision && (dot_product || implementation.find("gemm_s8") != std::string::npos);
}

void set_onednn_threads(int threads) { omp_set_num_threads(threads); }

void in_thread_shares(int threads, std::size_t count, const std::function<void(std::size_t, std::size_t)>& fn) {
  const int team = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), count));
  if (team <= 1) {
    fn(0, count);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    const auto share = static_cast<std::size_t>(omp_get_thread_num()), shares = static_cast<std::size_t>(omp_get_num_threads());
    fn(count * share / shares, count * (share + 1) / shares);
  }
}

}  // namespace qtune::libraries::detail
