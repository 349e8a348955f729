#include "shm_ep.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "cma.hpp"
#include "remote_fence.hpp"
#include "segment_layout.hpp"
#include "shm_iface.hpp"
#include "tern/runtime/copy.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::shm {
namespace {

// Below this, the two system calls of a split cost more than the half copy
// they save.
constexpr std::size_t kMinSplitLength = std::size_t{128} << 10;

}  // namespace

ShmEp::ShmEp(ShmIface& iface, Peer&& peer) noexcept
    : max_short_(peer.geometry.max_message() - sizeof(uint64_t)),
      max_bcopy_(peer.geometry.max_message()),
      iface_(iface),
      peer_(std::move(peer)),
      zcopy_(peer_.zcopy) {
  auto* header = static_cast<SegmentHeader*>(peer_.segment.base());
  fifo_ = FifoSender(&header->fifo, static_cast<std::byte*>(peer_.segment.base()) + kCellsOffset, peer_.geometry);
  peer_armed_ = &header->armed;
  light_publish_ = header->fences_before_sleep != 0 && remote_fence_registered();
  peer_copying_ = &header->copying;
  peer_offers_ = reinterpret_cast<OfferSlot*>(static_cast<std::byte*>(peer_.segment.base()) + kOffersOffset);
  peer_tags_ =
      reinterpret_cast<TagTable*>(static_cast<std::byte*>(peer_.segment.base()) + tag_table_offset(peer_.geometry));
  arena_.describe(peer_.pid, peer_.arena_fd, peer_.arena_base, peer_.arena_capacity);
  claim_ring(header);
}

void ShmEp::claim_ring(SegmentHeader* header) noexcept {
  uint32_t slot = header->rings_claimed.load(std::memory_order_relaxed);
  while (slot < header->ring_slots) {
    if (header->rings_claimed.compare_exchange_weak(slot, slot + 1, std::memory_order_acq_rel,
                                                    std::memory_order_relaxed)) {
      std::byte* at = static_cast<std::byte*>(peer_.segment.base()) + rings_offset(peer_.geometry) + slot * kRingStride;
      ring_ = RingSender(reinterpret_cast<RingControl*>(at), at + sizeof(RingControl), kRingBytes);
      return;
    }
  }
}

ShmEp::~ShmEp() {
  pending_.clear();
  while (!zcopy_ops_.empty()) {
    Completion* comp = zcopy_ops_.front().comp;
    zcopy_ops_.pop_front();
    if (comp != nullptr) comp->finish_one(Status::Canceled);
  }
}

Status ShmEp::am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) {
  if (TERN_UNLIKELY(length > max_short_)) return Status::MessageTooLong;
  if (TERN_UNLIKELY(id >= kMaxAmId || (payload == nullptr && length != 0))) return Status::InvalidParam;
  if (TERN_UNLIKELY(pending_.blocks_sends())) return Status::WouldBlock;
  bool sent;
  if (ring_.attached() && RingSender::fits(length) && take_ring()) {
    sent = light_publish_ ? ring_.send_short<std::memory_order_release>(id, header, payload, length)
                          : ring_.send_short<std::memory_order_seq_cst>(id, header, payload, length);
    if (TERN_UNLIKELY(!sent)) waiting_for_ = WaitingFor::RingRoom;
  } else {
    if (!leave_ring()) return full_or_failed();
    sent = light_publish_ ? fifo_.send_short<std::memory_order_release>(id, header, payload, length)
                          : fifo_.send_short(id, header, payload, length);
    if (TERN_UNLIKELY(!sent)) waiting_for_ = WaitingFor::FifoRoom;
  }
  if (TERN_UNLIKELY(!sent)) return full_or_failed();
  wake_peer_if_armed();
  return Status::Ok;
}

