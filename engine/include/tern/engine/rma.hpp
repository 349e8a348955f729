// One-sided operations (RMA) on a peer's memory over a transport that has no
// mapping of it (tcp: another host). The model is the seeds' rkey one:
//
//  - The owner registers a range with its worker (Registration) and hands
//    the packed key to its peers through the bootstrap, like a worker
//    address. The key names the owner's worker, the range as the owner sees
//    it, and the transport's handle of the registration (for tcp, the 64-bit
//    key of TcpIface's region table); it is a blob of its own beside
//    MemRegion::packed_key, which stays the on-node mapping key.
//  - A peer unpacks it (RemoteRegion; every field is checked, the bytes came
//    from another process) and issues put, get and atomics on an endpoint to
//    the owner. The range is checked here before anything is sent, and again
//    by the owner, which refuses what it never registered.
//  - The owner calls nothing per operation: its progress() serves them. Tern
//    has no progress thread yet, so a target that is busy outside Tern (in
//    a compute loop, asleep) answers only once it calls into the worker
//    again (progress, a wait, any blocking call).
//
// Completion: a non-blocking call returns Ok (done: the local buffer may be
// reused, a get's data or an atomic's old value is in place), InProgress with
// a Request to wait on (Worker::wait) or test and release, or an error with
// nothing started. A put is complete locally, not yet remotely: flush for
// that. Operations on one endpoint are applied by the target in the order
// issued (tcp is one ordered stream); fence() orders them where a transport
// would not.
//
// Lanes: only transports with registered-memory RMA (tcp) carry these. On a
// self or shm lane the peer's memory is mapped (MemRegion / RemoteKey) and
// loads, stores and CPU atomics are the way; there the calls return
// Unsupported and do nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tern/engine/request.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine {

class Worker;
class Endpoint;

namespace rma {

enum class AtomicOp : uint8_t {
  Add = 1,       // *target += operand
  FetchAdd,      // the same, returning the old value
  Swap,          // *target = operand, returning the old value
  CompareSwap,   // if (*target == compare) *target = operand; returns the old value
  And,
  Or,
  Xor,
  FetchAnd,
  FetchOr,
  FetchXor,
};

// A range of this process's memory that peers may reach through `worker`.
// The memory and the worker must outlive it.
class Registration {
 public:
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

  // InvalidParam for a null base or zero length. Succeeds also where no
  // transport of the worker can serve RMA (the key then reaches no one
  // through tcp, and operations with it return Unsupported).
  [[nodiscard]] static Status create(Worker& worker, const void* base, std::size_t length, Registration*& out);
  static void destroy(Registration* registration) noexcept;

  [[nodiscard]] const void* base() const noexcept { return base_; }
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  // What peers pass to RemoteRegion::unpack.
  [[nodiscard]] const std::vector<std::byte>& packed_key() const noexcept { return packed_; }

 private:
  Registration() = default;
  ~Registration() = default;
  friend struct Access;

  Worker* worker_ = nullptr;
  const void* base_ = nullptr;
  std::size_t length_ = 0;
  uint64_t transport_key_ = 0;
  std::vector<std::byte> packed_;
};

// A peer's registration, unpacked.
class RemoteRegion {
 public:
  RemoteRegion(const RemoteRegion&) = delete;
  RemoteRegion& operator=(const RemoteRegion&) = delete;

  // InvalidParam when the bytes are not a key (wrong size, magic, version,
  // an empty or wrapping range).
  [[nodiscard]] static Status unpack(std::span<const std::byte> packed, RemoteRegion*& out);
  static void destroy(RemoteRegion* region) noexcept;

  // The range as its owner sees it.
  [[nodiscard]] uint64_t base() const noexcept { return base_; }
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  // Whether [address, address + bytes) lies inside it.
  [[nodiscard]] bool contains(uint64_t address, std::size_t bytes) const noexcept {
    return address >= base_ && address - base_ <= length_ && bytes <= length_ - (address - base_);
  }

 private:
  RemoteRegion() = default;
  ~RemoteRegion() = default;
  friend struct Access;

  uint64_t owner_uuid_ = 0;  // the owner's worker: endpoints to anyone else are refused
  uint64_t base_ = 0;
  std::size_t length_ = 0;
  uint64_t transport_key_ = 0;
};

// Whether RMA calls on this endpoint can work (its lane has registered-memory
// RMA). False for self and shm lanes, where the memory is mapped instead.
[[nodiscard]] bool supported(Worker& worker, const Endpoint* endpoint) noexcept;

// --- Non-blocking. `remote_address` is in the owner's address space, inside
// `region`; InvalidParam otherwise, and for an endpoint that does not lead to
// the region's owner. Unsupported on lanes without RMA.
[[nodiscard]] Status put_nb(Worker& worker, Endpoint* endpoint, const void* local, std::size_t length,
                            const RemoteRegion& region, uint64_t remote_address, Request*& request);
[[nodiscard]] Status get_nb(Worker& worker, Endpoint* endpoint, void* local, std::size_t length,
                            const RemoteRegion& region, uint64_t remote_address, Request*& request);
// `size`: 4 or 8 bytes, `remote_address` aligned to it. `result` (may be null
// for the non-fetching ops) receives the old value, zero-extended.
[[nodiscard]] Status atomic_nb(Worker& worker, Endpoint* endpoint, AtomicOp op, unsigned size, uint64_t operand,
                               uint64_t compare, const RemoteRegion& region, uint64_t remote_address,
                               uint64_t* result, Request*& request);
// Remote completion: done once every put and atomic issued on the endpoint
// so far has been applied by the target, and every get has its data.
[[nodiscard]] Status flush_nb(Worker& worker, Endpoint* endpoint, Request*& request);
// Operations issued before the fence are applied before those issued after.
[[nodiscard]] Status fence(Worker& worker, Endpoint* endpoint);

// --- Blocking forms: progress until done (a get's data in place, an atomic's
// old value in `result`, a put's buffer reusable).
[[nodiscard]] Status put(Worker& worker, Endpoint* endpoint, const void* local, std::size_t length,
                         const RemoteRegion& region, uint64_t remote_address);
[[nodiscard]] Status get(Worker& worker, Endpoint* endpoint, void* local, std::size_t length,
                         const RemoteRegion& region, uint64_t remote_address);
[[nodiscard]] Status atomic(Worker& worker, Endpoint* endpoint, AtomicOp op, unsigned size, uint64_t operand,
                            uint64_t compare, const RemoteRegion& region, uint64_t remote_address,
                            uint64_t* result = nullptr);
[[nodiscard]] Status flush(Worker& worker, Endpoint* endpoint);

}  // namespace rma
}  // namespace tern::engine
