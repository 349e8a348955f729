// A worker's own progress thread (TERN_PROGRESS=thread|thread-blocking, after
// ../shared/seeds/004): it progresses the worker while the program computes,
// so a peer's rendezvous or eager message is matched, copied and acknowledged
// without the program calling Tern. The worker is thread-safe whenever one
// runs; the thread takes the worker's lock around each progress() and never
// holds it while it sleeps.
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tern/runtime/config.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine {

class WorkerImpl;

class ProgressThread {
 public:
  // Starts the thread for `mode` (Thread or ThreadBlocking) on a worker that
  // is already thread-safe. IoError (logged) when no thread can be started.
  [[nodiscard]] static Status start(WorkerImpl& worker, runtime::ProgressMode mode,
                                    std::unique_ptr<ProgressThread>& out);
  // Stops the thread and joins it: it may be in the middle of a progress()
  // or asleep on the wakeup fd, and is woken by Worker::signal().
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  [[nodiscard]] runtime::ProgressMode mode() const noexcept { return mode_; }
  // True on the thread itself (which needs no signal to see new work).
  [[nodiscard]] bool is_current() const noexcept { return std::this_thread::get_id() == thread_.get_id(); }

  // The caller's own wakeup loop (Worker::arm, wait_event) with a thread
  // that takes the events first: arm() notes how far the thread has got,
  // and wait_event() sleeps until it gets further (it handled events, or
  // signal() was called) or `timeout_ms` passes, which covers the thread
  // having handled the caller's event just before arm().
  void note_armed() noexcept { armed_epoch_.store(epoch_.load(std::memory_order_acquire), std::memory_order_relaxed); }
  void wait_for_progress(int timeout_ms) { wait_past(armed_epoch_.load(std::memory_order_relaxed), timeout_ms); }
  // The thread's productive rounds so far, and a sleep until it gets past
  // `since` (or `timeout_ms` passes): read the epoch, check the condition,
  // then sleep, and no event between the two is missed.
  [[nodiscard]] uint64_t epoch() const noexcept { return epoch_.load(std::memory_order_seq_cst); }
  void wait_past(uint64_t since, int timeout_ms);
  // Wakes the callers in wait_for_progress (the thread itself, after events; signal()).
  void advance();

 private:
  ProgressThread(WorkerImpl& worker, runtime::ProgressMode mode) : worker_(worker), mode_(mode) {}
  void run_polling();
  void run_blocking();
  // Binds the thread to `cpus` (TERN_PROGRESS_CPUS; empty: leaves it where
  // its process may run); a refusal is logged and leaves it unbound.
  static void bind(pthread_t handle, const std::vector<unsigned>& cpus);
  [[nodiscard]] bool stopping() const noexcept { return stop_.load(std::memory_order_acquire); }

  WorkerImpl& worker_;
  const runtime::ProgressMode mode_;
  std::atomic<bool> stop_{false};
  // Counts the thread's productive rounds; callers in wait_for_progress
  // sleep on the condition variable until it moves past armed_epoch_.
  std::atomic<uint64_t> epoch_{0};
  std::atomic<uint64_t> armed_epoch_{0};
  std::atomic<unsigned> watchers_{0};
  std::mutex watch_mutex_;
  std::condition_variable watch_cv_;
  std::thread thread_;
};

}  // namespace tern::engine