Status ShmEp::full_or_failed() noexcept {
  if (TERN_LIKELY(!fifo_.corrupt() && !ring_.corrupt())) return Status::WouldBlock;
  if (!reported_corrupt_) {
    reported_corrupt_ = true;
    TERN_LOG(Error, "shm: the receive %s of process %d is corrupted (its tail is past its head)",
             fifo_.corrupt() ? "queue" : "ring", static_cast<int>(peer_.pid));
    // Told from the iface's progress, not from inside this send, whose
    // caller is still at work on its queues.
    failure_to_report_ = true;
    iface_.schedule_pending(*this);
  }
  return Status::IoError;
}

Status ShmEp::tag_offload_send(uint64_t tag, uint64_t sender_uuid, const void* buffer, std::size_t length,
                               std::size_t unmapped_threshold) {
  if (!zcopy_ || !anything_posted(*peer_tags_)) return Status::NotFound;
  // A peer waiting in the library shares the copy through the ordinary
  // protocols (and its FIFO is as quick below the rendezvous).
  if (peer_tags_->owner_waiting.load(std::memory_order_relaxed) != 0) return Status::NotFound;
  // Only once the peer has read everything we sent it (each message then
  // matched a receive or waits as unexpected): an earlier message of ours
  // still in its queue could match the receive we would take.
  if (!pending_.empty() || !fifo_.all_mine_read() || (on_ring_ && !ring_.drained())) return Status::NotFound;
  TagClaim claim;
  // A short message is worth the device only where we copy without a system call.
  struct Short {
    PeerArena* arena;
    std::size_t length;
    static bool mapped(void* arg, uint64_t receive, uint64_t capacity) {
      auto& self = *static_cast<Short*>(arg);
      return self.arena->translate(receive, std::min<uint64_t>(self.length, capacity)) != nullptr;
    }
  } short_message{&arena_, length};
  const bool is_short = length < unmapped_threshold;
  if (!claim_posted_receive(*peer_tags_, tag, claim, is_short ? &Short::mapped : nullptr, &short_message)) {
    return Status::NotFound;
  }
  const std::size_t copied = static_cast<std::size_t>(std::min<uint64_t>(length, claim.capacity));
  const int error = copied >= kTagCopyShared ? write_shared(claim, buffer, copied) : write_claimed(claim, buffer, 0, copied);
  finish_claimed_receive(*peer_tags_, claim, sender_uuid, tag, length, error != 0);
  wake_peer_if_armed();
  if (error != 0) {
    TERN_LOG(Error, "shm: cannot write %zu bytes into a receive buffer of process %d: %s", copied,
             static_cast<int>(peer_.pid), std::strerror(error));
    return Status::IoError;
  }
  return Status::Ok;
}

int ShmEp::write_claimed(const TagClaim& claim, const void* buffer, uint64_t offset, uint64_t length) noexcept {
  if (length == 0) return 0;
  const void* from = static_cast<const std::byte*>(buffer) + offset;
  if (std::byte* mapped = arena_.translate(claim.buffer + offset, length)) {
    runtime::copy_bytes(mapped, from, length);
    return 0;
  }
  return cma_write(peer_.pid, from, claim.buffer + offset, length);
}

int ShmEp::write_shared(const TagClaim& claim, const void* buffer, uint64_t length) noexcept {
  TagSlot& slot = peer_tags_->slots[claim.slot];
  const uint64_t chunks = (length + kTagCopyChunk - 1) / kTagCopyChunk;
  slot.copy_source.store(reinterpret_cast<uint64_t>(buffer), std::memory_order_relaxed);
  slot.copy_pid.store(static_cast<uint64_t>(getpid()), std::memory_order_relaxed);
  slot.copy_length.store(length, std::memory_order_relaxed);
  slot.copy_chunk.store(kTagCopyChunk, std::memory_order_relaxed);
  slot.copy_claims.store(chunks << 32, std::memory_order_relaxed);
  slot.copy_done.store(0, std::memory_order_relaxed);
  slot.copy_failed.store(0, std::memory_order_relaxed);
  slot.copy_open.store(tag_generation(claim.state) + 1, std::memory_order_release);
  peer_tags_->copies_open.fetch_add(1, std::memory_order_release);
  int error = 0;
  uint64_t mine = 0;
  TagCopyClaim piece;
  while (claim_copy_chunk(slot, false, chunks, kTagCopyChunk, length, piece)) {
    if (error == 0) error = write_claimed(claim, buffer, piece.offset, piece.length);
    mine += piece.length;
  }
  // The owner's chunks: it reads them from our buffer, which must outlive
  // its reads. It makes each in one system call; a peer that died leaves
  // the job ending anyway, but this send returns rather than spin on.
  for (unsigned spins = 0; slot.copy_done.load(std::memory_order_acquire) + mine < length; ++spins) {
    cpu_relax();
    if ((spins & 0xfffff) == 0xfffff && !peer_alive()) {
      error = ESRCH;
      break;
    }
  }
  slot.copy_open.store(0, std::memory_order_relaxed);
  peer_tags_->copies_open.fetch_sub(1, std::memory_order_release);
  if (error == 0 && slot.copy_failed.load(std::memory_order_relaxed) != 0) error = EFAULT;
  return error;
}

