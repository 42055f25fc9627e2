// Dispatch of library layers by library name; the libraries themselves are compiled in only when
// found (QTUNE_HAVE_ONEDNN), so that everything above builds and runs without them.
#include "qtune/libraries/library_ops.h"

#include <stdexcept>

#include "qtune/libraries/library_registry.h"
#if defined(QTUNE_HAVE_ONEDNN)
#include "onednn_layers.h"
#endif

namespace qtune::libraries {
namespace {

// Validates the problem and the thread count and returns why the library cannot run here ("").
template <typename Problem>
std::string common_unsupported(std::string_view library, const Problem& problem) {
  try {
    problem.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return library_unavailable(library);
}

[[noreturn]] void refuse(std::string_view library, const std::string& why) {
  throw std::invalid_argument("library " + std::string(library) + " is not offered for this layer: " + why);
}

}  // namespace

std::string library_gemm_unsupported(std::string_view library, const GemmProblem& problem) {
  if (std::string why = common_unsupported(library, problem); !why.empty()) return why;
#if defined(QTUNE_HAVE_ONEDNN)
  if (library == "onednn") return detail::onednn_gemm_unsupported(problem);
#endif
  return "library " + std::string(library) + " has no GEMM";
}

std::string library_conv2d_unsupported(std::string_view library, const Conv2dProblem& problem) {
  if (std::string why = common_unsupported(library, problem); !why.empty()) return why;
#if defined(QTUNE_HAVE_ONEDNN)
  if (library == "onednn") return detail::onednn_conv2d_unsupported(problem);
#endif
  return "library " + std::string(library) + " has no convolution";
}

std::unique_ptr<const LibraryGemm> prepare_library_gemm(std::string_view library, const GemmProblem& problem,
                                                        const std::int8_t* b, std::size_t ldb,
                                                        const std::int32_t* bias, int threads) {
  if (const std::string why = library_gemm_unsupported(library, problem); !why.empty()) refuse(library, why);
  if (b == nullptr || (problem.has_bias && bias == nullptr)) throw std::invalid_argument("library gemm: null weights or bias");
  if (ldb < static_cast<std::size_t>(problem.n)) throw std::invalid_argument("library gemm: ldb is smaller than N");
  if (threads < 1) throw std::invalid_argument("library gemm: threads must be >= 1");
#if defined(QTUNE_HAVE_ONEDNN)
  if (library == "onednn") return detail::prepare_onednn_gemm(problem, b, ldb, bias, threads);
#endif
  refuse(library, "no GEMM");
}

std::unique_ptr<const LibraryConv2d> prepare_library_conv2d(std::string_view library, const Conv2dProblem& problem,
                                                            const std::int8_t* weights, const std::int32_t* bias,
                                                            int threads) {
  if (const std::string why = library_conv2d_unsupported(library, problem); !why.empty()) refuse(library, why);
  if (weights == nullptr || (problem.has_bias && bias == nullptr))
    throw std::invalid_argument("library conv2d: null weights or bias");
  if (threads < 1) throw std::invalid_argument("library conv2d: threads must be >= 1");
#if defined(QTUNE_HAVE_ONEDNN)
  if (library == "onednn") return detail::prepare_onednn_conv2d(problem, weights, bias, threads);
#endif
  refuse(library, "no convolution");
}

}  // namespace qtune::libraries
