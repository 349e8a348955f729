// An endpoint of the shm transport: sends into one peer's receive FIFO,
// which it maps, and moves zero-copy data with CMA.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

#include "offer.hpp"
#include "shared_arena.hpp"
#include "shm_segment.hpp"
#include "tag_table.hpp"
#include "wakeup.hpp"
#include "transport/ep_pending_queue.hpp"
#include "segment_layout.hpp"
#include "transport/fifo.hpp"
#include "transport/ring.hpp"
#include "transport/iface.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::transport::shm {

class ShmIface;

class ShmEp final : public Ep {
 public:
  // What create_ep found out about the peer.
  struct Peer {
    ShmSegment segment;  // the peer's receive segment, mapped
    pid_t pid = 0;
    FifoGeometry geometry;
    WakeupAddress wakeup;
    bool zcopy = false;  // CMA works with this peer
    int arena_fd = -1;   // the peer's shared arena, if any
    uint64_t arena_base = 0;
    uint64_t arena_capacity = 0;
  };

  ShmEp(ShmIface& iface, Peer&& peer) noexcept;
  // Outstanding zero-copy operations finish with Canceled; the peer's
  // segment is unmapped.
  ~ShmEp() override;
  ShmEp(const ShmEp&) = delete;
  ShmEp& operator=(const ShmEp&) = delete;

