// The operators registered from above measure (the executor's blocks, tests' faulty operators):
// found by the workload key's prefix, in this process and in the isolated workers forked from it.
#include "registered_operators.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace qtune {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, CandidateFactory>& registered_operators() {
  static std::map<std::string, CandidateFactory> operators;
  return operators;
}

}  // namespace

void register_operator(const std::string& op, CandidateFactory factory) {
  if (op == "gemm" || op == "conv2d") throw std::invalid_argument("register_operator: '" + op + "' is built in");
  if (op.empty() || op.find(':') != std::string::npos)
    throw std::invalid_argument("register_operator: bad operator name '" + op + "'");
  std::lock_guard<std::mutex> lock(registry_mutex());
  registered_operators()[op] = std::move(factory);
}

CandidateFactory detail::registered_operator(const std::string& op) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registered_operators().find(op);
  return it == registered_operators().end() ? CandidateFactory{} : it->second;
}

}  // namespace qtune
