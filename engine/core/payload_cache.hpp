// Buffers for the bytes of unexpected eager messages, kept for reuse.
//
// Why not malloc and free each time: a window of unexpected messages (osu_bibw
// posts its receives after the peer has started sending) allocates and frees
// a megabyte or more per window. glibc gives the top of its heap back to the
// kernel once more of it is free than its trim threshold (128 KiB unless the
// application set another), so every window then faulted
// its pages in again: osu_bibw at 16 KiB fell from 18 to 3-6 GB/s in one run
// of three, and ran at 17-18 GB/s in every run with trimming turned off. A
// library must not change the application's malloc settings from inside it
// (mallopt; ternrun's huge-page tunable is set before the program starts, in
// the open, and the user can turn it off), so the engine keeps its own: one
// free list per power-of-two size, up to a budget.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace tern::engine {

class PayloadCache {
 public:
  // Sizes from 2^kMinShift to 2^kMaxShift bytes are rounded up to a power of
  // two and cached; larger ones come from malloc and go back to free.
  static constexpr unsigned kMinShift = 8;
  static constexpr unsigned kMaxShift = 20;
  // What the free lists may hold in all; buffers given back beyond it are freed.
  static constexpr std::size_t kMaxCachedBytes = std::size_t{16} << 20;

  PayloadCache() = default;
  PayloadCache(const PayloadCache&) = delete;
  PayloadCache& operator=(const PayloadCache&) = delete;
  ~PayloadCache() {
    for (FreeBlock*& list : free_) {
      while (FreeBlock* block = list) {
        list = block->next;
        std::free(block);
      }
    }
  }

  // At least `length` bytes (length > 0); null when memory runs out.
  [[nodiscard]] std::byte* get(std::size_t length) noexcept {
    const unsigned shift = shift_of(length);
    if (shift > kMaxShift) return static_cast<std::byte*>(std::malloc(length));
    if (FreeBlock* block = free_[shift]) {
      free_[shift] = block->next;
      cached_bytes_ -= std::size_t{1} << shift;
      return reinterpret_cast<std::byte*>(block);
    }
    return static_cast<std::byte*>(std::malloc(std::size_t{1} << shift));
  }

  // Gives back what get(length) returned, with the same length.
  void put(std::byte* buffer, std::size_t length) noexcept {
    const unsigned shift = shift_of(length);
    if (shift > kMaxShift || cached_bytes_ + (std::size_t{1} << shift) > kMaxCachedBytes) {
      std::free(buffer);
      return;
    }
    auto* block = reinterpret_cast<FreeBlock*>(buffer);
    block->next = free_[shift];
    free_[shift] = block;
    cached_bytes_ += std::size_t{1} << shift;
  }

  [[nodiscard]] std::size_t cached_bytes() const noexcept { return cached_bytes_; }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };

  [[nodiscard]] static unsigned shift_of(std::size_t length) noexcept {
    const unsigned shift = static_cast<unsigned>(std::bit_width(length - 1));
    return shift < kMinShift ? kMinShift : shift;
  }

  FreeBlock* free_[kMaxShift + 1] = {};
  std::size_t cached_bytes_ = 0;
};

}  // namespace tern::engine
