// Status codes shared by every Tern layer. Hot paths return these instead of
// throwing; front ends translate them once (MPI error classes, SHMEM aborts).
#pragma once

#include <cstdint>
#include <utility>

namespace tern {

enum class [[nodiscard]] Status : int8_t {
  Ok = 0,
  InProgress = 1,    // accepted; completion is reported later
  WouldBlock = -1,   // no resources now; retry (or queue with a pending entry)
  Busy = -2,         // refused because work is pending (arm) or cannot be undone (cancel)
  InvalidParam = -3, // a bad argument; nothing was done
  Truncated = -4,    // message longer than the receive buffer; buffer not overrun
  Canceled = -5,
  NotFound = -6,     // probe found nothing, unknown endpoint or request
  Unreachable = -7,  // no transport reaches the peer
  NoMemory = -8,
  IoError = -9,      // a system call failed; the log names it
  Unsupported = -10,
  TimedOut = -11,
  MessageTooLong = -12,
};

[[nodiscard]] const char* to_string(Status status) noexcept;

[[nodiscard]] constexpr bool is_error(Status status) noexcept {
  return static_cast<int8_t>(status) < 0;
}

// A value or the reason there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)), status_(Status::Ok) {}  // NOLINT: implicit by design
  Result(Status status) : value_(), status_(status) {}                 // NOLINT: implicit by design

  [[nodiscard]] bool ok() const noexcept { return status_ == Status::Ok; }
  [[nodiscard]] Status status() const noexcept { return status_; }
  [[nodiscard]] T& value() & noexcept { return value_; }
  [[nodiscard]] T&& value() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }
  T& operator*() noexcept { return value_; }

 private:
  T value_;
  Status status_;
};

}  // namespace tern