  [[nodiscard]] Status am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) override;
  [[nodiscard]] ssize_t am_bcopy(uint8_t id, PackCallback pack, void* arg) override;
  [[nodiscard]] Status get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) override;
  [[nodiscard]] Status put_zcopy(const void* local, std::size_t length, RemoteMemory remote,
                                 Completion* comp) override;
  [[nodiscard]] uint64_t offer_zcopy(const void* local, std::size_t length) noexcept override;
  [[nodiscard]] std::byte* map_remote(uint64_t address, std::size_t length) noexcept override {
    return arena_.translate(address, length);
  }
  void withdraw_zcopy(uint64_t key) noexcept override;
  [[nodiscard]] uint64_t peer_unread() noexcept override { return fifo_.unread(); }
  [[nodiscard]] Status tag_offload_send(uint64_t tag, uint64_t sender_uuid, const void* buffer, std::size_t length,
                                        std::size_t unmapped_threshold) override;
  [[nodiscard]] Status pending_add(PendingEntry* entry) override;
  void pending_remove(PendingEntry* entry) override;
  [[nodiscard]] Status flush(Completion* comp) override;
  [[nodiscard]] Status fence() override;
  [[nodiscard]] bool supports_zcopy() const noexcept override { return zcopy_; }

  // For the iface's progress.
  [[nodiscard]] bool pending_empty() const noexcept { return pending_.empty(); }
  [[nodiscard]] pid_t peer_pid() const noexcept { return peer_.pid; }
  // True once, after a send found the peer's FIFO corrupted.
  [[nodiscard]] bool take_failure() noexcept { return std::exchange(failure_to_report_, false); }
  // Whether the send that last returned WouldBlock would now go out.
  [[nodiscard]] bool has_room() noexcept {
    bool room = false;
    switch (waiting_for_) {
      case WaitingFor::RingRoom: room = ring_.has_room(); break;
      case WaitingFor::RingDrained: room = ring_.drained(); break;
      case WaitingFor::FifoRoom: room = fifo_.has_room(); break;
    }
    // No room ever again where the peer's queue is corrupted: say so.
    if (!room) (void)full_or_failed();
    return room;
  }
  unsigned dispatch_pending() { return pending_.dispatch(); }
  [[nodiscard]] bool zcopy_idle() const noexcept { return zcopy_ops_.empty(); }
  // Moves up to `chunk` bytes of the oldest operation and fires the
  // completions that became due. Returns the number of events.
  unsigned progress_zcopy(std::size_t chunk);

  runtime::ListHook iface_hook;    // the iface's endpoints
  runtime::ListHook pending_hook;  // the iface's endpoints with pending entries
  runtime::ListHook zcopy_hook;    // the iface's endpoints with queued zero copy

 private:
  struct ZcopyOp {
    // Split: a get of an offer, shared with its owner (offer.hpp).
    enum class Kind : uint8_t { Get, Put, Flush, Split };
    Kind kind;
    std::byte* local;
    uint64_t remote;
    std::size_t length;
    std::size_t done;  // Get and Put; a Split counts in its slot
    Completion* comp;
    OfferSlot* offer = nullptr;
  };

  [[nodiscard]] Status start_zcopy(ZcopyOp::Kind kind, std::byte* local, std::size_t length, uint64_t remote,
                                   Completion* comp);
  [[nodiscard]] int copy(const ZcopyOp& op, std::size_t length) noexcept;
  // The peer's offer behind `remote`, matched to this get; null when the key
  // does not name a live offer of that memory (the get then copies alone).
  [[nodiscard]] OfferSlot* match_offer(std::byte* local, std::size_t length, RemoteMemory remote) noexcept;
  [[nodiscard]] Status start_split_get(OfferSlot* offer, std::byte* local, std::size_t length, uint64_t remote,
                                       Completion* comp);
  // The next chunk of each queued split, oldest first, from the back of its
  // offer (every chunk left while the owner is busy with copies of its own),
  // in one system call while they are small (kCmaBatchBytes); false when
  // none had one left.
  bool split_steps() noexcept;
  // Pops the oldest operation, fires its completion with `result`, and the
  // flushes right behind it. Returns the number of events.
  unsigned finish_front(Status result);

  // Writes `length` bytes at `offset` of a claimed receive (tag_table.hpp)
  // from the same offset of `buffer`; 0 or an errno.
  int write_claimed(const TagClaim& claim, const void* buffer, uint64_t offset, uint64_t length) noexcept;
  // The same for the whole of a large receive, in chunks that the peer may
  // share (TagCopy in tag_table.hpp); returns once every chunk landed.
  int write_shared(const TagClaim& claim, const void* buffer, uint64_t length) noexcept;
  [[nodiscard]] bool peer_alive() const noexcept;

  void wake_peer_if_armed() noexcept {
    // After the publish: see FifoSender::publish and remote_fence.hpp. It is
    // a plain load on x86 and normally a cache hit: the flag has its own
    // line, which the peer writes only when it goes to sleep.
    if (TERN_UNLIKELY(peer_armed_->load(std::memory_order_seq_cst) != 0)) wake_peer();
  }
  void wake_peer() noexcept;

  // Small messages go through our ring in the peer's segment, if we got one,
  // the rest through its FIFO. The two keep our messages in order because
  // we change from one to the other only once the peer has read all we sent
  // through it: from the FIFO to the ring when it has, else the message
  // stays on the FIFO; from the ring to the FIFO by waiting for it
  // (WouldBlock).
  [[nodiscard]] bool take_ring() noexcept {
    if (on_ring_) return true;
    if (!fifo_.all_mine_read()) return false;
    on_ring_ = true;
    return true;
  }
  [[nodiscard]] bool leave_ring() noexcept {
    if (!on_ring_) return true;
    if (!ring_.drained()) {
      waiting_for_ = WaitingFor::RingDrained;
      return false;
    }
    on_ring_ = false;
    return true;
  }
  void claim_ring(SegmentHeader* header) noexcept;
  // A claim on the peer's FIFO or ring failed: WouldBlock when it is full,
  // IoError (reported once) when it is corrupted.
  [[nodiscard]] Status full_or_failed() noexcept;

  enum class WaitingFor : uint8_t { FifoRoom, RingRoom, RingDrained };

  // Touched by every send.
  RingSender ring_;
  bool on_ring_ = false;
  WaitingFor waiting_for_ = WaitingFor::FifoRoom;
  FifoSender fifo_;
  std::atomic<uint32_t>* peer_armed_;
  // Publish with a release store: the peer fences us (remote_fence) before
  // it sleeps. Otherwise each publish is seq_cst.
  bool light_publish_ = false;
  std::size_t max_short_;
  std::size_t max_bcopy_;
  EpPendingQueue pending_;
  ShmIface& iface_;

  Peer peer_;
  bool zcopy_;
  OfferSlot* peer_offers_;  // in the peer's segment
  TagTable* peer_tags_;     // the peer's offloaded receives, in its segment
  const std::atomic<uint32_t>* peer_copying_;
  PeerArena arena_;  // mapped on the first copy that falls in it
  std::deque<ZcopyOp> zcopy_ops_;
  bool reported_corrupt_ = false;
  bool failure_to_report_ = false;
};

}  // namespace tern::engine::transport::shm
