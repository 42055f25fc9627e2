// Driving the `qtune` program from a test as a user drives it: each test in its own fresh
// directory, `qtune <args>` run through the shell with its exit code and output captured.
// Shared by the CLI test files (QTUNE_CLI names the program, set by tests/CMakeLists.txt;
// QTUNE_CLI_LAUNCHER is what runs it in a cross build: the emulator, as ctest runs the tests).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace qtune::cli_testing {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Concatenation through a stream: GCC 12 misreports -Wrestrict on `"literal" + std::string`.
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  return text.str();
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Each test works in its own fresh directory, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / cat("qtune-cli-", ::getpid(), "-", info->test_suite_name(), "-", info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `qtune <args>` in the test's directory, with `env` (VAR=value ..., or a command such as
  // `taskset -c 0` to run it under) put before it.
  Outcome qtune(const std::string& args, const std::string& env = "") const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string command = cat("cd '", dir_.string(), "' && env ", env, " ", QTUNE_CLI_LAUNCHER, " '", QTUNE_CLI,
                                    "' ", args, " >'", out.string(), "' 2>'", err.string(), "'");
    const int status = std::system(command.c_str());
    Outcome o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  fs::path dir_;
};

}  // namespace qtune::cli_testing
