// On-the-wire layout of multi-buffer transfers (multi.hpp). The first header
// travels as the payload of an ordinary tagged message:
//
//   MultiHeader | FrameDescriptor x min(frame_count, kFramesPerHeader) | inline bytes
//
// and the chained header, when there is one, lies in the sender's memory
// for the receiver to fetch (continuation_*):
//
//   FrameDescriptor x (frame_count - kFramesPerHeader) | inline bytes
//
// A frame's inline bytes follow its header's descriptors in frame order;
// the other frames are fetched from `address` with `offer_key`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tern::engine::proto {

inline constexpr uint64_t kMultiMagic = 0x31544c554d4e5254;  // "TRNMULT1"
inline constexpr std::size_t kFramesPerHeader = 64;
// The first header message at most: what a receiver posts for it.
inline constexpr std::size_t kMultiHeaderMessageBytes = 8192;
// Inline bytes in the chained header at most (beyond, frames are fetched).
inline constexpr std::size_t kMultiContinuationInlineBytes = std::size_t{16} << 20;

struct MultiHeader {
  uint64_t magic;
  uint64_t sender_uuid;
  uint64_t ack_id;  // the sender's transfer, acknowledged once every frame is in; 0: nothing to fetch
  uint64_t frame_count;
  uint64_t continuation_address;
  uint64_t continuation_key;
  uint64_t continuation_length;  // 0: no chained header
};

enum FrameFlags : uint32_t {
  kFrameInline = 1u << 0,  // the bytes follow in the header that describes it
};

struct FrameDescriptor {
  uint64_t size;
  uint64_t address;    // fetched frames: where they are in the sender
  uint64_t offer_key;  // the lane's offer of it (Ep::offer_zcopy); 0: none
  uint8_t kind;        // MemoryKind
  uint8_t reserved[3];
  uint32_t flags;      // FrameFlags
};

static_assert(std::is_trivially_copyable_v<MultiHeader> && sizeof(MultiHeader) == 56);
static_assert(std::is_trivially_copyable_v<FrameDescriptor> && sizeof(FrameDescriptor) == 32);

// Room for inline bytes in the first header message.
inline constexpr std::size_t kMultiFirstInlineBytes =
    kMultiHeaderMessageBytes - sizeof(MultiHeader) - kFramesPerHeader * sizeof(FrameDescriptor);

}  // namespace tern::engine::proto
