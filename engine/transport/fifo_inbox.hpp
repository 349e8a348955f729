// The receiving side of a FIFO transport: polls the FIFO, and the rings of
// senders that have one (ring.hpp), and hands each message, in order, to the
// active message handler registered for its id. A sender keeps its own
// messages in order across the two (shm_ep.hpp); messages of different
// senders have no order between them.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fifo.hpp"
#include "iface.hpp"
#include "ring.hpp"

namespace tern::engine::transport {

class FifoInbox {
 public:
  FifoInbox() noexcept { handlers_.fill({&drop, nullptr}); }
  FifoInbox(const FifoInbox&) = delete;
  FifoInbox& operator=(const FifoInbox&) = delete;

  void attach(FifoIndices* indices, std::byte* cells, FifoGeometry geometry) noexcept {
    rx_ = FifoReceiver(indices, cells, geometry);
  }

  // Rings at `base`, `stride` bytes apart (a RingControl, then `bytes` of
  // data), of which senders have claimed `*claimed` (at most `slots`).
  void attach_rings(const std::atomic<uint32_t>* claimed, uint32_t slots, std::byte* base, std::size_t stride,
                    std::size_t bytes) noexcept {
    rings_claimed_ = claimed;
    ring_slots_ = slots;
    ring_base_ = base;
    ring_stride_ = stride;
    ring_bytes_ = bytes;
  }

  // Ids past kMaxAmId are ignored; a null handler drops the id's messages
  // (counted as rejected: no sender uses an id nobody handles).
  void set_handler(uint8_t id, AmHandler handler, void* arg) noexcept {
    if (id >= kMaxAmId) return;
    handlers_[id] = handler != nullptr ? Slot{handler, arg} : Slot{&drop, nullptr};
  }

  [[nodiscard]] const FifoReceiver& receiver() const noexcept { return rx_; }

  // Messages dropped here or refused by their handler so far.
  [[nodiscard]] uint64_t rejected() const noexcept { return rejected_; }

  // The FIFO's state from its shared indices (see FifoReceiver::health),
  // with a bound on how long a claimed cell may stay unpublished: a sender
  // writes its cell within microseconds of claiming it, so one that stays
  // empty past `stall_limit_ns` is a hole no sender will fill (a trashed
  // head), and waiting for it would hang the receiver.
  [[nodiscard]] FifoReceiver::Health health(uint64_t now_ns, uint64_t stall_limit_ns) noexcept {
    if (TERN_UNLIKELY(ring_garbled())) return FifoReceiver::Health::Corrupt;
    const FifoReceiver::Health health = rx_.health();
    if (health != FifoReceiver::Health::Waiting) {
      stalled_ = false;
      return health;
    }
    if (!stalled_ || stalled_tail_ != rx_.tail()) {
      stalled_ = true;
      stalled_tail_ = rx_.tail();
      stalled_since_ns_ = now_ns;
      return health;
    }
    return now_ns - stalled_since_ns_ > stall_limit_ns ? FifoReceiver::Health::Corrupt : health;
  }

  // Stops reading the FIFO and the rings for good (they are corrupted):
  // later polls find nothing.
  void detach() noexcept {
    DeadFifo& dead = dead_fifo();
    rx_ = FifoReceiver(&dead.indices, dead.cells, kDeadGeometry);
    rings_claimed_ = nullptr;
    rings_.clear();
  }

  // Delivers up to `limit` messages. A handler may send (even to this
  // FIFO) and may call progress again: a nested call delivers the following
  // messages but leaves releasing cells to the outermost one, which alone
  // knows that every handler reading a popped cell has returned.
  unsigned poll(unsigned limit) {
    const bool outermost = depth_++ == 0;
    unsigned count = 0;
    while (count < limit) {
      FifoCellHeader* cell = rx_.peek();
      if (cell == nullptr) break;
      rx_.pop(cell);
      if (TERN_LIKELY((cell->flags & kFifoCellSkip) == 0)) {
        // The table covers every 8-bit id, so an id from a confused peer
        // needs no check: unknown ids reach `drop`. Fields are read once:
        // the cell is memory other processes can write.
        const Slot& slot = handlers_[cell->am_id];
        const std::size_t length = cell->length;
        if (TERN_UNLIKELY(length > rx_.max_message() ||
                          !slot.handler(slot.arg, FifoReceiver::data(cell), length))) {
          ++rejected_;
        }
      }
      ++count;
      if (outermost && rx_.batch_full()) rx_.publish_tail();
    }
    if (outermost) rx_.publish_tail();
    if (rings_claimed_ != nullptr) count += poll_rings(outermost);
    // Beside depth_, whose line every poll writes anyway: no store of its own.
    if (count == 0) ++idle_polls_;
    --depth_;
    return count;
  }

