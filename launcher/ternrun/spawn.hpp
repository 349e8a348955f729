// Starting one rank: fork, put it in the job's process group, bind it, exec.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace tern::launcher {

struct SpawnRequest {
  std::string path;               // the executable (resolve_program)
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // NAME=value
  std::optional<cpu_set_t> cpus;  // the rank's binding; none: runs where ternrun may
  int stdin_fd = -1;              // become the rank's 0, 1 and 2
  int stdout_fd = -1;
  int stderr_fd = -1;
  pid_t process_group = 0;        // 0: the rank leads a new group (the job's)
  sigset_t signal_mask{};         // the mask the rank starts with (ternrun blocks signals it reads from a signalfd)
};

// Forks and execs one rank. The rank gets SIGKILL if ternrun dies, starts with
// default signal dispositions and `signal_mask`, and has no file descriptor of
// ternrun's but 0, 1 and 2. If exec fails the rank writes
// "ternrun: cannot execute '<argv[0]>': <reason>" to its stderr and exits 127.
// Returns the pid, or -1 with errno set when fork fails.
pid_t spawn_rank(const SpawnRequest& request);

// Finds `name` the way execvp would (PATH, unless it has a '/'). False with
// `error` (a sentence naming the program) when there is nothing to execute.
bool resolve_program(const std::string& name, std::string& path, std::string& error);

}  // namespace tern::launcher