bool ShmEp::peer_alive() const noexcept { return kill(peer_.pid, 0) == 0 || errno != ESRCH; }

ssize_t ShmEp::am_bcopy(uint8_t id, PackCallback pack, void* arg) {
  if (TERN_UNLIKELY(id >= kMaxAmId || pack == nullptr)) return static_cast<ssize_t>(Status::InvalidParam);
  if (TERN_UNLIKELY(pending_.blocks_sends())) return static_cast<ssize_t>(Status::WouldBlock);
  if (!leave_ring()) return static_cast<ssize_t>(full_or_failed());
  const ssize_t result = light_publish_ ? fifo_.send_bcopy<std::memory_order_release>(id, pack, arg, max_bcopy_)
                                        : fifo_.send_bcopy(id, pack, arg, max_bcopy_);
  // Also after a failed pack: its empty cell was published.
  if (result != static_cast<ssize_t>(Status::WouldBlock)) {
    wake_peer_if_armed();
    return result;
  }
  waiting_for_ = WaitingFor::FifoRoom;
  return static_cast<ssize_t>(full_or_failed());
}

void ShmEp::wake_peer() noexcept {
  // Only the sender that takes the flag down pays for the system call.
  if (peer_armed_->exchange(0, std::memory_order_relaxed) != 0) iface_.signal(peer_.wakeup);
}

Status ShmEp::pending_add(PendingEntry* entry) {
  if (!EpPendingQueue::acceptable(entry)) return Status::InvalidParam;
  // Entries already waiting go first, room or not.
  if (pending_.empty() && has_room()) return Status::Busy;
  pending_.push(entry);
  iface_.schedule_pending(*this);
  return Status::Ok;
}

void ShmEp::pending_remove(PendingEntry* entry) {
  if (entry != nullptr) pending_.remove(entry);
}

Status ShmEp::get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) {
  auto* destination = static_cast<std::byte*>(local);
  if (remote.key != 0 && length != 0) {
    if (OfferSlot* offer = match_offer(destination, length, remote)) {
      return start_split_get(offer, destination, length, remote.address, comp);
    }
  }
  return start_zcopy(ZcopyOp::Kind::Get, destination, length, remote.address, comp);
}

uint64_t ShmEp::offer_zcopy(const void* local, std::size_t length) noexcept {
  // A buffer in our arena is mapped by the peer, which copies it faster alone.
  if (!zcopy_ || !iface_.split_copies() || length < kMinSplitLength || iface_.mem_owns(local, length)) {
    return 0;
  }
  return iface_.offers().offer(local, length, peer_.pid);
}

void ShmEp::withdraw_zcopy(uint64_t key) noexcept { iface_.offers().withdraw(key); }

