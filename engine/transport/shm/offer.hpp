// A split zero copy: the owner of a large send buffer offers it in a slot of
// its segment, and the peer that gets it shares the copying with the owner.
// The peer claims chunks from the back and reads them (process_vm_readv);
// the owner, whenever it progresses with no copies of its own to make,
// claims chunks from the front and writes them (process_vm_writev). A CMA
// call is bound by the kernel's per-page work on the core that makes it, so
// two cores copying two halves move a message in about half the time; the
// sides meet in the middle, so neither waits for the other and each touches
// its own part of both buffers. When the owner is busy elsewhere the peer
// takes every chunk, all at once if the owner says it is copying for itself
// (SegmentHeader::copying).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport::shm {

inline constexpr uint32_t kOfferSlots = 128;

enum class OfferState : uint32_t { Free = 0, Offered = 1, Matched = 2 };

struct OfferSlot {
  // Written by the owner before the peer learns the key, then by the peer
  // before it stores Matched; read-only while chunks are claimed.
  std::atomic<uint32_t> state{0};
  uint32_t generation = 0;   // in the key, so that a stale key cannot match
  uint64_t source = 0;       // the owner's buffer
  uint64_t length = 0;       // its length
  uint64_t target = 0;       // the peer's buffer
  uint64_t copy_length = 0;  // bytes to move (the shorter of the two)
  uint64_t chunk = 0;        // bytes per claim

  // Both sides during the copy, on a line of their own.
  alignas(kCacheLine) std::atomic<uint64_t> claims{0};  // front chunk | back end << 32
  std::atomic<uint64_t> done{0};     // bytes moved, by either side
  std::atomic<uint32_t> failed{0};   // a copy failed on either side
};

static_assert(sizeof(OfferSlot) == 2 * kCacheLine);

// The key travels with the buffer's address in the rendezvous request.
[[nodiscard]] constexpr uint64_t offer_key(uint32_t index, uint32_t generation) noexcept {
  return (uint64_t{generation} << 32) | (index + 1);
}
[[nodiscard]] constexpr uint32_t offer_index(uint64_t key) noexcept {
  return static_cast<uint32_t>(key & 0xffffffffu) - 1;
}
[[nodiscard]] constexpr uint32_t offer_generation(uint64_t key) noexcept { return static_cast<uint32_t>(key >> 32); }

// Chunks no larger than `max_chunk` (the CMA step of one progress call) and
// at least two, so that both sides have one to take.
[[nodiscard]] constexpr uint64_t offer_chunk(uint64_t copy_length, uint64_t max_chunk) noexcept {
  const uint64_t half = align_up((copy_length + 1) / 2, 4096);
  return std::max<uint64_t>(std::min(half, max_chunk), 4096);
}

struct OfferClaim {
  std::size_t offset = 0;
  std::size_t length = 0;
};

// Takes the next chunk, or every chunk left (`all`), from the front (the
// owner) or from the back (the peer); false once none is left. While both
// sides copy, each keeps to one chunk at its own end even when several
// messages are in flight: programs often send many messages from one buffer
// into one buffer, and two cores writing the same lines at once would cost
// more than the system calls saved by taking whole messages.
inline bool claim_offer_chunks(OfferSlot& slot, bool from_back, bool all, OfferClaim& out) noexcept {
  uint64_t word = slot.claims.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t front = word & 0xffffffffu;
    const uint64_t back = word >> 32;
    if (front >= back) return false;
    const uint64_t first = all || !from_back ? front : back - 1;
    const uint64_t end = all || from_back ? back : front + 1;
    const uint64_t next = from_back ? (first << 32) | front : (back << 32) | end;
    if (slot.claims.compare_exchange_weak(word, next, std::memory_order_relaxed)) {
      out.offset = first * slot.chunk;
      out.length = std::min<uint64_t>((end - first) * slot.chunk, slot.copy_length - out.offset);
      return true;
    }
  }
}

}  // namespace tern::engine::transport::shm
