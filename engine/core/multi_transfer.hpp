// Multi-buffer transfers in flight (proto/multi_send.cpp, multi_recv.cpp).
// The worker owns them, so that what is still in flight when it is
// destroyed is freed with it; their destructors free memory only.
#pragma once

#include <memory>
#include <unordered_map>

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

 private:
  std::unordered_map<MultiTransfer*, std::unique_ptr<MultiTransfer>> live_;
};

}  // namespace tern::engine