OfferSlot* ShmEp::match_offer(std::byte* local, std::size_t length, RemoteMemory remote) noexcept {
  const uint32_t index = offer_index(remote.key);
  if (!zcopy_ || local == nullptr || index >= kOfferSlots || arena_.translate(remote.address, length) != nullptr) {
    return nullptr;
  }
  OfferSlot& slot = peer_offers_[index];
  if (slot.generation != offer_generation(remote.key) || slot.source != remote.address || slot.length < length) {
    return nullptr;
  }
  slot.target = reinterpret_cast<uint64_t>(local);
  slot.copy_length = length;
  slot.chunk = offer_chunk(length, iface_.cma_chunk());
  const uint64_t chunks = (length + slot.chunk - 1) / slot.chunk;
  slot.claims.store(chunks << 32, std::memory_order_relaxed);
  slot.done.store(0, std::memory_order_relaxed);
  slot.failed.store(0, std::memory_order_relaxed);
  // Release: the owner that sees Matched sees the fields above.
  auto expected = static_cast<uint32_t>(OfferState::Offered);
  if (!slot.state.compare_exchange_strong(expected, static_cast<uint32_t>(OfferState::Matched),
                                          std::memory_order_acq_rel)) {
    return nullptr;
  }
  return &slot;
}

Status ShmEp::start_split_get(OfferSlot* offer, std::byte* local, std::size_t length, uint64_t remote,
                              Completion* comp) {
  const bool alone = zcopy_ops_.empty();
  zcopy_ops_.push_back(ZcopyOp{ZcopyOp::Kind::Split, local, remote, length, 0, comp, offer});
  if (alone) {
    // Our first chunk now, while the owner takes its own from the front.
    split_steps();
    if (offer->done.load(std::memory_order_acquire) == length) {
      zcopy_ops_.pop_back();
      return offer->failed.load(std::memory_order_relaxed) != 0 ? Status::IoError : Status::Ok;
    }
  }
  iface_.schedule_zcopy(*this);
  return Status::InProgress;
}

bool ShmEp::split_steps() noexcept {
  const bool owner_busy = peer_copying_->load(std::memory_order_relaxed) != 0;
  CmaPiece pieces[kCmaBatchPieces];
  OfferSlot* offers[kCmaBatchPieces];
  std::size_t count = 0;
  std::size_t bytes = 0;
  // The next chunk of each queued split, oldest first, while the batch is
  // small; a large one goes alone.
  for (const ZcopyOp& op : zcopy_ops_) {
    if (op.kind != ZcopyOp::Kind::Split || count == kCmaBatchPieces) break;
    if (count != 0 && (bytes >= kCmaBatchBytes || op.length > kCmaBatchBytes)) break;
    OfferClaim claim;
    if (!claim_offer_chunks(*op.offer, true, owner_busy, claim)) continue;  // the owner has the rest
    pieces[count] = {op.local + claim.offset, op.remote + claim.offset, claim.length, 0};
    offers[count] = op.offer;
    bytes += claim.length;
    ++count;
  }
  if (count == 0) return false;
  cma_read_pieces(peer_.pid, {pieces, count});
  for (std::size_t i = 0; i < count; ++i) {
    if (pieces[i].error != 0) {
      TERN_LOG(Error, "shm: process_vm_readv of %zu bytes from process %d failed: %s", pieces[i].length,
               static_cast<int>(peer_.pid), std::strerror(pieces[i].error));
      offers[i]->failed.store(1, std::memory_order_relaxed);
    }
    offers[i]->done.fetch_add(pieces[i].length, std::memory_order_release);
  }
  return true;
}

Status ShmEp::put_zcopy(const void* local, std::size_t length, RemoteMemory remote, Completion* comp) {
  // A put only reads `local`; the op keeps one pointer type for both kinds.
  return start_zcopy(ZcopyOp::Kind::Put, const_cast<std::byte*>(static_cast<const std::byte*>(local)), length,
                     remote.address, comp);
}

