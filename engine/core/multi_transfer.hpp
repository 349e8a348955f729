// Multi-buffer transfers in flight (proto/multi_send.cpp, multi_recv.cpp).
// The worker owns them, so that what is still in flight when it is
// destroyed is freed with it; their destructors free memory only.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tern::engine {

class MultiTransfer {
 public:
  virtual ~MultiTransfer() = default;
};

class MultiTransfers {
 public:
  template <typename Transfer>
  Transfer* adopt(std::unique_ptr<Transfer> transfer) {
    Transfer* raw = transfer.get();
    live_.emplace(raw, std::move(transfer));
    return raw;
  }
  // Frees a transfer that has ended.
  void finish(MultiTransfer* transfer) { live_.erase(transfer); }
  [[nodiscard]] std::size_t live() const noexcept { return live_.size(); }

  // A receive's buffer for a chained header, kept between transfers: a
  // fresh one of a megabyte cost its pages' faults and zeroing, more than
  // the fetch. take() gives the kept one (perhaps empty), give() keeps the
  // larger of it and the one handed back.
  std::vector<std::byte> take_buffer() noexcept { return std::move(spare_); }
  void give_buffer(std::vector<std::byte>&& buffer) noexcept {
    if (buffer.capacity() > spare_.capacity()) spare_ = std::move(buffer);
  }

 private:
  std::unordered_map<MultiTransfer*, std::unique_ptr<MultiTransfer>> live_;
  std::vector<std::byte> spare_;
};

}  // namespace tern::engine
