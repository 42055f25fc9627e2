// The isolated worker: a fork of this process that measures candidates sent over a socket, so a
// crashing or hanging candidate costs a worker restart instead of the session.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "message_framing.h"
#include "qtune/search_space/key_text.h"
#include "qtune/measure/measure.h"
#include "qtune/search_space/target.h"

namespace qtune {
namespace {

using Clock = std::chrono::steady_clock;

std::string describe_exit(int status) {
  std::ostringstream msg;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    const char* text = sigdescr_np(sig);
    msg << "worker killed by signal " << (abbrev ? std::string("SIG") + abbrev : std::to_string(sig));
    if (text) msg << " (" << text << ")";
  } else if (WIFEXITED(status)) {
    msg << "worker exited with status " << WEXITSTATUS(status) << " before answering";
  } else {
    msg << "worker ended with wait status " << status;
  }
  return msg.str();
}

// Waits up to `grace` for the process to end by itself, then kills it. Returns its wait status.
int reap(pid_t pid, std::chrono::milliseconds grace) {
  int status = 0;
  const auto until = Clock::now() + grace;
  while (true) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return status;
    if (Clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

[[noreturn]] void worker_main(int fd, pid_t parent) {
  // Die with the session; report crashes by their own signal (sanitizer or test handlers would
  // turn them into exit codes); never leave core files behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) signal(sig, SIG_DFL);
  std::string request;
  while (detail::read_message(fd, request, std::nullopt) == detail::ReadStatus::message) {
    MeasureResult result;
    try {
      const auto j = nlohmann::json::parse(request);
      // The process boundary: the keys are parsed back here, once.
      result = measure_keys_in_process(j.at("workload").get<std::string>(), j.at("config").get<std::string>(),
                                       settings_from_json(j.at("settings")));
    } catch (const std::exception& e) {
      result.error = ErrorKind::runtime_error;
      result.error_message = std::string("worker could not read the request: ") + e.what();
      result.worker_pid = static_cast<int>(getpid());
    }
    if (!detail::write_message(fd, to_json(result).dump())) break;
  }
  // _exit: the parent's atexit handlers, static destructors and buffered output are not ours.
  _exit(0);
}

}  // namespace

struct IsolatedMeasurer::Worker {
  pid_t pid = 0;
  int fd = -1;
};

IsolatedMeasurer::IsolatedMeasurer() { start(); }

IsolatedMeasurer::~IsolatedMeasurer() { stop(); }

int IsolatedMeasurer::worker_pid() const { return worker_ ? static_cast<int>(worker_->pid) : 0; }

int IsolatedMeasurer::workers_started() const { return started_; }

void IsolatedMeasurer::start() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error(std::string("socketpair failed: ") + std::strerror(errno));
  const pid_t parent = getpid();
  std::fflush(nullptr);  // buffered output must not be written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    worker_main(fds[1], parent);
  }
  close(fds[1]);
  worker_ = std::make_unique<Worker>();
  worker_->pid = pid;
  worker_->fd = fds[0];
  ++started_;
}

void IsolatedMeasurer::stop() {
  if (!worker_) return;
  close(worker_->fd);  // the worker sees end-of-file and exits
  reap(worker_->pid, std::chrono::milliseconds(2000));
  worker_.reset();
}

MeasureResult IsolatedMeasurer::measure(const Workload& workload, const Config& config,
                                        const MeasureSettings& settings) {
  return measure_keys(workload.key(), config.key(), settings);
}

MeasureResult IsolatedMeasurer::measure_keys(const std::string& workload_key, const std::string& config_key,
                                             const MeasureSettings& settings) {
  const auto start_time = Clock::now();
  // Keys that are not ASCII text cannot travel in the JSON request (nor come back in the answer).
  const std::string workload_problem = key_text_problem("workload key", workload_key);
  const std::string config_problem = key_text_problem("configuration", config_key);
  const bool keys_are_text = workload_problem.empty() && config_problem.empty();
  auto failed = [&](ErrorKind kind, const std::string& message, int pid) {
    MeasureResult r;
    r.workload_key = keys_are_text ? workload_key : printable(workload_key);
    r.config_key = keys_are_text ? config_key : printable(config_key);
    r.settings = settings;
    r.timestamp = utc_timestamp();
    static const std::string target_key = current_target().key();
    r.target_key = target_key;
    r.error = kind;
    r.error_message = message;
    r.worker_pid = pid;
    r.wall_seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
    return r;
  };
  if (!workload_problem.empty()) return failed(ErrorKind::invalid_workload, workload_problem, 0);
  if (!config_problem.empty()) return failed(ErrorKind::invalid_config, config_problem, 0);
  try {
    settings.validate();
  } catch (const std::invalid_argument& e) {
    return failed(ErrorKind::runtime_error, e.what(), 0);
  }
  const std::string request =
      nlohmann::json{{"workload", workload_key}, {"config", config_key}, {"settings", to_json(settings)}}.dump();
  if (!worker_) start();
  if (!detail::write_message(worker_->fd, request)) {
    // The idle worker is gone (killed from outside): start a fresh one and send again.
    stop();
    start();
    if (!detail::write_message(worker_->fd, request))
      return failed(ErrorKind::crash, "could not send the request to a new worker", worker_pid());
  }
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(settings.timeout_seconds));
  std::string response;
  const detail::ReadStatus status = detail::read_message(worker_->fd, response, deadline);
  const pid_t pid = worker_->pid;
  if (status == detail::ReadStatus::message) {
    try {
      MeasureResult r = result_from_json(nlohmann::json::parse(response));
      r.wall_seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
      return r;
    } catch (const std::exception& e) {
      stop();
      return failed(ErrorKind::crash, std::string("malformed answer from the worker: ") + e.what(), pid);
    }
  }
  close(worker_->fd);
  worker_.reset();
  if (status == detail::ReadStatus::timeout) {
    kill(pid, SIGKILL);
    reap(pid, std::chrono::milliseconds(0));
    std::ostringstream msg;
    msg << "no result within the time limit of " << settings.timeout_seconds << " s; the worker was killed";
    return failed(ErrorKind::timeout, msg.str(), pid);
  }
  const int wait_status = reap(pid, std::chrono::milliseconds(2000));
  std::string message = describe_exit(wait_status);
  if (status == detail::ReadStatus::malformed) message = "malformed message from the worker; " + message;
  return failed(ErrorKind::crash, message, pid);
}

}  // namespace qtune
