// The layout of a receive segment: this header, the owner's offer slots
// (offer.hpp), the FIFO cells, one ring per sender of small messages
// (transport/ring.hpp), then the table of the owner's offloaded receives
// (tag_table.hpp). One segment per shm iface; every local peer maps it
// to send to that iface.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "offer.hpp"
#include "tag_table.hpp"
#include "transport/fifo.hpp"
#include "transport/ring.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport::shm {

inline constexpr uint64_t kSegmentMagic = 0x316d68736e726574;  // "ternshm1"
inline constexpr uint32_t kSegmentVersion = 4;
// What the owner keeps at `probe_address`, for peers to test CMA against.
inline constexpr uint64_t kProbeMagic = 0x65626f72702d616d;  // "ma-probe"

struct SegmentHeader {
  // Identity: written by the owner before its address is published, then
  // read-only, except attach_count, which each attacher bumps once.
  std::atomic<uint64_t> magic{0};  // stored last, with release
  uint32_t version = 0;
  int32_t owner_pid = 0;
  uint32_t cells = 0;
  uint32_t cell_size = 0;
  uint32_t expected_peers = 0;  // 0: unknown, the owner unlinks at destruction
  std::atomic<uint32_t> attach_count{0};
  // Rings senders may claim (0 when the owner takes none), and how many
  // have been: each endpoint that attaches takes the next while any is left.
  uint32_t ring_slots = 0;
  std::atomic<uint32_t> rings_claimed{0};
  uint64_t probe_address = 0;
  // 1 when the owner calls remote_fence() before it sleeps, so that senders
  // registered for it may publish without a fence of their own.
  uint32_t fences_before_sleep = 0;

  FifoIndices fifo;  // head and tail, each on its own line

  // Set by a receiver about to sleep; a sender that sees it sends a datagram.
  // Alone on its line: senders read it after every message, and it changes
  // only when the receiver arms, so the read normally hits their cache.
  alignas(kCacheLine) std::atomic<uint32_t> armed{0};

  // Set while the owner has zero copies of its own queued. It then leaves
  // its offers to the peers, who take them whole (one system call instead of
  // one per end), since its core is as busy as theirs (osu_bibw). Alone on
  // its line: it changes only when the owner's queue empties or fills.
  alignas(kCacheLine) std::atomic<uint32_t> copying{0};
};

inline constexpr std::size_t kOffersOffset = align_up(sizeof(SegmentHeader), kCacheLine);
inline constexpr std::size_t kCellsOffset = kOffersOffset + kOfferSlots * sizeof(OfferSlot);

// 32 senders on a node get a ring each; more send through the FIFO only.
// 8 KiB is 256 slots of 32 bytes: four windows of 64 messages of up to 16
// bytes (osu_mbw_mr, osu_bw), two to a cache line.
inline constexpr uint32_t kRingSlots = 32;
inline constexpr std::size_t kRingBytes = 8192;
inline constexpr std::size_t kRingStride = sizeof(RingControl) + kRingBytes;

[[nodiscard]] constexpr std::size_t rings_offset(FifoGeometry geometry) noexcept {
  return kCellsOffset + geometry.bytes();
}

[[nodiscard]] constexpr std::size_t tag_table_offset(FifoGeometry geometry) noexcept {
  return rings_offset(geometry) + kRingSlots * kRingStride;
}

[[nodiscard]] constexpr std::size_t segment_size(FifoGeometry geometry) noexcept {
  return tag_table_offset(geometry) + sizeof(TagTable);
}

}  // namespace tern::engine::transport::shm
