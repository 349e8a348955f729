// Delayed submission (../shared/seeds/004): with a progress thread, the
// program's threads do not take the worker's lock to send or receive. A call
// takes a request from a reserve the lock holder keeps filled, writes what it
// asks for into a queue, and returns InProgress; the progress thread (or any
// thread that takes the lock first) dispatches the queue in order, at the
// start of its next progress, and the request completes as usual. Waits and
// tests on such requests read their status and never take the lock either.
//
// Both queues are MpmcRings: any thread may push, and only the lock holder
// pops submissions. When the queue is full or the reserve empty, a call
// falls back to the lock: it dispatches what is queued first, so that one
// thread's operations still reach the matcher in the order it made them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tern/engine/callback.hpp"
#include "tern/runtime/mpmc_ring.hpp"

namespace tern::engine {

class Endpoint;
class RequestImpl;

struct Submission {
  enum class Op : uint8_t { Send, Recv };
  Op op = Op::Send;
  unsigned flags = 0;  // sends: SendFlags
  Endpoint* endpoint = nullptr;
  void* buffer = nullptr;
  std::size_t length = 0;
  uint64_t tag = 0;
  uint64_t mask = 0;
  // The caller's handle, or null when the caller gave a callback instead.
  RequestImpl* request = nullptr;
  Callback callback;
};

class DelayedSubmission {
 public:
  static constexpr std::size_t kQueueCapacity = 1024;
  // Requests the program's threads can take without the lock; refilled up
  // to kReserveTarget whenever a dispatch finds fewer than half of that.
  static constexpr std::size_t kReserveCapacity = 1024;
  static constexpr std::size_t kReserveTarget = 256;

  DelayedSubmission() : queue_(kQueueCapacity), reserve_(kReserveCapacity) {}

  // --- any thread, without the lock
  [[nodiscard]] RequestImpl* take_request() noexcept {
    RequestImpl* request = nullptr;
    return reserve_.try_pop(request) ? request : nullptr;
  }
  // False when the reserve is full (the caller then pools it under the lock).
  [[nodiscard]] bool give_back(RequestImpl* request) noexcept { return reserve_.try_push(request); }
  [[nodiscard]] bool submit(const Submission& submission) noexcept { return queue_.try_push(submission); }
  // Something queued, or claimed and being filled: a dispatch must wait for
  // the latter, or an operation queued behind it would be overtaken.
  [[nodiscard]] bool pending() const noexcept { return queue_.approximate_size() != 0; }
  [[nodiscard]] std::size_t claimed() const noexcept { return queue_.claimed(); }
  [[nodiscard]] std::size_t taken() const noexcept { return queue_.taken(); }

  // --- the lock holder
  [[nodiscard]] bool next(Submission& out) noexcept { return queue_.try_pop(out); }
  [[nodiscard]] bool reserve_low() const noexcept { return reserve_.approximate_size() < kReserveTarget / 2; }
  [[nodiscard]] std::size_t reserve_size() const noexcept { return reserve_.approximate_size(); }
  // Set while the lock holder dispatches: a callback that submits from
  // inside it goes the direct way instead of recursing.
  bool dispatching = false;

  // A progress thread that sleeps between events (thread-blocking) says so
  // here; a submitter that sees it asleep wakes it.
  std::atomic<bool> consumer_asleep{false};

 private:
  runtime::MpmcRing<Submission> queue_;
  runtime::MpmcRing<RequestImpl*> reserve_;
};

}  // namespace tern::engine
