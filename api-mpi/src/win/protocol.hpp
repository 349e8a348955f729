// Messages between an origin and a served window's agent, on the window's
// private context (its own communicator's context, whose point-to-point
// tags no user ever sees):
//
//   origin -> agent  kTagRequest  RmaHeader, then the target layout (blocks),
//                                 then the origin data, all in one message
//                                 when it fits in kInlineRequest bytes;
//                                 otherwise the header alone (kSeparate) and
//                                 the layout and data as a second message
//                                 on kTagData, which the agent receives
//                                 straight into the window when it can.
//   agent -> origin  kTagReply    gets' data, accumulates' old values: the
//                                 replies of a message's whole requests
//                                 together, in request order, as one
//                                 message once the message is handled;
//                                 a separate request's, and one marked
//                                 kReplyAlone, alone as it is handled
//                    kTagAck      RmaAck: flush, lock, unlock answers
//   either           kTagPost, kTagComplete: MPI_Win_post/complete (MPI p2p)
//
// One origin's messages reach the agent in the order sent (one tag, one
// source), so the agent applies them in order; a flush or unlock is
// answered only once every earlier operation of that origin is applied.
// The agent checks every field: the bytes came from another process.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tern::mpi {

inline constexpr int kTagPost = 1;
inline constexpr int kTagComplete = 2;
inline constexpr unsigned kTagRequest = 3;
inline constexpr unsigned kTagData = 4;
inline constexpr unsigned kTagReply = 5;
inline constexpr unsigned kTagAck = 6;

enum RmaKind : uint32_t {
  kRmaPut = 1,
  kRmaGet,
  kRmaAccumulate,
  kRmaGetAccumulate,
  kRmaCompareSwap,
  kRmaFlush,
  kRmaLockShared,
  kRmaLockExclusive,
  kRmaUnlock,
  kRmaShutdown,  // a window's own rank, at MPI_Win_free: post no more receives
};

enum RmaFlags : uint32_t {
  kSeparate = 1u << 0,    // layout and data follow on kTagData
  kReplyAlone = 1u << 1,  // a whole request's reply leaves at once, alone
};

inline constexpr uint32_t kRmaMagic = 0x544D5741;  // "TMWA"

struct RmaHeader {
  uint32_t magic = kRmaMagic;
  uint32_t kind = 0;
  int32_t origin = 0;       // the sender's window rank (checked against the tag)
  uint32_t flags = 0;
  uint64_t address = 0;     // target address as the target sees it
  uint64_t data_bytes = 0;  // origin data carried (compare-and-swap: twice the element)
  uint64_t span = 0;        // bytes of window the layout reaches from `address`
  uint32_t blocks = 0;      // layout blocks; 0: contiguous, data_bytes long
  int32_t op = 0;           // accumulates
  int32_t basic = 0;        // accumulates: the element type
  uint32_t reserved = 0;
};
static_assert(sizeof(RmaHeader) == 56);

// A piece of the target layout, relative to the header's address.
struct RmaBlock {
  uint64_t offset;
  uint64_t length;
};

struct RmaAck {
  uint32_t magic = kRmaMagic;
  uint32_t kind = 0;
  int32_t error = 0;  // MPI error class of the first operation the agent refused since the last ack
  int32_t reserved = 0;
};

// Puts up to this size travel whole (header, layout and data in one
// message), other requests up to kBatchBytes; larger ones as a header and a
// second message, which the agent receives straight into the window for a
// contiguous put.
inline constexpr std::size_t kInlineRequest = 8192;
// Whole requests to one target travel together in messages of up to this
// size (the agent's posted receive): an origin keeps them until a
// synchronization call, a request with separate data, or a full batch, so
// that a put and the flush after it cost one message (across two hosts, put
// and flush went from 24 to 14 us, and 8-byte puts by the window from 1.3
// to 18 MB/s). 32 KiB of data and room for the header and a few blocks:
// a 32 KiB accumulate went as two messages when it was 32 KiB in all (29
// against 20 us for MPICH across two hosts).
inline constexpr std::size_t kBatchBytes = 32768 + 4096;

// An origin sends its batch before a whole request whose reply would take
// the batch's joint reply beyond this (unless it would be the first): 64
// gets of 2 KiB across two hosts were 64 reply messages, and the window
// took longer than MPICH's from 256 B to 4 KiB.
inline constexpr std::size_t kBatchReplyBytes = 32768;
// Replies larger than these travel alone (kReplyAlone), straight from the
// window into the origin's buffer: joining costs a copy on each side,
// which across hosts saves more than it costs up to a full joint reply,
// and on one host (a message is a copy through shared memory) only for
// small ones: 8 KiB gets by 32 went from 10 to 5-7 GB/s joined.
inline constexpr std::size_t kJoinReplyRemote = kBatchReplyBytes;
inline constexpr std::size_t kJoinReplyLocal = 2048;

// Bytes of a request in a message: the header, and for a whole request its
// layout and the data it carries. Fields checked by the caller first
// (blocks and data_bytes within bounds).
[[nodiscard]] inline uint64_t request_bytes(const RmaHeader& header) noexcept {
  if ((header.flags & kSeparate) != 0) return sizeof(RmaHeader);
  const bool carries_data = header.kind != kRmaGet && header.kind < kRmaFlush;
  return sizeof(RmaHeader) + uint64_t{header.blocks} * sizeof(RmaBlock) + (carries_data ? header.data_bytes : 0);
}

}  // namespace tern::mpi
