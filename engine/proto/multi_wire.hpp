// On-the-wire layout of multi-buffer transfers (multi.hpp). The first header
// travels as the payload of an ordinary tagged message:
//
//   MultiHeader | FrameDescriptor x header_frames | inline bytes
//
// and the chained header, when there is one, lies in the sender's memory
// (where the receiver maps it if it can: the lane's shared arena) for the
// receiver to fetch (continuation_*):
//
//   FrameDescriptor x (frame_count - header_frames) | inline bytes
//
// A frame's inline bytes follow its header's descriptors in frame order;
// the other frames are fetched from `address` with `offer_key`. The first
// header describes the longest run of frames (at most kFramesPerHeader)
// whose small ones all fit in it: a small frame is cheaper carried in the
// chained header, in one fetch with the others, than fetched alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tern::engine::proto {

inline constexpr uint64_t kMultiMagic = 0x32544c554d4e5254;  // "TRNMULT2"
inline constexpr std::size_t kFramesPerHeader = 64;
// The first header message at most: what a receiver posts for it.
inline constexpr std::size_t kMultiHeaderMessageBytes = 8192;
// Frames up to this size (and below the lane's rendezvous threshold) travel
// inline, in a header; larger ones are fetched each by itself, a copy the
// receiver and the sender share.
inline constexpr std::size_t kMultiInlineFrameBytes = 16 * 1024;
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
  uint64_t header_frames;        // frames described in this header; the rest in the chained one
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

static_assert(std::is_trivially_copyable_v<MultiHeader> && sizeof(MultiHeader) == 64);
static_assert(std::is_trivially_copyable_v<FrameDescriptor> && sizeof(FrameDescriptor) == 32);

// Room for inline bytes in the first header message.
inline constexpr std::size_t kMultiFirstInlineBytes =
    kMultiHeaderMessageBytes - sizeof(MultiHeader) - kFramesPerHeader * sizeof(FrameDescriptor);

}  // namespace tern::engine::proto
