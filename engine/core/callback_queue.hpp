// Completion callbacks waiting to run (callback.hpp): an operation that ends
// leaves its callback, status and receive info in a slot and its request goes
// back to the pool at once; progress runs the slots in the order their
// operations ended. Slots are pooled, so a steady stream of callbacks
// allocates nothing.
#pragma once

#include "tern/engine/callback.hpp"
#include "tern/runtime/object_pool.hpp"

namespace tern::engine {

struct CallbackSlot {
  Callback callback;
  Status status = Status::Ok;
  TagRecvInfo info;
  // The engine's own step of a longer operation (multi.hpp): runs in
  // progress whatever the notifier routing says.
  bool internal = false;
  CallbackSlot* next_free = nullptr;  // the pool's link while free, the queue's while queued
};

class CallbackQueue {
 public:
  // Null only when memory is exhausted.
  [[nodiscard]] CallbackSlot* new_slot(const Callback& callback) noexcept {
    CallbackSlot* slot = slots_.get();
    if (slot != nullptr) {
      slot->callback = callback;
      slot->internal = false;
    }
    return slot;
  }
  void recycle(CallbackSlot* slot) noexcept { slots_.put(slot); }

  void push(CallbackSlot* slot) noexcept {
    slot->next_free = nullptr;
    if (tail_ == nullptr) {
      head_ = slot;
    } else {
      tail_->next_free = slot;
    }
    tail_ = slot;
  }
  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }
  // Everything queued so far, oldest first, linked by next_free; the queue
  // is empty after. Callbacks that end further operations while these run
  // queue them for the next round, so one progress() call always ends.
  [[nodiscard]] CallbackSlot* take_all() noexcept {
    CallbackSlot* first = head_;
    head_ = tail_ = nullptr;
    return first;
  }

 private:
  runtime::ObjectPool<CallbackSlot> slots_{64};
  CallbackSlot* head_ = nullptr;
  CallbackSlot* tail_ = nullptr;
};

}  // namespace tern::engine
