// A ring for one sender and one receiver, laid over shared memory: small
// messages in 32-byte slots, two to a cache line.
//
// Why beside the FIFO: a FIFO cell holds one message, so every message costs
// the receiver one cache-line transfer from the sender's core, and the
// sender's claim is a locked instruction that waits for the previous cell's
// line. Where a transfer between cores is slow (about 150 ns on a 16-core
// Xeon, against about 50 on the 2-core development VM) that bounds a pair
// to about one message per transfer; packed records share the transfers.
//
// Protocol. The ring is an array of 32-byte slots, two to a cache line;
// positions count slots and grow without bound. A record is an 8-byte
// header, the 8-byte AM header and up to 16 bytes of message, in one slot.
//  - The receiver reads the header of the slot at its position: zero means
//    nothing yet.
//  - The sender keeps the header words of the slots just past its head
//    zeroed (kZeroAhead); so the word the receiver polls next is zero until
//    the record written there is published, whatever an earlier lap left.
//  - The receiver releases slots by publishing its position (release store,
//    once per poll); the sender reloads it only when the ring looks full.
// Larger records were tried: records of whole lines laid one after the
// other start the receiver's stream prefetcher on lines the sender is
// about to write, and osu_latency at 32-128 B took 0.45-0.52 us against
// 0.36 through the FIFO (2-core VM); on a 16-core Xeon osu_bw at 32-64 B
// fell by 10-25%. So larger messages stay on the FIFO.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport {

struct RingRecordHeader {
  std::atomic<uint32_t> published;  // 0: not yet; kRingPublished once written
  uint16_t length;                  // the message's bytes, AM header included
  uint8_t am_id;
  uint8_t unused;
};
static_assert(sizeof(RingRecordHeader) == 8);

inline constexpr uint32_t kRingPublished = 1;
inline constexpr std::size_t kRingHeaderSize = sizeof(RingRecordHeader);
inline constexpr std::size_t kRingSlot = kCacheLine / 2;
inline constexpr std::size_t kRingMaxMessage = kRingSlot - kRingHeaderSize;

// The receiver's position, alone on its line; the data follows.
struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> tail{0};
};
static_assert(sizeof(RingControl) == kCacheLine);

// Prepares an empty ring: `data` is `bytes` long, a power of two of more
// than kZeroAhead, and line aligned.
inline void ring_init(RingControl* control, std::byte* data, std::size_t bytes) noexcept {
  new (control) RingControl();
  std::memset(data, 0, bytes);
}

// Where a ring lies, as each side sees it.
struct RingMemory {
  RingControl* control = nullptr;
  std::byte* data = nullptr;
  uint64_t slots = 0;
  uint64_t mask = 0;  // slots - 1

  [[nodiscard]] RingRecordHeader* slot(uint64_t position) const noexcept {
    return reinterpret_cast<RingRecordHeader*>(data + (position & mask) * kRingSlot);
  }
};

class RingSender {
 public:
  // Slots past the head kept zeroed: four lines' worth, so the line the
  // receiver polls next is left alone until a record lands in it (zeroing
  // just the next slot would move that line to this core and back).
  static constexpr uint64_t kZeroAhead = 8;

  RingSender() = default;
  RingSender(RingControl* control, std::byte* data, std::size_t bytes) noexcept
      : memory_{control, data, bytes / kRingSlot, bytes / kRingSlot - 1} {}

  [[nodiscard]] bool attached() const noexcept { return memory_.data != nullptr; }
  // Whether a message of `length` bytes after the 8-byte AM header fits.
  [[nodiscard]] static constexpr bool fits(std::size_t length) noexcept {
    return length <= kRingMaxMessage - sizeof(uint64_t);  // no wrap for huge lengths
  }

  // The receiver has read every record sent. Reads its line.
  [[nodiscard]] bool drained() noexcept { return reload_tail() && cached_tail_ == head_; }

