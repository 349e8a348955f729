#include "launch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tern::launcher::testing {

Launch::Launch(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) std::abort();
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  start_ = std::chrono::steady_clock::now();
  pid_ = fork();
  if (pid_ == 0) {
    for (const std::string& entry : env) putenv(const_cast<char*>(entry.c_str()));
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "exec %s: %s\n", argv[0], std::strerror(errno));
    _exit(126);
  }
  close(out[1]);
  close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

Launch::~Launch() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

bool Launch::pump(int timeout_ms) {
  pollfd fds[2];
  nfds_t count = 0;
  std::string* sinks[2];
  int* owners[2];
  for (auto [fd, sink] : {std::pair{&out_fd_, &out_}, std::pair{&err_fd_, &err_}}) {
    if (*fd < 0) continue;
    fds[count] = {*fd, POLLIN, 0};
    sinks[count] = sink;
    owners[count] = fd;
    ++count;
  }
  if (count == 0) return false;
  if (poll(fds, count, timeout_ms) <= 0) return true;
  for (nfds_t index = 0; index < count; ++index) {
    if (fds[index].revents == 0) continue;
    char buffer[65536];
    ssize_t got = read(fds[index].fd, buffer, sizeof(buffer));
    if (got > 0) {
      sinks[index]->append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      close(*owners[index]);
      *owners[index] = -1;
    }
  }
  return true;
}

bool Launch::wait_for_lines(std::size_t count, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (static_cast<std::size_t>(std::count(out_.begin(), out_.end(), '\n')) < count) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !pump(static_cast<int>(left.count()))) return false;
  }
  return true;
}

void Launch::signal(int signal_number) {
  if (pid_ > 0) kill(pid_, signal_number);
}

Finished Launch::finish(std::chrono::milliseconds limit) {
  Finished result;
  auto end = start_ + limit;
  int status = 0;
  bool exited = false;
  while (!exited) {
    auto now = std::chrono::steady_clock::now();
    if (now >= end && !result.timed_out) {
      result.timed_out = true;
      kill(pid_, SIGKILL);
    }
    pid_t got = waitpid(pid_, &status, WNOHANG);
    if (got == pid_) {
      exited = true;
      result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      break;
    }
    if (!pump(20)) usleep(10'000);
  }
  pid_ = -1;
  // What is still in the pipes; whatever a leftover process keeps open ends
  // with the limit.
  auto drain_end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while ((out_fd_ >= 0 || err_fd_ >= 0) && std::chrono::steady_clock::now() < drain_end) pump(50);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = out_;
  result.err = err_;
  return result;
}

Finished run(const std::vector<std::string>& args, const std::vector<std::string>& env,
             std::chrono::milliseconds limit) {
  Launch launch(args, env);
  return launch.finish(limit);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace tern::launcher::testing
