#include "coll/scratch.hpp"

#include <cstdlib>

#include "tern/runtime/compiler.hpp"

namespace tern::mpi {
namespace {

// What one thread keeps: a few blocks (a collective holds at most two at
// once), none larger than kKeptBytes, so that one huge reduction does not
// pin its memory for the rest of the run.
constexpr std::size_t kKeptBlocks = 4;
constexpr std::size_t kKeptBytes = std::size_t{16} << 20;

struct Block {
  std::byte* data = nullptr;
  std::size_t capacity = 0;
};

class KeptBlocks {
 public:
  ~KeptBlocks() {
    for (Block& block : blocks_) std::free(block.data);
  }

  // The smallest kept block that holds `bytes`; an empty block if none does.
  Block take(std::size_t bytes) noexcept {
    std::size_t best = kKeptBlocks;
    for (std::size_t i = 0; i < kKeptBlocks; ++i) {
      const Block& block = blocks_[i];
      if (block.data != nullptr && block.capacity >= bytes &&
          (best == kKeptBlocks || block.capacity < blocks_[best].capacity)) {
        best = i;
      }
    }
    if (best == kKeptBlocks) return {};
    const Block taken = blocks_[best];
    blocks_[best] = {};
    return taken;
  }

  // Keeps `block` in a free place or in place of a smaller one (freed);
  // frees it when it is too large or smaller than everything kept.
  void give(Block block) noexcept {
    if (block.capacity > kKeptBytes) {
      std::free(block.data);
      return;
    }
    std::size_t smallest = 0;
    for (std::size_t i = 0; i < kKeptBlocks; ++i) {
      if (blocks_[i].data == nullptr) {
        blocks_[i] = block;
        return;
      }
      if (blocks_[i].capacity < blocks_[smallest].capacity) smallest = i;
    }
    if (blocks_[smallest].capacity < block.capacity) {
      std::free(blocks_[smallest].data);
      blocks_[smallest] = block;
    } else {
      std::free(block.data);
    }
  }

 private:
  Block blocks_[kKeptBlocks];
};

thread_local KeptBlocks t_kept;

}  // namespace

ScratchBuffer::ScratchBuffer(std::size_t bytes) noexcept : capacity_(bytes) {
  if (bytes == 0) return;
  const Block kept = t_kept.take(bytes);
  if (kept.data != nullptr) {
    data_ = kept.data;
    capacity_ = kept.capacity;
    return;
  }
  // Whole cache lines, so that a block kept for later serves any size up to them.
  const std::size_t rounded = align_up(bytes, kCacheLine);
  data_ = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, rounded));
  if (data_ != nullptr) capacity_ = rounded;
}

ScratchBuffer::~ScratchBuffer() {
  if (data_ != nullptr) t_kept.give({data_, capacity_});
}

}  // namespace tern::mpi