  // Whether send_short would find a slot now (reloads the tail if needed).
  [[nodiscard]] bool has_room() noexcept {
    // The slot zeroed ahead must be free too.
    if (head_ + kZeroAhead + 1 - cached_tail_ <= memory_.slots) return true;
    return reload_tail() && head_ + kZeroAhead + 1 - cached_tail_ <= memory_.slots;
  }

  // The receiver's published position was found past what was sent, or
  // more than a ring behind it: something else wrote it. The ring then
  // never has room again (trusting the word would overwrite unread records).
  [[nodiscard]] bool corrupt() const noexcept { return corrupt_; }

  // An active message of `header` then `length` bytes; the caller has
  // checked fits(length). False when the ring is full.
  template <std::memory_order Order>
  [[nodiscard]] bool send_short(uint8_t am_id, uint64_t header, const void* payload, std::size_t length) noexcept {
    if (TERN_UNLIKELY(!has_room())) return false;
    // Slots head_ .. head_ + kZeroAhead - 1 are zero; keep it so past the new head.
    memory_.slot(head_ + kZeroAhead)->published.store(0, std::memory_order_relaxed);
    RingRecordHeader* record = memory_.slot(head_);
    std::byte* body = reinterpret_cast<std::byte*>(record) + kRingHeaderSize;
    std::memcpy(body, &header, sizeof(header));
    if (length != 0) std::memcpy(body + sizeof(header), payload, length);
    record->length = static_cast<uint16_t>(sizeof(header) + length);
    record->am_id = am_id;
    record->published.store(kRingPublished, Order);
    ++head_;
    return true;
  }

 private:
  // False (and corrupt from then on) when the tail cannot be one the
  // receiver published: only records sent are read, and no more than a
  // ring's worth is ever unread.
  [[nodiscard]] bool reload_tail() noexcept {
    if (TERN_UNLIKELY(corrupt_)) return false;
    const uint64_t tail = memory_.control->tail.load(std::memory_order_acquire);
    if (TERN_UNLIKELY(tail > head_ || head_ - tail > memory_.slots)) {
      corrupt_ = true;
      return false;
    }
    cached_tail_ = tail;
    return true;
  }

  RingMemory memory_;
  uint64_t head_ = 0;
  uint64_t cached_tail_ = 0;
  bool corrupt_ = false;
};

class RingReceiver {
 public:
  RingReceiver() = default;
  RingReceiver(RingControl* control, std::byte* data, std::size_t bytes) noexcept
      : memory_{control, data, bytes / kRingSlot, bytes / kRingSlot - 1} {
    tail_ = published_ = control->tail.load(std::memory_order_relaxed);
  }

  // The next record if published, else null. It stays valid until
  // publish_tail() after its pop().
  template <std::memory_order Order = std::memory_order_acquire>
  [[nodiscard]] const RingRecordHeader* peek() const noexcept {
    const RingRecordHeader* record = memory_.slot(tail_);
    return record->published.load(Order) == kRingPublished ? record : nullptr;
  }

  [[nodiscard]] static const std::byte* data(const RingRecordHeader* record) noexcept {
    return reinterpret_cast<const std::byte*>(record) + kRingHeaderSize;
  }
  // The message length, bounded by the slot: a confused sender in another
  // process must not make us read past it.
  [[nodiscard]] static std::size_t length(const RingRecordHeader* record) noexcept {
    return record->length <= kRingMaxMessage ? record->length : kRingMaxMessage;
  }

  void pop() noexcept { ++tail_; }

  // The next record's publication word holds neither value a sender
  // writes: something else wrote the ring, and the receiver would wait on
  // that slot forever. Looked at by health checks only, off the hot path.
  [[nodiscard]] bool garbled() const noexcept {
    const uint32_t word = memory_.slot(tail_)->published.load(std::memory_order_acquire);
    return word != 0 && word != kRingPublished;
  }

  void publish_tail() noexcept {
    if (tail_ != published_) {
      memory_.control->tail.store(tail_, std::memory_order_release);
      published_ = tail_;
    }
  }

 private:
  RingMemory memory_;
  uint64_t tail_ = 0;
  uint64_t published_ = 0;
};

}  // namespace tern::engine::transport
