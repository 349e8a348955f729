#include "tern/runtime/recursive_lock.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace tern::runtime {

namespace {

void futex_wait(std::atomic<uint32_t>& word, uint32_t value) noexcept {
  // Returns at once when the word no longer holds `value`; a spurious
  // return only costs another look.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, value, nullptr, nullptr, 0);
}

}  // namespace

// The three-state futex lock: a thread that goes to sleep first marks the
// lock as having sleepers, so that the holder's unlock knows to wake one;
// a woken thread takes the lock in that state too, since others may still
// sleep.
void RecursiveLock::lock_slow() noexcept {
  uint32_t previous = state_.exchange(kHeldWithSleepers, std::memory_order_acquire);
  while (previous != kFree) {
    futex_wait(state_, kHeldWithSleepers);
    previous = state_.exchange(kHeldWithSleepers, std::memory_order_acquire);
  }
  owner_.store(thread_tag(), std::memory_order_relaxed);
  depth_ = 1;
}

void RecursiveLock::wake_one() noexcept {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

}  // namespace tern::runtime
