// The waiting policy of blocking calls: progress while there is work, spin a
// while when idle, then sleep on the wakeup fd (TERN_WAIT_MODE).
#pragma once

#include <sched.h>

#include "core/worker_impl.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine {

inline constexpr unsigned kYieldsBeforeSleep = 50;

template <typename Done>
void WorkerImpl::wait_until(Done&& done) {
  const runtime::WaitMode mode = params_.config.wait_mode;
  const std::size_t spin_limit = params_.config.spin_count != 0 ? params_.config.spin_count : 20000;
  std::size_t idle_polls = 0;
  unsigned yields = 0;
  bool slept = false;
  bool marked_waiting = false;
  // Read under the lock (other threads queue sends under it), kept from the
  // last round that had it.
  bool sends_blocked = false;
  for (;;) {
    const uint64_t completions_seen = thread_safe_ ? completions_.load(std::memory_order_seq_cst) : 0;
    // Threads outnumber cores (crowded()): when this one's progress completed a
    // request that is not its own, it yields the core, which may be the
    // only one the owner could run on; and once it has polled idle a few
    // microseconds it yields between polls, since the thread its request
    // waits for may need the core (a round trip of osu_latency_mt -t 2:1
    // otherwise waited 0.2-1.3 ms for this thread's time slice or spin
    // limit to end). A partner that answers at once still finds it
    // spinning: yielding from the first idle poll handed the core around
    // threads that all had nothing to do.
    const bool crowded = thread_safe_ && this->crowded();
    bool progressed = false;
    bool completed_others = false;
    {
      // While another thread holds the lock (a waiter, the progress thread)
      // this one only looks: what that thread completes may be ours.
      // Queueing for the lock behind it made each waiter of osu_latency_mt
      // wait for a turn of the lock on a many-core machine.
      TryGuard guard(*this);
      // done() is asked once per look and never again once it holds: a
      // front end's condition may act when it holds (a matched probe takes
      // the message, a window lock takes the lock word).
      bool finished = done();
      if (!finished && guard.held()) {
        progressed = progress() != 0;
        finished = progressed && done();
        // Marked after a first progress: what we wait for has often landed
        // while we were away (a receive a tag device filled), and the mark
        // is a store to a line the senders read.
        if (!finished && !marked_waiting) {
          set_waiting(true);
          marked_waiting = true;
        }
        completed_others = progressed && crowded && completions_under_lock() != completions_seen;
        sends_blocked = blocked_endpoints_ != 0;
      }
      if (finished) {
        if (!thread_safe_ && mode == runtime::WaitMode::Adaptive) cpu_hop_.on_wait_done(yields != 0 && !slept);
        if (marked_waiting && guard.held()) {
          set_waiting(false);
        } else if (marked_waiting) {
          Guard unmark(*this);
          set_waiting(false);
        }
        return;
      }
    }
    if (progressed) {
      idle_polls = 0;
      if (completed_others) sched_yield();  // outside the lock
      continue;
    }
    if (mode == runtime::WaitMode::Spin || (mode == runtime::WaitMode::Adaptive && ++idle_polls < spin_limit)) {
      if (crowded && idle_polls > kCrowdedSpins) {
        sched_yield();
      } else {
        cpu_relax();
      }
      continue;
    }
    idle_polls = 0;
    // Before sleeping, hand the core to whoever else is runnable on it: when
    // ranks outnumber cores that is usually the peer we wait for, and it
    // answers within its time slice instead of after a wakeup round trip.
    // With nothing else runnable a yield returns at once, so this costs a
    // few microseconds of polling before the sleep.
    if (yields < kYieldsBeforeSleep) {
      ++yields;
      sched_yield();
      continue;
    }
    yields = 0;
    slept = true;
    // Sends waiting for room in a peer's FIFO get no wakeup when the peer
    // drains it, so sleep briefly while any are queued. The long timeout
    // otherwise is only a safety net: every event we wait for wakes us.
    const int timeout_ms = sends_blocked ? 1 : 100;
    if (thread_safe_) {
      sleep_thread_safe(completions_seen, timeout_ms);
    } else {
      (void)wait_event(timeout_ms);
    }
  }
}

}  // namespace tern::engine
