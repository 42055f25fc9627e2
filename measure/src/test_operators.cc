// The operators tests register: found by the workload key's prefix, in this process and in the
// isolated workers forked from it.
#include "test_operators.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace qtune {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, CandidateFactory>& test_operators() {
  static std::map<std::string, CandidateFactory> operators;
  return operators;
}

}  // namespace

void register_test_operator(const std::string& op, CandidateFactory factory) {
  if (op == "gemm" || op == "conv2d") throw std::invalid_argument("register_test_operator: '" + op + "' is built in");
  if (op.empty() || op.find(':') != std::string::npos)
    throw std::invalid_argument("register_test_operator: bad operator name '" + op + "'");
  std::lock_guard<std::mutex> lock(registry_mutex());
  test_operators()[op] = std::move(factory);
}

CandidateFactory detail::test_operator(const std::string& op) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = test_operators().find(op);
  return it == test_operators().end() ? CandidateFactory{} : it->second;
}

}  // namespace qtune
