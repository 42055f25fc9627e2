// What the oneDNN layers share: checks of what oneDNN 2.6 computes exactly, and its OpenMP thread
// count. Internal; compiled only when oneDNN is found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "qtune/kernels/quant.h"

namespace qtune::libraries::detail {

dnnl::memory::data_type onednn_type(DType type);

// "" when oneDNN's raw int32 dot products over `k` terms of `a_type` x s8 cannot overflow int32
// (qtune's wrapping accumulator would then differ from oneDNN's), else why not.
std::string onednn_accumulator_range(DType a_type, std::int64_t k);

// Whether an implementation's s32 output is the exact int32 dot product over `k` terms: oneDNN's
// brgemm kernels with vpdpbusd or AMX store the int32 sums as they are; its other int8 kernels
// convert to float and back even without scales or bias, exact only while |sum| < 2^24.
bool exact_implementation(const std::string& implementation, DType a_type, std::int64_t k);

// Walks oneDNN's implementations of `pd` (best first) to the first exact one; throws
// std::invalid_argument naming the best one when none is.
template <typename PrimitiveDesc>
void select_exact_implementation(PrimitiveDesc& pd, DType a_type, std::int64_t k) {
  const std::string best = pd.impl_info_str();
  do {
    if (exact_implementation(pd.impl_info_str(), a_type, k)) return;
  } while (pd.next_impl());
  throw std::invalid_argument("oneDNN has no implementation with exact int32 output for this layer (its best: " + best +
                              ")");
}

// "" when oneDNN computes a layer of `k`-term dot products exactly: they fit int32 and
// `make_exact_primitive_desc()` (which throws std::invalid_argument naming why not) finds an
// exact implementation; else why not.
template <typename MakeExactPrimitiveDesc>
std::string exactness_problem(DType a_type, std::int64_t k, MakeExactPrimitiveDesc&& make_exact_primitive_desc) {
  if (std::string why = onednn_accumulator_range(a_type, k); !why.empty()) return why;
  try {
    make_exact_primitive_desc();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A oneDNN primitive that computes raw int32 dot products, its weights reordered once into the
// primitive's layout. execute() is const and thread-safe (a stream and memory objects per call).
template <typename Primitive>
class RawDotProducts {
 public:
  // `user_weights` describes the caller's weights at `weights`.
  RawDotProducts(const typename Primitive::primitive_desc& pd, const dnnl::engine& engine,
                 const dnnl::memory::desc& user_weights, const std::int8_t* weights)
      : engine_(engine), primitive_(pd), src_md_(pd.src_desc()), dst_md_(pd.dst_desc()),
        weights_(pd.weights_desc(), engine), implementation_(pd.impl_info_str()) {
    dnnl::memory user(user_weights, engine_, const_cast<std::int8_t*>(weights));
    dnnl::stream stream(engine_);
    dnnl::reorder(user, weights_).execute(stream, user, weights_);
    stream.wait();
  }

  void execute(const void* src, std::int32_t* dst) const {
    dnnl::stream stream(engine_);
    dnnl::memory src_memory(src_md_, engine_, const_cast<void*>(src)), dst_memory(dst_md_, engine_, dst);
    primitive_.execute(stream, {{DNNL_ARG_SRC, src_memory}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_memory}});
    stream.wait();
  }

  const std::string& implementation() const { return implementation_; }

 private:
  dnnl::engine engine_;
  Primitive primitive_;
  dnnl::memory::desc src_md_, dst_md_;
  dnnl::memory weights_;
  std::string implementation_;
};

// oneDNN fixes a primitive's parallelization when it is created, from the OpenMP thread count in
// force then, and runs on the calling thread's count: set before creating and before each run.
void set_onednn_threads(int threads);

// fn(first, end) over `count` items in equal contiguous shares, one per thread of an OpenMP team of
// up to `threads`: qtune's side of a library layer (row sums, zero-point terms, requantization) on
// the workers oneDNN ran on, so that it scales with the layer's thread budget as the library does.
void in_thread_shares(int threads, std::size_t count, const std::function<void(std::size_t, std::size_t)>& fn);

}  // namespace qtune::libraries::detail
