// A bounded lock-free queue for several producer and consumer threads, of
// trivially copyable items. Each cell carries a sequence number that says
// whose turn it is: at position p, a producer's while it reads p, a
// consumer's while it reads p + 1. A push or pop is then one compare-and-swap
// on the shared position and one release store to the cell; neither ever
// waits for another thread, and a full or empty ring says so at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace tern::runtime {

template <typename T>
class MpmcRing {
  static_assert(std::is_trivially_copyable_v<T>, "items are copied in and out of shared cells");

 public:
  // `capacity` is rounded up to a power of two, at least 2.
  explicit MpmcRing(std::size_t capacity) {
    std::size_t size = 2;
    while (size < capacity) size <<= 1;
    cells_ = std::make_unique<Cell[]>(size);
    mask_ = size - 1;
    for (std::size_t i = 0; i < size; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }
  MpmcRing(const MpmcRing&) = delete;
  MpmcRing& operator=(const MpmcRing&) = delete;

  [[nodiscard]] std::size_t capacity() const noexcept { return mask_ + 1; }

  // False when the ring is full.
  [[nodiscard]] bool try_push(const T& item) noexcept {
    std::size_t position = tail_.load(std::memory_order_relaxed);
    Cell* cell;
    for (;;) {
      cell = &cells_[position & mask_];
      const std::size_t sequence = cell->sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::intptr_t>(sequence) - static_cast<std::intptr_t>(position);
      if (lag == 0) {
        if (tail_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) break;
      } else if (lag < 0) {
        return false;  // the consumer of the previous lap has not taken this cell yet
      } else {
        position = tail_.load(std::memory_order_relaxed);
      }
    }
    cell->item = item;
    cell->sequence.store(position + 1, std::memory_order_release);
    return true;
  }

  // False when the ring is empty.
  [[nodiscard]] bool try_pop(T& out) noexcept {
    std::size_t position = head_.load(std::memory_order_relaxed);
    Cell* cell;
    for (;;) {
      cell = &cells_[position & mask_];
      const std::size_t sequence = cell->sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::intptr_t>(sequence) - static_cast<std::intptr_t>(position + 1);
      if (lag == 0) {
        if (head_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) break;
      } else if (lag < 0) {
        return false;  // no producer has filled this cell yet
      } else {
        position = head_.load(std::memory_order_relaxed);
      }
    }
    out = cell->item;
    cell->sequence.store(position + mask_ + 1, std::memory_order_release);
    return true;
  }

  // Whether a pop could find an item now; a hint only, since other threads move on.
  [[nodiscard]] bool maybe_nonempty() const noexcept {
    const std::size_t position = head_.load(std::memory_order_relaxed);
    return cells_[position & mask_].sequence.load(std::memory_order_acquire) == position + 1;
  }
  // Positions so far: cells producers have claimed (some perhaps not yet
  // filled), and cells consumers have taken. Items go out in claim order.
  [[nodiscard]] std::size_t claimed() const noexcept { return tail_.load(std::memory_order_acquire); }
  [[nodiscard]] std::size_t taken() const noexcept { return head_.load(std::memory_order_acquire); }
  // Items in the ring, as of two loads that other threads may move between.
  [[nodiscard]] std::size_t approximate_size() const noexcept {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    return tail > head ? tail - head : 0;
  }

 private:
  struct Cell {
    std::atomic<std::size_t> sequence{0};
    T item{};
  };

  std::unique_ptr<Cell[]> cells_;
  std::size_t mask_ = 0;
  // On lines of their own: producers move the tail, consumers the head.
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
};

}  // namespace tern::runtime
