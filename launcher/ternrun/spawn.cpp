#include "ternrun/spawn.hpp"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tern::launcher {
namespace {

std::vector<char*> pointers_to(const std::vector<std::string>& strings) {
  std::vector<char*> list;
  list.reserve(strings.size() + 1);
  for (const std::string& text : strings) list.push_back(const_cast<char*>(text.c_str()));
  list.push_back(nullptr);
  return list;
}

void write_text(int fd, const char* text) {
  std::size_t length = std::strlen(text);
  while (length > 0) {
    ssize_t written = ::write(fd, text, length);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    text += written;
    length -= static_cast<std::size_t>(written);
  }
}

bool executable_file(const std::string& path, int& error) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) {
    error = errno;
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = S_ISDIR(info.st_mode) ? EISDIR : EACCES;
    return false;
  }
  if (::access(path.c_str(), X_OK) != 0) {
    error = errno;
    return false;
  }
  return true;
}

// Runs in the child between fork and exec. ternrun has other threads (the
// PMIx progress thread), which may have held any lock at the fork, so only
// async-signal-safe calls are allowed here: everything was prepared before.
[[noreturn]] void exec_child(const SpawnRequest& request, char* const* argv, char* const* envp, pid_t parent,
                             int max_fd, const char* failure_prefix) {
  setpgid(0, request.process_group);
  // The kernel's guarantee against orphans, should ternrun die without
  // cleaning up. It fires when the forking thread ends; that is ternrun's main
  // thread, which lives as long as ternrun.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // ternrun died before the line above

  dup2(request.stdin_fd, STDIN_FILENO);
  dup2(request.stdout_fd, STDOUT_FILENO);
  dup2(request.stderr_fd, STDERR_FILENO);
  if (close_range(3, ~0U, 0) != 0) {
    for (int fd = 3; fd < max_fd; ++fd) close(fd);
  }

  // An ignored signal stays ignored across exec (ternrun ignores SIGPIPE);
  // the rank must start as if run from a shell.
  struct sigaction default_action{};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    if (signal_number != SIGKILL && signal_number != SIGSTOP) sigaction(signal_number, &default_action, nullptr);
  }
  sigprocmask(SIG_SETMASK, &request.signal_mask, nullptr);

  if (request.cpus) sched_setaffinity(0, sizeof(cpu_set_t), &*request.cpus);

  execve(request.path.c_str(), argv, envp);
  int error = errno;
  write_text(STDERR_FILENO, failure_prefix);
  write_text(STDERR_FILENO, strerrordesc_np(error) != nullptr ? strerrordesc_np(error) : "unknown error");
  write_text(STDERR_FILENO, "\n");
  _exit(127);
}

}  // namespace

pid_t spawn_rank(const SpawnRequest& request) {
  std::vector<char*> argv = pointers_to(request.argv);
  std::vector<char*> envp = pointers_to(request.env);
  const std::string failure_prefix =
      "ternrun: cannot execute '" + (request.argv.empty() ? request.path : request.argv[0]) + "': ";
  rlimit files{};
  int max_fd = 65536;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY && files.rlim_cur < 65536) {
    max_fd = static_cast<int>(files.rlim_cur);
  }
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid == 0) exec_child(request, argv.data(), envp.data(), parent, max_fd, failure_prefix.c_str());
  if (pid > 0) {
    // Also from this side, so the group exists before the next rank joins it
    // and before any signal is sent to it, whichever process runs first.
    setpgid(pid, request.process_group == 0 ? pid : request.process_group);
  }
  return pid;
}

bool resolve_program(const std::string& name, std::string& path, std::string& error) {
  int failure = 0;
  if (name.empty()) {
    error = "no program to run";
    return false;
  }
  if (name.find('/') != std::string::npos) {
    if (executable_file(name, failure)) {
      path = name;
      return true;
    }
    error = "cannot execute '" + name + "': " + std::strerror(failure);
    return false;
  }
  const char* search = std::getenv("PATH");
  std::string dirs = search != nullptr ? search : "/usr/local/bin:/usr/bin:/bin";
  int first_failure = ENOENT;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (executable_file(candidate, failure)) {
      path = candidate;
      return true;
    }
    // Like execvp: a file that is there but not executable says more than
    // "not found" from a later directory.
    if (failure != ENOENT && failure != ENOTDIR && first_failure == ENOENT) first_failure = failure;
    start = end + 1;
  }
  error = first_failure == ENOENT ? "cannot find program '" + name + "' in PATH"
                                  : "cannot execute '" + name + "': " + std::strerror(first_failure);
  return false;
}

}  // namespace tern::launcher
