// An endpoint's queue of pending entries, shared by the FIFO transports.
//
// It also keeps per-endpoint order: while entries wait, new sends on the
// endpoint must return WouldBlock (blocks_sends()), or a send issued later
// could reach the peer before the queued ones. Sends made by the entries'
// own callbacks, during dispatch(), go through.
#pragma once

#include "pending.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine::transport {

class EpPendingQueue {
 public:
  [[nodiscard]] bool blocks_sends() const noexcept { return blocked_; }
  [[nodiscard]] bool empty() const noexcept { return queue_.empty(); }

  // Refuses what cannot be queued safely: no entry, no callback, or an entry
  // that already sits in a queue (its hook would be corrupted).
  [[nodiscard]] static bool acceptable(const PendingEntry* entry) noexcept {
    return entry != nullptr && entry->callback != nullptr && !entry->hook.linked();
  }

  void push(PendingEntry* entry) noexcept {
    queue_.push_back(entry);
    if (!dispatching_) blocked_ = true;
  }

  void remove(PendingEntry* entry) noexcept {
    if (!entry->hook.linked()) return;
    queue_.remove(entry);
    if (queue_.empty()) blocked_ = false;
  }

  // Calls the entries in order until one returns WouldBlock; that one stays
  // first. Each entry leaves the queue before its callback runs, because a
  // finished callback may free or reuse the memory holding it. Returns the
  // number of entries that finished.
  unsigned dispatch() {
    unsigned done = 0;
    dispatching_ = true;
    blocked_ = false;
    while (PendingEntry* entry = queue_.pop_front()) {
      if (entry->callback(entry) == Status::WouldBlock) {
        // The callback may have queued itself again (at the back); it still
        // goes first.
        if (entry->hook.linked()) queue_.remove(entry);
        queue_.push_front(entry);
        break;
      }
      ++done;
    }
    dispatching_ = false;
    blocked_ = !queue_.empty();
    return done;
  }

  // Forgets every entry (the endpoint is going away).
  void clear() noexcept {
    while (queue_.pop_front() != nullptr) {
    }
    blocked_ = false;
  }

 private:
  PendingQueue queue_;
  bool blocked_ = false;
  bool dispatching_ = false;
};

}  // namespace tern::engine::transport
