// The progress agent as its starter sees it (engine/core/job.cpp): the
// host's first rank starts the tern_agent program, learns its worker
// address through a pipe, and watches it. The agent ends with its starter
// (PR_SET_PDEATHSIG), and an agent that ends on its own while the job runs
// ends the job: a receiver would otherwise wait for what it carried.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tern/runtime/status.hpp"

namespace tern::engine {

class AgentProcess {
 public:
  // Starts the agent of job `job_id` for `local_ranks` ranks on this host.
  // `on_death(message)` runs on a thread of its own if the agent ends
  // before this object does. Null with `error` said when it cannot start.
  static std::unique_ptr<AgentProcess> start(const std::string& job_id, unsigned local_ranks,
                                             std::function<void(const std::string&)> on_death, std::string& error);
  // Stops the agent (SIGTERM) and waits for it.
  ~AgentProcess();
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  [[nodiscard]] const std::vector<std::byte>& address() const noexcept { return address_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

 private:
  AgentProcess() = default;
  void watch();

  pid_t pid_ = -1;
  std::vector<std::byte> address_;
  std::function<void(const std::string&)> on_death_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> ended_{false};
  std::thread watcher_;
};

// Where the tern_agent program is: TERN_AGENT_PATH, else beside the
// library or program this code is linked into (../bin/tern_agent, or the
// same folder), else on the PATH. Empty when none is found.
[[nodiscard]] std::string find_agent_program();

}  // namespace tern::engine
