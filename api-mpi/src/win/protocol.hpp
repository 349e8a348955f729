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
//   agent -> origin  kTagReply    a get's data, an accumulate's old values
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
  kSeparate = 1u << 0,  // layout and data follow on kTagData
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

// Whole requests up to this size travel as one message (the agent's
// posted receive).
inline constexpr std::size_t kInlineRequest = 8192;

}  // namespace tern::mpi
