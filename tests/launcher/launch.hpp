// Runs a command (ternrun) for a test: stdout and stderr captured apart, extra
// environment variables, a time limit, and a way to signal it mid-run.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace tern::launcher::testing {

struct Finished {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;       // the signal that killed it, 0 if it exited
  bool timed_out = false;
  std::string out;
  std::string err;
  double seconds = 0;   // from start to exit
};

class Launch {
 public:
  // Starts `args` (args[0] a path) with the test's environment plus `env`
  // (NAME=value).
  explicit Launch(const std::vector<std::string>& args, const std::vector<std::string>& env = {});
  ~Launch();  // kills what is still running
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;

  // Reads output until stdout holds `count` lines (true) or `limit` passes.
  bool wait_for_lines(std::size_t count, std::chrono::milliseconds limit);
  void signal(int signal_number);
  // Reads everything until the command exits; SIGKILLs it after `limit`.
  Finished finish(std::chrono::milliseconds limit = std::chrono::seconds(30));

  [[nodiscard]] const std::string& out() const { return out_; }

 private:
  // One poll round: appends what the pipes hold. False once both are closed.
  bool pump(int timeout_ms);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  std::chrono::steady_clock::time_point start_;
};

// Runs to completion.
Finished run(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
             std::chrono::milliseconds limit = std::chrono::seconds(30));

// The lines of `text` (without their newlines).
std::vector<std::string> lines_of(const std::string& text);

}  // namespace tern::launcher::testing
