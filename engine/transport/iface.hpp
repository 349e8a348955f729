// The transport contract (one Iface per worker and transport, one Ep per peer).
//
// Sends come in three kinds:
//  - short and bcopy: complete at once (the buffer may be reused on return) or
//    return WouldBlock. They never return InProgress.
//  - zcopy (get, put): may return InProgress; the caller's Completion fires
//    once the transport is done with the caller's buffer. Completions on one
//    Ep fire in the order the operations were issued.
// A WouldBlock send may be retried later; to be told when, queue a
// PendingEntry with pending_add. Active messages are delivered in order per
// sender, from inside Iface::progress(), to the handler registered for their id.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "atomic.hpp"
#include "completion.hpp"
#include "pending.hpp"
#include "tag_device.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine::transport {

inline constexpr unsigned kMaxAmId = 32;

// Handler for an incoming active message. `data` is only valid during the
// call: the handler copies what it keeps. `length` counts the 8-byte header
// of am_short (first 8 bytes of `data`) as part of the message. Every byte
// came from a peer and may be anything: the handler checks what it reads
// (once: `data` may lie in memory the peer still writes) and returns false
// for a malformed message, which the transport then holds against the
// connection it came on where it knows one (tcp drops it).
using AmHandler = bool (*)(void* arg, const void* data, std::size_t length);

class Ep;
class Iface;

// Told when a transport gives up on a peer because of what it received:
// the peer broke the protocol and its endpoint `lane` now fails every
// operation; or, with `lane` null, `iface` can no longer receive from any
// peer (its receive FIFO was found corrupted). `why` is for the log.
using FailureHandler = void (*)(void* arg, Iface* iface, Ep* lane, const char* why);

// Fills `dest` (at most `capacity` bytes) and returns the number of bytes written.
using PackCallback = std::size_t (*)(void* dest, std::size_t capacity, void* arg);

enum IfaceFlag : uint32_t {
  kCapAmShort = 1u << 0,
  kCapAmBcopy = 1u << 1,
  kCapGetZcopy = 1u << 2,
  kCapPutZcopy = 1u << 3,
  kCapWakeup = 1u << 4,
  // Only this iface's own endpoints send to it (loopback): nothing can
  // arrive before one exists, so the worker need not poll it until then.
  kCapLoopback = 1u << 5,
  // Registered-memory RMA: peers put, get and run atomics on memory this
  // iface registered (mem_register), served by this side's progress(); the
  // Ep offers atomic().
  kCapRma = 1u << 6,
};

struct IfaceAttr {
  const char* name = "";
  uint32_t flags = 0;
  std::size_t max_short = 0;   // payload bytes of am_short, header excluded
  std::size_t max_bcopy = 0;   // bytes a pack callback may write
  std::size_t max_zcopy = 0;   // largest get/put in one call (SIZE_MAX: no limit)
  std::size_t rndv_threshold = 0;  // where zero copy starts to pay off (measured default)
  // The same for buffers from this iface's mem_alloc, which peers map.
  std::size_t rndv_threshold_mapped = 0;
  // Below this, a message from ordinary memory still goes eager when the
  // peer has next to nothing unread (Ep::peer_unread): copies through an empty
  // FIFO overlap end to end, while a zero copy pays its fixed cost. Equal to
  // rndv_threshold where the transport has no such query.
  std::size_t rndv_threshold_drained = 0;
  // From this size on (up to rndv_threshold_drained), a message to a peer
  // with next to nothing unread goes as the endpoint's ProtocolMeter finds
  // cheaper. Equal to rndv_threshold where the transport has no such query.
  std::size_t rndv_threshold_metered = 0;
  int priority = 0;            // higher wins when several reach a peer
};

// Where a peer's memory is, for get/put: a remote address plus the key the
// transport needs (for shm/CMA nothing beyond the peer's process, or the
// peer's offer of that memory: see Ep::offer_zcopy).
struct RemoteMemory {
  uint64_t address = 0;
  uint64_t key = 0;
};

class Ep {
 public:
  virtual ~Ep() = default;

