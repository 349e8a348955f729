// The blocks that held sends (proto/held_send.cpp) copy into, kept for the
// next held send instead of going back to the shared arena: the arena gives
// the pages of a large free block back to the kernel, and fresh pages cost
// a fault per page on both sides (the sender's copy in, the receiver's copy
// out), several times the copy itself. Programs send the same sizes again
// and again (halo exchanges, pipelines), so a few blocks suffice.
#pragma once

#include <cstddef>

#include "transport/iface.hpp"

namespace tern::engine {

class HeldCache {
 public:
  struct Block {
    void* memory = nullptr;
    std::size_t capacity = 0;
    transport::Iface* iface = nullptr;
  };

  // The smallest cached block of `iface` that holds `size` bytes and is at
  // most twice that, else a new one from the iface; memory null when neither.
  [[nodiscard]] Block get(transport::Iface* iface, std::size_t size) noexcept {
    std::size_t best = kSlots;
    for (std::size_t i = 0; i < kSlots; ++i) {
      const Block& b = slots_[i];
      if (b.memory != nullptr && b.iface == iface && b.capacity >= size && b.capacity / 2 <= size &&
          (best == kSlots || b.capacity < slots_[best].capacity)) {
        best = i;
      }
    }
    if (best != kSlots) {
      const Block found = slots_[best];
      slots_[best] = Block{};
      return found;
    }
    return Block{iface->mem_alloc(size), size, iface};
  }

  // Keeps `block` for later; when every slot is taken, the smallest block
  // (this one or a cached one) goes back to its iface.
  void put(const Block& block) noexcept {
    std::size_t victim = 0;
    for (std::size_t i = 0; i < kSlots; ++i) {
      if (slots_[i].memory == nullptr) {
        slots_[i] = block;
        return;
      }
      if (slots_[i].capacity < slots_[victim].capacity) victim = i;
    }
    if (block.capacity <= slots_[victim].capacity) {
      (void)block.iface->mem_free(block.memory);
      return;
    }
    (void)slots_[victim].iface->mem_free(slots_[victim].memory);
    slots_[victim] = block;
  }

 private:
  static constexpr std::size_t kSlots = 8;
  Block slots_[kSlots];
};

}  // namespace tern::engine
