// XNNPACK's int8 fully-connected operator as a same-run peer for `qtune bench` (GEMM): the qs8
// operator of the XNNPACK that Debian packages (libxnnpack-dev), s8 activations x s8 weights ->
// s8 with XNNPACK's own requantization. It is the same amount of work as qtune's u8 x s8 -> s8
// GEMM with XNNPACK's activation type (XNNPACK's qs8 and qu8 kernels cost the same). Only built
// when XNNPACK and pthreadpool are installed (QTUNE_HAVE_XNNPACK).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace qtune::peers {

class XnnpackFullyConnected {
 public:
  // Creates the operator (XNNPACK packs the random [N][K] weights here), its operands and, for
  // threads > 1, a pthreadpool; runs it once. Throws std::runtime_error naming the failing call.
  XnnpackFullyConnected(std::int64_t m, std::int64_t n, std::int64_t k, int threads);
  ~XnnpackFullyConnected();
  XnnpackFullyConnected(const XnnpackFullyConnected&) = delete;
  XnnpackFullyConnected& operator=(const XnnpackFullyConnected&) = delete;

  void run();
  // What ran, e.g. "fully_connected_nc_qs8".
  static std::string implementation();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qtune::peers
