// A connection's operations in issue order: a ring that grows (doubling)
// when full and never shrinks, so that a steady stream of sends allocates
// nothing (a std::deque allocates a block every few of them).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace tern::engine::transport::verbs {

template <typename T>
class RingQueue {
 public:
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  [[nodiscard]] T& front() noexcept { return (*this)[0]; }
  [[nodiscard]] T& back() noexcept { return (*this)[count_ - 1]; }

  void push_back(T&& value) {
    if (count_ == slots_.size()) grow();
    (*this)[count_++] = std::move(value);
  }
  void pop_front() noexcept {
    front() = T{};
    head_ = (head_ + 1) & (slots_.size() - 1);
    --count_;
  }
  void pop_back() noexcept {
    back() = T{};
    --count_;
  }

  template <typename Fn>
  void for_each(Fn&& fn) {
    for (std::size_t i = 0; i < count_; ++i) fn((*this)[i]);
  }

 private:
  void grow() {
    std::vector<T> larger(slots_.empty() ? 16 : 2 * slots_.size());
    for (std::size_t i = 0; i < count_; ++i) larger[i] = std::move((*this)[i]);
    slots_.swap(larger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

}  // namespace tern::engine::transport::verbs
