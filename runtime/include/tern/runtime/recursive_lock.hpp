// A recursive lock for the worker of a thread-safe engine (MPI_THREAD_MULTIPLE
// or a progress thread), taken at every call. Uncontended it costs one
// compare-and-swap to take and one exchange to let go, inline, where
// std::recursive_mutex (glibc's pthread mutex) costs two calls and twice the
// time (11-12 ns a pair against about 5 on the 2-core VM); with one
// thread of a THREAD_MULTIPLE rank receiving small messages, the mutex's
// calls were 58% of that rank's time. A thread that cannot take it sleeps
// on a futex (lock()), so oversubscribed threads give their core away.
#pragma once

#include <atomic>
#include <cstdint>

#include "tern/runtime/compiler.hpp"

namespace tern::runtime {

class RecursiveLock {
 public:
  RecursiveLock() = default;
  RecursiveLock(const RecursiveLock&) = delete;
  RecursiveLock& operator=(const RecursiveLock&) = delete;

  [[nodiscard]] bool try_lock() noexcept {
    const void* self = thread_tag();
    if (owner_.load(std::memory_order_relaxed) == self) {
      ++depth_;
      return true;
    }
    uint32_t expected = kFree;
    if (!state_.compare_exchange_strong(expected, kHeld, std::memory_order_acquire, std::memory_order_relaxed)) {
      return false;
    }
    owner_.store(self, std::memory_order_relaxed);
    depth_ = 1;
    return true;
  }

  void lock() noexcept {
    if (TERN_LIKELY(try_lock())) return;
    lock_slow();
  }

  void unlock() noexcept {
    if (--depth_ != 0) return;
    owner_.store(nullptr, std::memory_order_relaxed);
    if (TERN_UNLIKELY(state_.exchange(kFree, std::memory_order_release) == kHeldWithSleepers)) wake_one();
  }

 private:
  static constexpr uint32_t kFree = 0;
  static constexpr uint32_t kHeld = 1;
  static constexpr uint32_t kHeldWithSleepers = 2;

  // An address unique to the calling thread while it lives: its thread
  // pointer, one load, where a thread_local of a shared library would cost
  // a call to find.
  [[nodiscard]] static const void* thread_tag() noexcept { return __builtin_thread_pointer(); }
  // Sleeps until the lock is ours (runtime/src/recursive_lock.cpp).
  void lock_slow() noexcept;
  void wake_one() noexcept;

  std::atomic<uint32_t> state_{kFree};
  // The holder; only the holder writes it, and a thread reads its own
  // tag there only while it holds the lock.
  std::atomic<const void*> owner_{nullptr};
  unsigned depth_ = 0;  // the holder's
};

}  // namespace tern::runtime
