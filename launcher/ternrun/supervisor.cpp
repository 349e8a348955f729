#include "ternrun/supervisor.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ternrun/cleanup.hpp"

namespace tern::launcher {
namespace {

// Between SIGTERM and SIGKILL: long enough for a rank to flush and unlink its
// segments, short enough that the job is gone within a second of a failure.
constexpr auto kTermGrace = std::chrono::milliseconds(500);
// After the last rank ended: how long output may still come from a process
// that holds a copy of a rank's pipe without being ternrun's descendant.
constexpr auto kDrainGrace = std::chrono::seconds(1);

std::string signal_text(int signal_number) {
  const char* name = strsignal(signal_number);
  return std::to_string(signal_number) + " (" + (name != nullptr ? name : "unknown") + ")";
}

// The abort message on one line, as ternrun's report is one line.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

}  // namespace

Supervisor::Supervisor(PmixServer& server, int signal_fd, unsigned timeout_seconds)
    : server_(server), signal_fd_(signal_fd), timeout_seconds_(timeout_seconds) {
  if (timeout_seconds > 0) deadline_ = Clock::now() + std::chrono::seconds(timeout_seconds);
}

void Supervisor::add_rank(pid_t pid) {
  ranks_.push_back({pid, true});
  ++running_;
}

void Supervisor::add_output(std::unique_ptr<OutputForwarder> output) { outputs_.push_back(std::move(output)); }

void Supervisor::fail(int exit_code, std::string message) {
  if (!failure_) failure_ = JobOutcome{exit_code, std::move(message)};
  start_termination(SIGTERM);
}

void Supervisor::signal_ranks(int signal_number) {
  // With no rank running the group leader may be reaped, and its pid (the
  // group's id) reused: nothing is sent then.
  if (running_ == 0) return;
  // The group reaches what the ranks started themselves; the pids reach a
  // rank that left the group.
  kill(-process_group(), signal_number);
  for (const Rank& rank : ranks_) {
    if (rank.running) kill(rank.pid, signal_number);
  }
}

void Supervisor::start_termination(int signal_number) {
  if (terminating_) return;
  terminating_ = true;
  signal_ranks(signal_number);
  kill_deadline_ = Clock::now() + kTermGrace;
}

void Supervisor::take_aborts() {
  for (AbortRequest& abort : server_.take_aborts()) {
    std::string message = "ternrun: rank " + std::to_string(abort.rank) + " called abort";
    std::string text = one_line(std::move(abort.message));
    message += text.empty() ? " (status " + std::to_string(abort.status) + ")" : ": " + text;
    // The status the program gave (MPI_Abort, shmem_global_exit) is the
    // job's exit code, 0 included, as other launchers report it; one no
    // process could exit with is a failure rather than a truncated value
    // that might read as success.
    int code = abort.status >= 0 && abort.status < 256 ? abort.status : 1;
    fail(code, std::move(message));
  }
}

void Supervisor::reap() {
  // An abort is queued before its caller is let go, so looking at the queue
  // first reports the abort rather than the exit that follows it.
  take_aborts();
  for (std::size_t index = 0; index < ranks_.size(); ++index) {
    Rank& rank = ranks_[index];
    if (!rank.running) continue;
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    // The group leader stays a zombie (WNOWAIT) until the end: while it
    // exists its pid, which names the group, cannot be reused, so signals to
    // the group never reach an unrelated process.
    int flags = WEXITED | WNOHANG | (index == 0 ? WNOWAIT : 0);
    if (waitid(P_PID, static_cast<id_t>(rank.pid), &info, flags) != 0 || info.si_pid != rank.pid) continue;
    rank.running = false;
    --running_;
    if (info.si_code == CLD_EXITED) {
      if (info.si_status != 0) {
        fail(info.si_status,
             "ternrun: rank " + std::to_string(index) + " exited with code " + std::to_string(info.si_status));
      }
    } else {
      fail(128 + info.si_status, "ternrun: rank " + std::to_string(index) + " killed by signal " +
                                     signal_text(info.si_status));
    }
  }
}

void Supervisor::on_signal(int signal_number) {
  switch (signal_number) {
    case SIGCHLD: reap(); break;
    case SIGUSR1:
    case SIGUSR2: signal_ranks(signal_number); break;  // for the program, as mpirun does
    default:
      if (terminating_) {
        // Asked twice: no more grace.
        signal_ranks(SIGKILL);
        break;
      }
      if (!failure_) {
        failure_ = JobOutcome{128 + signal_number,
                              "ternrun: received signal " + signal_text(signal_number) + ", job ended"};
      }
      // The ranks get the signal ternrun got, as if it had been sent to them.
      start_termination(signal_number);
      break;
  }
}

int Supervisor::poll_timeout_ms(Clock::time_point now) const {
  std::optional<Clock::time_point> next;
  if (deadline_ && !failure_) next = deadline_;
  if (kill_deadline_ && (!next || *kill_deadline_ < *next)) next = kill_deadline_;
  if (!next) return -1;
  if (*next <= now) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
  return static_cast<int>(std::min<long long>(ms, 60'000));
}

JobOutcome Supervisor::run() {
  std::optional<Clock::time_point> drain_deadline;
  std::vector<pollfd> fds;
  std::vector<OutputForwarder*> polled;
  // Ranks that ended before the loop started (a failed exec) left a SIGCHLD
  // in the signalfd; reaping once here also covers ranks that never ran.
  reap();
  while (true) {
    auto now = Clock::now();
    if (running_ == 0 && !drain_deadline) {
      // A job leaves no process behind: what the ranks started goes too,
      // in their group or not (ternrun adopted those that left it). This
      // also closes the pipes such processes inherited, so the output ends.
      if (!ranks_.empty()) kill(-process_group(), SIGKILL);
      end_children();  // reaps the group leader too: no group signal after this
      kill_deadline_.reset();
      drain_deadline = now + kDrainGrace;
    }
    bool outputs_open = std::any_of(outputs_.begin(), outputs_.end(), [](const auto& o) { return o->is_open(); });
    if (running_ == 0 && (!outputs_open || now >= *drain_deadline)) break;

    fds.clear();
    polled.clear();
    fds.push_back({signal_fd_, POLLIN, 0});
    fds.push_back({server_.notify_fd(), POLLIN, 0});
    for (auto& output : outputs_) {
      if (!output->is_open()) continue;
      fds.push_back({output->fd(), POLLIN, 0});
      polled.push_back(output.get());
    }
    int timeout = poll_timeout_ms(now);
    if (drain_deadline) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*drain_deadline - now).count();
      timeout = static_cast<int>(std::max<long long>(0, left));
    }
    int ready = poll(fds.data(), fds.size(), timeout);
    if (ready < 0 && errno != EINTR) {
      // Cannot watch the job any more: end it rather than leave it behind.
      fail(1, std::string("ternrun: poll failed: ") + std::strerror(errno));
      signal_ranks(SIGKILL);
      end_children();
      break;
    }

    if (ready > 0 && (fds[1].revents & POLLIN)) take_aborts();
    if (ready > 0 && (fds[0].revents & POLLIN)) {
      signalfd_siginfo info;
      while (read(signal_fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
        on_signal(static_cast<int>(info.ssi_signo));
      }
    }
    for (std::size_t index = 0; ready > 0 && index < polled.size(); ++index) {
      if (fds[index + 2].revents & (POLLIN | POLLHUP | POLLERR)) polled[index]->pump();
    }

    now = Clock::now();
    if (deadline_ && !failure_ && now >= *deadline_) {
      fail(124, "ternrun: job timed out after " + std::to_string(timeout_seconds_) + " s");
    }
    if (kill_deadline_ && now >= *kill_deadline_) {
      signal_ranks(SIGKILL);
      kill_deadline_.reset();
    }
  }
  for (auto& output : outputs_) output->close();
  return failure_ ? *failure_ : JobOutcome{};
}

}  // namespace tern::launcher
