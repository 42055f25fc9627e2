// Prepared operators: argument checks in front of the kernels' thread-safe run().
#include "qtune/runtime/prepared_ops.h"

#include <stdexcept>
#include <string>

#include "qtune/libraries/library_ops.h"

namespace qtune::runtime {

namespace {

// The message of config() / op() on a layer a library computes.
[[noreturn]] void throw_library_layer(const char* op, const Selection& selection, const std::string& library) {
  throw std::logic_error(std::string(op) + " layer " + selection.workload_key + " is computed by library " + library +
                         ", not by a qtune kernel");
}

}  // namespace

PreparedGemm::PreparedGemm(GemmOp op, Selection selection) : op_(std::move(op)), selection_(std::move(selection)) {}

PreparedGemm::PreparedGemm(std::shared_ptr<const libraries::LibraryGemm> op, std::string library, GemmProblem problem,
                           Selection selection)
    : op_(std::move(op)), library_(std::move(library)), library_problem_(std::move(problem)),
      selection_(std::move(selection)) {}

void PreparedGemm::run(const void* a, std::size_t lda, void* c, std::size_t ldc) const {
  const GemmProblem& p = problem();
  if (a == nullptr) throw std::invalid_argument("gemm run: A must not be null");
  if (c == nullptr) throw std::invalid_argument("gemm run: C must not be null");
  if (lda < static_cast<std::size_t>(p.k))
    throw std::invalid_argument("gemm run: lda " + std::to_string(lda) + " is smaller than K " + std::to_string(p.k));
  if (ldc < static_cast<std::size_t>(p.n))
    throw std::invalid_argument("gemm run: ldc " + std::to_string(ldc) + " is smaller than N " + std::to_string(p.n));
  if (const auto* kernel = std::get_if<GemmOp>(&op_)) {
    kernel->run(a, lda, c, ldc);
  } else {
    std::get<1>(op_)->run(a, lda, c, ldc);
  }
}

const GemmProblem& PreparedGemm::problem() const {
  if (const auto* kernel = std::get_if<GemmOp>(&op_)) return kernel->problem();
  return library_problem_;
}

const GemmOp& PreparedGemm::op() const {
  if (const auto* kernel = std::get_if<GemmOp>(&op_)) return *kernel;
  throw_library_layer("gemm", selection_, library_);
}

const GemmConfig& PreparedGemm::config() const { return op().config(); }

PreparedConv2d::PreparedConv2d(Conv2dOp op, Selection selection)
    : op_(std::move(op)), selection_(std::move(selection)) {}

PreparedConv2d::PreparedConv2d(std::shared_ptr<const libraries::LibraryConv2d> op, std::string library,
                               Conv2dProblem problem, Selection selection)
    : op_(std::move(op)), library_(std::move(library)), library_problem_(std::move(problem)),
      selection_(std::move(selection)) {}

void PreparedConv2d::run(const void* input, void* output) const {
  if (input == nullptr) throw std::invalid_argument("conv2d run: input must not be null");
  if (output == nullptr) throw std::invalid_argument("conv2d run: output must not be null");
  if (const auto* kernel = std::get_if<Conv2dOp>(&op_)) {
    kernel->run(input, output);
  } else {
    std::get<1>(op_)->run(input, output);
  }
}

const Conv2dProblem& PreparedConv2d::problem() const {
  if (const auto* kernel = std::get_if<Conv2dOp>(&op_)) return kernel->problem();
  return library_problem_;
}

const Conv2dOp& PreparedConv2d::op() const {
  if (const auto* kernel = std::get_if<Conv2dOp>(&op_)) return *kernel;
  throw_library_layer("conv2d", selection_, library_);
}

const Conv2dConfig& PreparedConv2d::config() const { return op().config(); }

}  // namespace qtune::runtime
