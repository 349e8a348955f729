#include "win/buffer_pool.hpp"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace tern::mpi {
namespace {

// Enough for two windows of 64 operations in flight, each in its own batch.
constexpr std::size_t kMaxPooled = 128;

// The origin's thread and a progress thread (an agent's reply completing)
// may both give back, so a lock; taken once per message, not per operation.
class BlockPool {
 public:
  BlockPool() { free_.reserve(kMaxPooled); }
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  std::byte* get() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        void* block = free_.back();
        free_.pop_back();
        return static_cast<std::byte*>(block);
      }
    }
    return static_cast<std::byte*>(std::malloc(kPooledBytes));
  }
  void put(void* block) noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (free_.size() < kMaxPooled) {
        free_.push_back(block);
        return;
      }
    }
    std::free(block);
  }

 private:
  std::mutex mutex_;
  std::vector<void*> free_;
};

// Never destroyed: a reply may complete during the process's exit.
BlockPool& pool() {
  static BlockPool* blocks = new BlockPool;
  return *blocks;
}

bool pooled(std::size_t bytes) { return bytes >= kPooledFrom && bytes <= kPooledBytes; }

}  // namespace

std::byte* temp_get(std::size_t bytes) noexcept {
  return pooled(bytes) ? pool().get() : static_cast<std::byte*>(std::malloc(bytes == 0 ? 1 : bytes));
}

void temp_release(void* buffer, std::size_t bytes) noexcept {
  if (buffer == nullptr) return;
  if (pooled(bytes)) {
    pool().put(buffer);
  } else {
    std::free(buffer);
  }
}

}  // namespace tern::mpi
