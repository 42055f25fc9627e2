// Finds the operator of a workload key: gemm and conv2d built in, others registered by tests.
#include <map>
#include <mutex>

#include "operator_candidates.h"
#include "qtune/measure/candidate.h"

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

std::unique_ptr<Candidate> make_candidate(const std::string& workload_key, const std::string& config_key,
                                          std::uint64_t seed) {
  const std::string op = workload_key.substr(0, workload_key.find(':'));
  if (op != "gemm" && op != "conv2d") {
    CandidateFactory factory;
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      auto it = test_operators().find(op);
      if (it != test_operators().end()) factory = it->second;
    }
    if (!factory)
      throw CandidateError(ErrorKind::invalid_workload, "workload key '" + workload_key + "': unknown operator '" + op +
                                                            "' (known: gemm, conv2d)");
    return factory(workload_key, config_key, seed);
  }
  Workload workload;
  try {
    workload = Workload::parse_key(workload_key);
  } catch (const std::invalid_argument& e) {
    throw CandidateError(ErrorKind::invalid_workload, e.what());
  }
  return workload.op == OpKind::gemm ? detail::make_gemm_candidate(workload, config_key, seed)
                                     : detail::make_conv2d_candidate(workload, config_key, seed);
}

}  // namespace qtune
