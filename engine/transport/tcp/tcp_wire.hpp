// The byte stream between two TCP ifaces: a handshake frame each way, then
// frames of a fixed 8-byte header and `length` bytes. Every field read from a
// socket is checked before use (see TcpConnection::parse).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "transport/atomic.hpp"

namespace tern::engine::transport::tcp {

inline constexpr uint32_t kHandshakeMagic = 0x50435454;  // "TTCP"
inline constexpr uint16_t kHandshakeVersion = 1;
inline constexpr std::size_t kSecretBytes = 16;

enum class FrameType : uint8_t {
  Handshake = 1,   // HandshakeBody: first frame of each side
  Am = 2,          // an active message: [8-byte header][payload]
  GetRequest = 3,  // GetRequestBody: send me bytes of your memory
  GetReply = 4,    // GetReplyBody + data: bytes for one of my gets
  Put = 5,         // PutBody + data: write into your memory
  Flush = 6,       // FlushBody: answer once everything before has been applied
  FlushReply = 7,  // FlushBody
  Atomic = 8,      // AtomicBody: an atomic on your memory
  AtomicReply = 9, // AtomicReplyBody
};
inline constexpr uint8_t kLastFrameType = 9;

struct FrameHeader {
  uint32_t length;  // bytes after this header
  uint8_t type;     // FrameType
  uint8_t am_id;    // Am: the handler's id
  uint16_t reserved;
};

enum class HandshakeKind : uint16_t {
  Hello = 1,   // from the side that connected
  Accept = 2,  // this connection carries the pair's traffic
  Reject = 3,  // the other side's connection wins a simultaneous connect
};

struct HandshakeBody {
  uint32_t magic;
  uint16_t version;
  uint16_t kind;                      // HandshakeKind
  uint64_t worker_uuid;               // the sender's
  uint8_t secret[kSecretBytes];       // Hello: the acceptor's secret, from its address
};

struct GetRequestBody {
  uint64_t address;  // in the replier's memory
  uint64_t key;      // a region the replier registered (an offer or a memory key)
  uint64_t length;
  uint64_t get_id;   // the requester's, echoed in every reply
};

struct GetReplyBody {
  uint64_t get_id;
  uint64_t offset;  // where this chunk goes in the get's buffer
  int64_t status;   // tern::Status; an error carries no data
};

struct PutBody {
  uint64_t address;
  uint64_t key;
};

struct FlushBody {
  uint64_t flush_id;
};

// An Atomic frame's op is a transport::AtomicOp (transport/atomic.hpp), whose
// values are part of this wire format.
using transport::AtomicOp;

struct AtomicBody {
  uint64_t address;
  uint64_t key;
  uint64_t operand;
  uint64_t compare;
  uint64_t reply_id;  // 0: no reply wanted
  uint8_t op;         // transport::AtomicOp
  uint8_t size;       // 4 or 8
  uint8_t reserved[6];
};

struct AtomicReplyBody {
  uint64_t reply_id;
  uint64_t value;  // the old value
  int64_t status;
};

static_assert(sizeof(FrameHeader) == 8 && std::is_trivially_copyable_v<FrameHeader>);
static_assert(sizeof(HandshakeBody) == 32 && sizeof(GetRequestBody) == 32 && sizeof(GetReplyBody) == 24);
static_assert(sizeof(PutBody) == 16 && sizeof(AtomicBody) == 48 && sizeof(AtomicReplyBody) == 24);

}  // namespace tern::engine::transport::tcp