Status ShmEp::start_zcopy(ZcopyOp::Kind kind, std::byte* local, std::size_t length, uint64_t remote,
                          Completion* comp) {
  if (!zcopy_ && arena_.translate(remote, length) == nullptr) return Status::Unsupported;
  if (length != 0 && (local == nullptr || remote == 0 || remote + length < remote)) return Status::InvalidParam;
  ZcopyOp op{kind, local, remote, length, 0, comp};
  if (zcopy_ops_.empty()) {
    // Nothing earlier to wait for: move the first chunk now, which below
    // cma_chunk is the whole operation, done without queueing.
    const std::size_t first = std::min(length, iface_.cma_chunk());
    if (first != 0) {
      if (int error = copy(op, first); error != 0) {
        TERN_LOG(Error, "shm: %s of %zu bytes with process %d: %s",
                 kind == ZcopyOp::Kind::Get ? "process_vm_readv" : "process_vm_writev", first,
                 static_cast<int>(peer_.pid), std::strerror(error));
        return Status::IoError;
      }
      op.done = first;
    }
    if (op.done == length) return Status::Ok;
  }
  // Behind earlier operations even when small: completions (and the data
  // they cover) go in issue order.
  zcopy_ops_.push_back(op);
  iface_.schedule_zcopy(*this);
  return Status::InProgress;
}

int ShmEp::copy(const ZcopyOp& op, std::size_t length) noexcept {
  // The peer's shared arena is mapped here: a plain copy at memory speed.
  if (std::byte* mapped = arena_.translate(op.remote + op.done, length)) {
    if (op.kind == ZcopyOp::Kind::Get) {
      runtime::copy_bytes(op.local + op.done, mapped, length);
    } else {
      runtime::copy_bytes(mapped, op.local + op.done, length);
    }
    return 0;
  }
  if (op.kind == ZcopyOp::Kind::Get) return cma_read(peer_.pid, op.local + op.done, op.remote + op.done, length);
  return cma_write(peer_.pid, op.local + op.done, op.remote + op.done, length);
}

unsigned ShmEp::progress_zcopy(std::size_t chunk) {
  if (zcopy_ops_.empty()) return 0;
  ZcopyOp& op = zcopy_ops_.front();
  if (op.kind == ZcopyOp::Kind::Split) {
    unsigned events = split_steps() ? 1 : 0;
    // Acquire: the owner's chunks are in our buffer once they are counted.
    // A batch may have finished several.
    while (!zcopy_ops_.empty() && zcopy_ops_.front().kind == ZcopyOp::Kind::Split) {
      const ZcopyOp& front = zcopy_ops_.front();
      if (front.offer->done.load(std::memory_order_acquire) < front.length) break;
      events += finish_front(front.offer->failed.load(std::memory_order_relaxed) != 0 ? Status::IoError : Status::Ok);
    }
    return events;
  }
  Status result = Status::Ok;
  if (op.done < op.length) {
    const std::size_t length = std::min(chunk, op.length - op.done);
    if (int error = copy(op, length); error != 0) {
      TERN_LOG(Error, "shm: zero copy of %zu bytes with process %d failed: %s", length,
               static_cast<int>(peer_.pid), std::strerror(error));
      result = Status::IoError;
    } else {
      op.done += length;
      if (op.done < op.length) return 1;
    }
  }
  return finish_front(result);
}

unsigned ShmEp::finish_front(Status result) {
  // Off the queue before the callback, which may issue more operations.
  Completion* comp = zcopy_ops_.front().comp;
  zcopy_ops_.pop_front();
  unsigned events = 1;
  if (comp != nullptr) comp->finish_one(result);
  // Flushes right behind it have nothing left to wait for.
  while (!zcopy_ops_.empty() && zcopy_ops_.front().kind == ZcopyOp::Kind::Flush) {
    comp = zcopy_ops_.front().comp;
    zcopy_ops_.pop_front();
    if (comp != nullptr) comp->finish_one(Status::Ok);
    ++events;
  }
  return events;
}

// Short and bcopy complete inside their calls; only zero copy can be left.
Status ShmEp::flush(Completion* comp) {
  if (zcopy_ops_.empty()) return Status::Ok;
  if (comp != nullptr) zcopy_ops_.push_back(ZcopyOp{ZcopyOp::Kind::Flush, nullptr, 0, 0, 0, comp});
  return Status::InProgress;
}

// Operations on an endpoint already run in issue order.
Status ShmEp::fence() { return Status::Ok; }

}  // namespace tern::engine::transport::shm

