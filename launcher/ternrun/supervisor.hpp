// The running job, watched from ternrun's main thread: rank exits, aborts,
// signals to ternrun, the time limit, and the ranks' output, all in one poll
// loop. The first failure decides the outcome; the remaining ranks then get
// SIGTERM, and SIGKILL half a second later.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ternrun/io_forward.hpp"
#include "ternrun/pmix_server.hpp"

namespace tern::launcher {

struct JobOutcome {
  int exit_code = 0;
  std::string message;  // one line for ternrun's stderr; empty on success
};

class Supervisor {
 public:
  // `signal_fd` is a signalfd for SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1
  // and SIGUSR2, which ternrun keeps blocked. `timeout_seconds` 0: no limit,
  // counted from construction.
  Supervisor(PmixServer& server, int signal_fd, unsigned timeout_seconds);

  // The ranks in rank order, as they are started. The first one leads the
  // job's process group.
  void add_rank(pid_t pid);
  void add_output(std::unique_ptr<OutputForwarder> output);
  [[nodiscard]] pid_t process_group() const noexcept { return ranks_.empty() ? 0 : ranks_.front().pid; }

  // Records a failure that ends the job (the first one counts), and starts
  // ending it: for ternrun's own failures, such as a rank that could not be
  // started.
  void fail(int exit_code, std::string message);

  // Runs until every rank has ended and their output is forwarded; no rank
  // process is left afterwards.
  JobOutcome run();

 private:
  using Clock = std::chrono::steady_clock;

  struct Rank {
    pid_t pid = 0;
    bool running = true;
  };

  void reap();
  void take_aborts();
  void on_signal(int signal_number);
  // Sends `signal_number` to every rank still running.
  void signal_ranks(int signal_number);
  // SIGTERM now, SIGKILL when the grace period is over.
  void start_termination(int signal_number);
  [[nodiscard]] int poll_timeout_ms(Clock::time_point now) const;

  PmixServer& server_;
  int signal_fd_;
  unsigned timeout_seconds_;
  std::optional<Clock::time_point> deadline_;       // --timeout
  std::optional<Clock::time_point> kill_deadline_;  // SIGKILL for ranks that ignore SIGTERM
  std::vector<Rank> ranks_;
  unsigned running_ = 0;
  std::vector<std::unique_ptr<OutputForwarder>> outputs_;
  std::optional<JobOutcome> failure_;
  bool terminating_ = false;
};

}  // namespace tern::launcher
