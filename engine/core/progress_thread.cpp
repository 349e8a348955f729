#include "core/progress_thread.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <chrono>
#include <cstring>
#include <string>
#include <system_error>

#include "core/worker_impl.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

namespace {

// Idle polls of a polling thread between two yields of its CPU: often
// enough that ranks outnumbering cores still get scheduled, rarely enough
// that a poll stays a few hundred nanoseconds.
constexpr unsigned kPollsPerYield = 64;
// The blocking thread's sleep when nothing can wake it: sends queued for
// room in a peer's FIFO get no event when the peer drains it. Otherwise
// every event it waits for wakes it, and the long timeout is a safety net.
constexpr int kBlockedSendsSleepMs = 1;
constexpr int kIdleSleepMs = 100;

// Between polls: a pause, and now and then the CPU for whoever shares it
// (a thread the program runs there, or one asleep on the worker's lock).
void relax(unsigned& idle_polls) {
  if (++idle_polls % kPollsPerYield == 0) {
    sched_yield();
  } else {
    cpu_relax();
  }
}

}  // namespace

Status ProgressThread::start(WorkerImpl& worker, runtime::ProgressMode mode, std::unique_ptr<ProgressThread>& out) {
  std::unique_ptr<ProgressThread> thread(new (std::nothrow) ProgressThread(worker, mode));
  if (!thread) return Status::NoMemory;
  // Signals are the program's business: the thread starts with every one
  // blocked, so that a handler never runs on it (holding the worker's lock).
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  Status status = Status::Ok;
  try {
    ProgressThread* self = thread.get();
    thread->thread_ = std::thread(
        [self] { self->mode_ == runtime::ProgressMode::Thread ? self->run_polling() : self->run_blocking(); });
  } catch (const std::system_error& error) {
    TERN_LOG(Error, "worker: cannot start the progress thread: %s", error.what());
    status = Status::IoError;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (status != Status::Ok) return status;
  pthread_setname_np(thread->thread_.native_handle(), "tern-progress");
  bind(thread->thread_.native_handle(), worker.params_.config.progress_cpus);
  out = std::move(thread);
  return Status::Ok;
}

void ProgressThread::bind(pthread_t handle, const std::vector<unsigned>& cpus) {
  if (cpus.empty()) return;  // where its process may run, like the program's threads
  cpu_set_t set;
  CPU_ZERO(&set);
  for (unsigned cpu : cpus) {
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  const std::string list = runtime::format_cpu_list(cpus);
  // Not fatal: a CPU outside the process's cgroup, say, only costs the
  // thread its own core.
  if (const int error = pthread_setaffinity_np(handle, sizeof(set), &set); error != 0) {
    TERN_LOG(Warn, "worker: cannot bind the progress thread to CPUs %s (TERN_PROGRESS_CPUS): %s; it runs unbound",
             list.c_str(), std::strerror(error));
    return;
  }
  TERN_LOG(Info, "worker: progress thread bound to CPUs %s", list.c_str());
}

ProgressThread::~ProgressThread() {
  stop_.store(true, std::memory_order_release);
  // Asleep on the wakeup fd, it wakes on the signal; asleep as a follower of
  // another sleeper, on the condition variable (at worst at its timeout).
  (void)worker_.signal();
  { std::lock_guard<std::mutex> lock(worker_.sleep_mutex_); }
  worker_.sleep_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressThread::advance() {
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  if (watchers_.load(std::memory_order_seq_cst) == 0) return;
  // Taking the mutex orders this notification after a watcher's last look
  // at the epoch, so it cannot be lost.
  { std::lock_guard<std::mutex> lock(watch_mutex_); }
  watch_cv_.notify_all();
}

void ProgressThread::wait_past(uint64_t since, int timeout_ms) {
  watchers_.fetch_add(1, std::memory_order_seq_cst);
  {
    std::unique_lock<std::mutex> lock(watch_mutex_);
    watch_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                       [&] { return epoch_.load(std::memory_order_seq_cst) != since; });
  }
  watchers_.fetch_sub(1, std::memory_order_relaxed);
}

void ProgressThread::run_polling() {
  unsigned idle_polls = 0;
  while (!stopping()) {
    if (worker_.lock_wanted()) {  // a program's thread waits for the lock: it goes first
      relax(idle_polls);
      continue;
    }
    unsigned events;
    {
      WorkerImpl::Guard guard(worker_);
      events = worker_.progress();
    }
    if (events != 0) {
      idle_polls = 0;
      advance();
    } else {
      relax(idle_polls);
    }
  }
}

// Seed 002's loop: progress until nothing is left, arm (Busy: progress
// again), sleep on the wakeup fd. The sleep goes through the worker's
// leader/follower scheme, so that it and an application thread waiting in
// the worker never both sleep on the fd and steal each other's wakeups.
void ProgressThread::run_blocking() {
  while (!stopping()) {
    if (worker_.lock_wanted()) {
      sched_yield();
      continue;
    }
    const uint64_t completions_seen = worker_.completions_.load(std::memory_order_seq_cst);
    bool sends_blocked;
    {
      WorkerImpl::Guard guard(worker_);
      if (worker_.progress() != 0) {
        advance();
        continue;
      }
      sends_blocked = worker_.blocked_endpoints_ != 0;
    }
    if (stopping()) break;
    // Delayed submissions wake it only when it says it sleeps (the fences
    // pair with the one after a submitter's push).
    DelayedSubmission* delayed = worker_.delayed_.get();
    if (delayed != nullptr) {
      delayed->consumer_asleep.store(true, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (delayed->pending()) {
        delayed->consumer_asleep.store(false, std::memory_order_relaxed);
        continue;
      }
    }
    worker_.sleep_thread_safe(completions_seen, sends_blocked ? kBlockedSendsSleepMs : kIdleSleepMs);
    if (delayed != nullptr) delayed->consumer_asleep.store(false, std::memory_order_relaxed);
  }
}

}  // namespace tern::engine