  // Once every kIdlePollsPerCheck empty polls: time to look at the shared
  // indices (health()), which reads the senders' line.
  static constexpr uint32_t kIdlePollsPerCheck = 1u << 16;
  [[nodiscard]] bool idle_check_due() const noexcept { return (idle_polls_ & (kIdlePollsPerCheck - 1)) == 0; }

  [[nodiscard]] bool ready() { return rx_.peek() != nullptr || ring_ready<std::memory_order_acquire>(); }
  [[nodiscard]] bool ready_seq_cst() { return rx_.ready_seq_cst() || ring_ready<std::memory_order_seq_cst>(); }

 private:
  struct Slot {
    AmHandler handler;
    void* arg;
  };

  static bool drop(void*, const void*, std::size_t) noexcept { return false; }

  // What detach() points receivers at: cells that never fill, shared and
  // never written (a receiver that pops nothing publishes nothing).
  static constexpr FifoGeometry kDeadGeometry{FifoGeometry::kMinCells, FifoGeometry::kMinCellSize};
  struct DeadFifo {
    FifoIndices indices;
    alignas(kCacheLine) std::byte cells[FifoGeometry::kMinCells * FifoGeometry::kMinCellSize];
    DeadFifo() noexcept { fifo_init(&indices, cells, kDeadGeometry); }
  };
  static DeadFifo& dead_fifo() noexcept {
    static DeadFifo fifo;
    return fifo;
  }

  template <std::memory_order Order>
  [[nodiscard]] bool ring_ready() {
    if (rings_claimed_ != nullptr && rings_claimed_->load(std::memory_order_acquire) != rings_adopted_) {
      adopt_claimed_rings();
    }
    for (const RingReceiver& ring : rings_) {
      if (ring.peek<Order>() != nullptr) return true;
    }
    return false;
  }

  [[nodiscard]] bool ring_garbled() const noexcept {
    for (const RingReceiver& ring : rings_) {
      if (ring.garbled()) return true;
    }
    return false;
  }

  // Every record each ring holds now: a ring is at most a window of small
  // messages, and its sender waits for room until we read them.
  unsigned poll_rings(bool outermost) {
    if (TERN_UNLIKELY(rings_claimed_->load(std::memory_order_acquire) != rings_adopted_)) adopt_claimed_rings();
    unsigned count = 0;
    for (RingReceiver& ring : rings_) {
      while (const RingRecordHeader* record = ring.peek()) {
        ring.pop();
        const Slot& slot = handlers_[record->am_id];
        const std::size_t length = record->length;
        if (TERN_UNLIKELY(length > kRingMaxMessage ||
                          !slot.handler(slot.arg, RingReceiver::data(record), length))) {
          ++rejected_;
        }
        ++count;
      }
      // As with the FIFO, only the outermost call knows that no handler
      // still reads a popped record.
      if (outermost) ring.publish_tail();
    }
    return count;
  }

  void adopt_claimed_rings() {
    // Past the last slot the count keeps what senders tried: no more rings.
    rings_adopted_ = rings_claimed_->load(std::memory_order_acquire);
    const uint32_t claimed = std::min(rings_adopted_, ring_slots_);
    while (rings_.size() < claimed) {
      std::byte* at = ring_base_ + rings_.size() * ring_stride_;
      rings_.emplace_back(reinterpret_cast<RingControl*>(at), at + sizeof(RingControl), ring_bytes_);
    }
  }

  FifoReceiver rx_;
  unsigned depth_ = 0;
  uint32_t idle_polls_ = 0;  // in the padding before handlers_
  std::array<Slot, 256> handlers_;
  const std::atomic<uint32_t>* rings_claimed_ = nullptr;
  uint32_t ring_slots_ = 0;
  uint32_t rings_adopted_ = 0;
  std::byte* ring_base_ = nullptr;
  std::size_t ring_stride_ = 0;
  std::size_t ring_bytes_ = 0;
  std::vector<RingReceiver> rings_;
  // Cold: touched only by rejected messages and health checks.
  uint64_t rejected_ = 0;
  bool stalled_ = false;
  uint64_t stalled_tail_ = 0;
  uint64_t stalled_since_ns_ = 0;
};

}  // namespace tern::engine::transport
