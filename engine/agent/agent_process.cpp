#include "agent/agent_process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tern/runtime/log.hpp"

extern char** environ;

namespace tern::engine {
namespace {

bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// Reads exactly `length` bytes within `deadline_ms` in all; false otherwise.
bool read_within(int fd, void* data, std::size_t length, int& deadline_ms) {
  auto* bytes = static_cast<char*>(data);
  while (length != 0) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, deadline_ms);
    if (ready <= 0) return false;
    const ssize_t n = read(fd, bytes, length);
    if (n <= 0) return false;
    bytes += n;
    length -= static_cast<std::size_t>(n);
    deadline_ms = deadline_ms > 10 ? deadline_ms - 10 : 10;  // coarse: the agent writes in one go
  }
  return true;
}

}  // namespace

std::string find_agent_program() {
  if (const char* path = std::getenv("TERN_AGENT_PATH"); path != nullptr && *path != '\0') {
    return executable(path) ? std::string(path) : std::string();
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_agent_program), &info) != 0 && info.dli_fname != nullptr) {
    const std::string folder = folder_of(info.dli_fname);
    for (const std::string& candidate : {folder + "/../bin/tern_agent", folder + "/tern_agent"}) {
      if (executable(candidate)) return candidate;
    }
  }
  const char* path = std::getenv("PATH");
  std::string list = path != nullptr ? path : "";
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    const std::string candidate = list.substr(start, end - start) + "/tern_agent";
    if (end > start && executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

std::unique_ptr<AgentProcess> AgentProcess::start(const std::string& job_id, unsigned local_ranks,
                                                  std::function<void(const std::string&)> on_death,
                                                  std::string& error) {
  const std::string program = find_agent_program();
  if (program.empty()) {
    error = "the tern_agent program is not beside Tern's library nor on the PATH (TERN_AGENT_PATH names it)";
    return nullptr;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  // Everything the child needs is made before the fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> settings = {"TERN_AGENT_JOB=" + job_id,
                                       "TERN_AGENT_PEERS=" + std::to_string(local_ranks),
                                       "TERN_AGENT_FD=" + std::to_string(fds[1])};
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "TERN_AGENT_JOB=", 15) != 0 && std::strncmp(*e, "TERN_AGENT_PEERS=", 17) != 0 &&
        std::strncmp(*e, "TERN_AGENT_FD=", 14) != 0) {
      env.push_back(*e);
    }
  }
  for (std::string& s : settings) env.push_back(s.data());
  env.push_back(nullptr);
  char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return nullptr;
  }
  if (pid == 0) {
    // Ends with its starter; the write end stays open across exec.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    const int flags = fcntl(fds[1], F_GETFD);
    fcntl(fds[1], F_SETFD, flags & ~FD_CLOEXEC);
    execve(program.c_str(), argv, env.data());
    _exit(127);
  }
  close(fds[1]);
  std::unique_ptr<AgentProcess> agent(new AgentProcess());
  agent->pid_ = pid;
  uint32_t length = 0;
  int deadline_ms = 30000;
  const bool read = read_within(fds[0], &length, sizeof(length), deadline_ms) && length != 0 && length <= 4096 &&
                    (agent->address_.resize(length), read_within(fds[0], agent->address_.data(), length, deadline_ms));
  close(fds[0]);
  if (!read) {
    error = "the progress agent (" + program + ") did not give its address";
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    agent->pid_ = -1;
    return nullptr;
  }
  agent->on_death_ = std::move(on_death);
  agent->watcher_ = std::thread([a = agent.get()] { a->watch(); });
  return agent;
}

void AgentProcess::watch() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ended_.store(true);
  if (stopping_.load()) return;
  const std::string how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
  if (on_death_) on_death_("the progress agent (process " + std::to_string(pid_) + ") " + how);
}

AgentProcess::~AgentProcess() {
  if (pid_ <= 0) return;
  stopping_.store(true);
  kill(pid_, SIGTERM);
  // An agent that does not end within 5 s of being asked is made to.
  for (int waited = 0; !ended_.load() && waited < 500; ++waited) usleep(10000);
  if (!ended_.load()) kill(pid_, SIGKILL);
  if (watcher_.joinable()) watcher_.join();
}

}  // namespace tern::engine