  // One message of `sizeof(header) + length` bytes, length <= max_short.
  [[nodiscard]] virtual Status am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) = 0;

  // One message whose bytes `pack` writes (at most max_bcopy). Returns the
  // packed length, or a negative Status (WouldBlock) cast to ssize_t.
  [[nodiscard]] virtual ssize_t am_bcopy(uint8_t id, PackCallback pack, void* arg) = 0;

  // Copy `length` bytes from the peer's memory into `local`.
  [[nodiscard]] virtual Status get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) = 0;
  // Copy `length` bytes from `local` into the peer's memory.
  [[nodiscard]] virtual Status put_zcopy(const void* local, std::size_t length, RemoteMemory remote,
                                         Completion* comp) = 0;

  // Split zero copy. The owner of `local` offers it before telling the peer
  // where it is; a get_zcopy of it by the peer, with the returned key, then
  // shares the copying with the owner, whose progress() moves part of the
  // data while the peer moves the rest. Returns 0 when the transport has no
  // offer to give (the peer's get then copies everything). The owner
  // withdraws the offer only after the peer has reported its get complete.
  // Where the peer's [address, address + length) is mapped in this process,
  // if it is (shm: the peer's shared arena); null otherwise. The mapping
  // lasts as long as the endpoint.
  [[nodiscard]] virtual std::byte* map_remote(uint64_t /*address*/, std::size_t /*length*/) noexcept {
    return nullptr;
  }
  [[nodiscard]] virtual uint64_t offer_zcopy(const void* /*local*/, std::size_t /*length*/) noexcept { return 0; }
  virtual void withdraw_zcopy(uint64_t /*key*/) noexcept {}

  // Active messages sent to the peer so far, by any sender, that it has not
  // read yet (UINT64_MAX where the transport cannot tell). May cost a cache
  // miss.
  [[nodiscard]] virtual uint64_t peer_unread() noexcept { return UINT64_MAX; }

  // Queue `entry` to be called when resources free up. Returns Busy (and does
  // not queue) if resources are already available: retry at once instead.
  [[nodiscard]] virtual Status pending_add(PendingEntry* entry) = 0;
  // Removes an entry that was queued and not yet dispatched.
  virtual void pending_remove(PendingEntry* entry) = 0;

  // Whether get/put zero copy works to this peer (a kernel may refuse CMA
  // for one peer and not another); when false the engine copies through
  // active messages instead.
  [[nodiscard]] virtual bool supports_zcopy() const noexcept { return true; }

  // How this endpoint reaches its peer, where the transport's name does
  // not say it all ("on eth0"); empty otherwise.
  [[nodiscard]] virtual std::string route() const { return {}; }

  // An atomic on the peer's registered memory (kCapRma): InProgress, then
  // `comp` finishes once the peer applied it and `args.result` holds the old
  // value; the error the peer reported (a range it never registered) ends
  // the completion instead. Unsupported where the transport has none.
  [[nodiscard]] virtual Status atomic(const AtomicArgs& /*args*/, RemoteMemory /*remote*/, Completion* /*comp*/) {
    return Status::Unsupported;
  }

  // Tag-matching offload (tag_device.hpp): delivers a message of `length`
  // bytes tagged `tag` straight into a receive the peer posted to its tag
  // device, and returns Ok (the message is delivered and matched), IoError
  // (it was matched but the receive buffer could not be written; the
  // receiver is told too), or NotFound: no posted receive matched it, or the
  // device may not be used now; the message then goes the ordinary way.
  // Below `unmapped_threshold` bytes only a receive the sender fills with a
  // plain copy (memory it maps) is taken.
  [[nodiscard]] virtual Status tag_offload_send(uint64_t /*tag*/, uint64_t /*sender_uuid*/, const void* /*buffer*/,
                                                std::size_t /*length*/, std::size_t /*unmapped_threshold*/) {
    return Status::NotFound;
  }
  // Whether tag_offload_send's Ok says a posted receive took the message
  // (shm), or only that it left for the peer's device, which may find no
  // receive for it (verbs): a synchronous send needs the former.
  [[nodiscard]] virtual bool tag_offload_matches_at_send() const noexcept { return true; }
  // Ok when every operation issued so far has completed; otherwise InProgress
  // and `comp` (if not null) finishes once they have.
  [[nodiscard]] virtual Status flush(Completion* comp) = 0;
  // Orders operations issued before the fence before those issued after.
  [[nodiscard]] virtual Status fence() = 0;
};

class Iface {
 public:
  virtual ~Iface() = default;

  [[nodiscard]] virtual const IfaceAttr& attr() const noexcept = 0;

  // Delivers received messages and dispatches pending queues and zcopy
  // completions. Returns the number of events handled.
  virtual unsigned progress() = 0;

  virtual void set_am_handler(uint8_t id, AmHandler handler, void* arg) = 0;

  // This iface's address: what a peer passes to create_ep.
  [[nodiscard]] virtual std::vector<std::byte> address() const = 0;
  // True when this iface can reach the iface whose address this is.
  [[nodiscard]] virtual bool is_reachable(std::span<const std::byte> remote_address) const = 0;
  // A new endpoint to the peer, or null with `status` set.
  [[nodiscard]] virtual Ep* create_ep(std::span<const std::byte> remote_address, Status& status) = 0;
  virtual void destroy_ep(Ep* ep) = 0;

  // Wakeup: a file descriptor that becomes readable when an event arrives
  // after arm() returned Ok; -1 if the iface has none.
  [[nodiscard]] virtual int event_fd() const noexcept = 0;
  // Ok when armed; Busy when events are already waiting (progress first).
  [[nodiscard]] virtual Status arm() = 0;
  // Consumes the wakeup notification after the fd fired.
  virtual void disarm() = 0;

  // The device that takes posted receives for tag-matching offload; null
  // where the transport has none (or it is switched off).
  [[nodiscard]] virtual TagDevice* tag_device() noexcept { return nullptr; }
  // Removes the names this iface gave to shared resources (shm segments), so
  // that a process about to die abruptly leaves nothing in /dev/shm. Peers
  // already attached keep working; new ones can no longer attach.
  virtual void release_shared_names() noexcept {}

  // Registers [base, base + length) for peers' get, put and atomics (kCapRma):
  // the key they name it by (RemoteMemory::key), 0 when the transport has no
  // such registration. The memory must stay valid until mem_deregister.
  [[nodiscard]] virtual uint64_t mem_register(const void* /*base*/, std::size_t /*length*/) { return 0; }
  virtual void mem_deregister(uint64_t /*key*/) noexcept {}

  // Memory that this transport's peers can reach faster than arbitrary
  // memory (for shm: mapped by local peers, so zero copy is a memcpy).
  // Null when the transport has none to give.
  [[nodiscard]] virtual void* mem_alloc(std::size_t /*size*/) noexcept { return nullptr; }
  // False when `pointer` did not come from this iface's mem_alloc.
  virtual bool mem_free(void* /*pointer*/) noexcept { return false; }
  // True when [pointer, pointer + length) lies in this iface's mem_alloc memory.
  [[nodiscard]] virtual bool mem_owns(const void* /*pointer*/, std::size_t /*length*/) const noexcept {
    return false;
  }
};

}  // namespace tern::engine::transport
