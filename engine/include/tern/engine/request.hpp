// A request is the handle of a non-blocking operation that did not complete
// at once. It belongs to its worker: either wait() on it there (which gives
// it back), or test() until done and then release() it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tern/runtime/status.hpp"

namespace tern::engine {

// What a receive or probe learned about the message.
struct TagRecvInfo {
  uint64_t sender_tag = 0;
  std::size_t length = 0;  // the message's full length, also when truncated
};

class Request {
 public:
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  // Safe from any thread without the worker's lock (a thread-safe worker
  // completes requests under it): the status is published last, so once
  // done() is true the info and the data are in place. On x86 a plain load.
  [[nodiscard]] bool done() const noexcept { return status_.load(std::memory_order_acquire) != Status::InProgress; }
  // InProgress until done; then Ok or the error it ended with.
  [[nodiscard]] Status status() const noexcept { return status_.load(std::memory_order_acquire); }
  // For receives: the matched message's tag and length (valid once done).
  [[nodiscard]] const TagRecvInfo& info() const noexcept { return info_; }

  // Free for the caller (front ends keep their own handle here).
  void* user_data = nullptr;

 protected:
  Request() = default;
  ~Request() = default;

  std::atomic<Status> status_{Status::InProgress};
  TagRecvInfo info_;
};

}  // namespace tern::engine
