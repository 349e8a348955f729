// Wakeup (../shared/seeds/002): one epoll set holds every iface's event fd
// and the worker's own eventfd (for signal()). Arming refuses while events
// are pending, so a sleeper never misses one.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "core/worker_impl.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine {

Status WorkerImpl::arm() {
  uint64_t signals = 0;
  const bool signaled = read(signal_fd_, &signals, sizeof(signals)) == sizeof(signals) && signals != 0;
  Status result = signaled ? Status::Busy : Status::Ok;
  for (transport::Iface* iface : iface_list_) {
    iface->disarm();
    if (iface->arm() == Status::Busy) result = Status::Busy;
  }
  return result;
}

Status WorkerImpl::wait_event(int timeout_ms) {
  {
    Guard guard(*this);
    if (arm() == Status::Busy) return Status::Ok;
  }
  return sleep_armed(timeout_ms);
}

Status WorkerImpl::sleep_armed(int timeout_ms) {
  epoll_event events[8];
  int ready;
  do {
    ready = epoll_wait(epoll_fd_, events, 8, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready < 0) return Status::IoError;
  return ready == 0 ? Status::TimedOut : Status::Ok;
}

void WorkerImpl::sleep_thread_safe(uint64_t completions_seen, int timeout_ms) {
  std::unique_lock<std::mutex> lock(sleep_mutex_);
  if (!leader_asleep_) {
    leader_asleep_ = true;
    lock.unlock();
    // Another thread (a progress thread, say) may have completed what we
    // wait for and taken its event before we armed: looked at under the lock
    // that completions take, after arming, no completion slips between.
    bool armed;
    {
      Guard guard(*this);
      armed = arm() == Status::Ok && completions_under_lock() == completions_seen;
    }
    if (armed) (void)sleep_armed(timeout_ms);
    lock.lock();
    leader_asleep_ = false;
    lock.unlock();
    // A follower may now take the leader's place.
    sleep_cv_.notify_all();
    return;
  }
  followers_.fetch_add(1, std::memory_order_seq_cst);
  sleep_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return !leader_asleep_ || completions_.load(std::memory_order_seq_cst) != completions_seen;
  });
  followers_.fetch_sub(1, std::memory_order_relaxed);
}

Status WorkerImpl::signal() {
  const uint64_t one = 1;
  if (write(signal_fd_, &one, sizeof(one)) != sizeof(one) && errno != EAGAIN) return Status::IoError;
  return Status::Ok;
}

// The word is read atomically: peers (or threads) store to it behind our back.
void WorkerImpl::wait_mem(const uint64_t* address, uint64_t old_value) {
  constexpr int kSpins = 1000;
  for (int i = 0; i < kSpins; ++i) {
    if (__atomic_load_n(address, __ATOMIC_ACQUIRE) != old_value) return;
    cpu_relax();
  }
  for (;;) {
    if (__atomic_load_n(address, __ATOMIC_ACQUIRE) != old_value) return;
    {
      Guard guard(*this);
      if (arm() == Status::Busy) return;
    }
    // Stores by peers into our memory raise no event, so look again soon.
    epoll_event events[8];
    int ready = epoll_wait(epoll_fd_, events, 8, 1);
    if (ready > 0) return;
  }
}

}  // namespace tern::engine
