// A byte ring for one sender and one receiver, laid over shared memory:
// small messages packed back to back, several to a cache line.
//
// Why beside the FIFO: a FIFO cell holds one message, so every message costs
// the receiver one cache-line transfer from the sender's core, and the
// sender's claim is a locked instruction that waits for the previous cell's
// line. Where a transfer between cores is slow (about 150 ns on a 16-core
// Xeon, against about 50 on the 2-core development VM) that bounds a pair
// to about one message per transfer; packed records share the transfers.
//
// Protocol. Positions count bytes and grow without bound; byte `p` lives at
// p % bytes. A record is an 8-byte header and its message, in half a cache
// line or whole lines.
//  - The receiver reads the header at its position: zero means nothing yet.
//  - The sender keeps the header words of the slots just past its head
//    zeroed (kZeroAhead); so the word the receiver polls next is zero until
//    the record written there is published, whatever an earlier lap left.
//  - No record straddles more lines than it must: the receiver then needs as
//    few transfers as can be. A skip record fills the gap where one of a line
//    or more would start mid-line, and the gap at the ring's end.
//  - The receiver releases space by publishing its position (release
//    store, in batches); the sender reloads it only when the ring looks full.
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
  uint16_t length;                  // header and message; the record takes it rounded up to 8
  uint8_t am_id;
  uint8_t flags;  // kRingSkip: no message, only `length` bytes to pass over
};
static_assert(sizeof(RingRecordHeader) == 8);

inline constexpr uint32_t kRingPublished = 1;
inline constexpr uint8_t kRingSkip = 1u << 0;
inline constexpr std::size_t kRingHeaderSize = sizeof(RingRecordHeader);

// The receiver's position, alone on its line; the data follows.
struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> tail{0};
};
static_assert(sizeof(RingControl) == kCacheLine);

namespace ring_detail {

// What a record of `exact` bytes takes: half a line, or whole lines. Two
// small messages share a line, and the next header always lies where the
// previous record ended, so a skip is only needed where a record of a line
// or more follows one of half (mixed sizes) or reaches past the ring's end.
constexpr std::size_t kRingSlot = kCacheLine / 2;
constexpr std::size_t record_size(std::size_t exact) noexcept {
  return exact <= kRingSlot ? kRingSlot : (exact + kCacheLine - 1) & ~(kCacheLine - 1);
}

}  // namespace ring_detail

// Prepares an empty ring: `data` is `bytes` long, a power of two of at
// least a few records, and line aligned.
inline void ring_init(RingControl* control, std::byte* data, std::size_t bytes) noexcept {
  new (control) RingControl();
  std::memset(data, 0, bytes);
}

// Where a ring lies, as each side sees it.
struct RingMemory {
  RingControl* control = nullptr;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  std::size_t mask = 0;  // bytes - 1
};

class RingSender {
 public:
  // Records this long, header included, at most: messages of up to 16
  // bytes after the AM header. Larger ones take whole lines, which laid one
  // after the other start the receiver's stream prefetcher on lines the
  // sender is about to write: osu_latency at 32-128 B took 0.45-0.52 us
  // against 0.36 through the FIFO (2-core VM), and on a 16-core Xeon
  // osu_bw at 32-64 B fell by 10-25%.
  static constexpr std::size_t kMaxRecord = ring_detail::kRingSlot;
  // How far past the head slots are kept zeroed: a few lines.
  static constexpr std::size_t kZeroAhead = 4 * kCacheLine;

  RingSender() = default;
  RingSender(RingControl* control, std::byte* data, std::size_t bytes) noexcept
      : memory_{control, data, bytes, bytes - 1} {}

  [[nodiscard]] bool attached() const noexcept { return memory_.data != nullptr; }
  // Whether a message of `length` bytes (after the 8-byte AM header) fits a
  // record at all.
  [[nodiscard]] static constexpr bool fits(std::size_t length) noexcept {
    return kRingHeaderSize + sizeof(uint64_t) + length <= kMaxRecord;
  }

  // The receiver has read every record sent. Reads its line.
  [[nodiscard]] bool drained() noexcept {
    cached_tail_ = memory_.control->tail.load(std::memory_order_acquire);
    return cached_tail_ == head_;
  }

  // Room for the largest record, wherever it falls (reloads the tail if
  // needed).
  [[nodiscard]] bool has_room() noexcept { return room_for(2 * kMaxRecord + kZeroAhead); }

  // An active message of `header` then `length` bytes; the caller has
  // checked fits(length). False when the ring is full.
  template <std::memory_order Order>
  [[nodiscard]] bool send_short(uint8_t am_id, uint64_t header, const void* payload, std::size_t length) noexcept {
    const std::size_t exact = kRingHeaderSize + sizeof(header) + length;
    const std::size_t size = ring_detail::record_size(exact);
    const std::size_t at = (head_ & memory_.mask);
    // Positions are multiples of half a line, so only a record of a line or
    // more can find itself mid-line, and only at the ring's end out of room.
    std::size_t gap = size >= kCacheLine ? (kCacheLine - at % kCacheLine) % kCacheLine : 0;
    if (at + gap + size > memory_.bytes) gap = memory_.bytes - at;  // the record starts the next lap
    // The header words zeroed ahead must be free too.
    if (TERN_UNLIKELY(!room_for(gap + size + kZeroAhead))) return false;
    // Every slot within kZeroAhead past the head is zero; keep it so for the
    // new head. Zeroing ahead, not just after the record, leaves the line
    // the receiver polls next alone until a record lands in it: zeroing it
    // now would move it to this core and back for nothing.
    for (uint64_t slot = head_ + kZeroAhead; slot < head_ + gap + size + kZeroAhead; slot += ring_detail::kRingSlot) {
      auto* word = reinterpret_cast<std::atomic<uint32_t>*>(memory_.data + (slot & memory_.mask));
      word->store(0, std::memory_order_relaxed);
    }
    const std::size_t start = (at + gap) & memory_.mask;
    auto* record = reinterpret_cast<RingRecordHeader*>(memory_.data + start);
    std::byte* body = memory_.data + start + kRingHeaderSize;
    std::memcpy(body, &header, sizeof(header));
    if (length != 0) std::memcpy(body + sizeof(header), payload, length);
    record->length = static_cast<uint16_t>(exact);
    record->am_id = am_id;
    record->flags = 0;
    if (gap == 0) {
      record->published.store(kRingPublished, Order);
    } else {
      // The record first, then the skip that leads to it: the receiver
      // reaches the record only through the skip.
      record->published.store(kRingPublished, std::memory_order_release);
      auto* skip = reinterpret_cast<RingRecordHeader*>(memory_.data + at);
      skip->length = static_cast<uint16_t>(gap);
      skip->am_id = 0;
      skip->flags = kRingSkip;
      skip->published.store(kRingPublished, Order);
    }
    head_ += gap + size;
    return true;
  }

 private:
  [[nodiscard]] bool room_for(std::size_t need) noexcept {
    if (head_ + need - cached_tail_ <= memory_.bytes) return true;
    cached_tail_ = memory_.control->tail.load(std::memory_order_acquire);
    return head_ + need - cached_tail_ <= memory_.bytes;
  }

  RingMemory memory_;
  uint64_t head_ = 0;
  uint64_t cached_tail_ = 0;
};

class RingReceiver {
 public:
  RingReceiver() = default;
  RingReceiver(RingControl* control, std::byte* data, std::size_t bytes) noexcept
      : memory_{control, data, bytes, bytes - 1} {
    tail_ = published_ = control->tail.load(std::memory_order_relaxed);
  }

  // The next record (skips passed over) if published, else null. It stays
  // valid until publish_tail() after its pop().
  template <std::memory_order Order = std::memory_order_acquire>
  [[nodiscard]] RingRecordHeader* peek() noexcept {
    for (;;) {
      auto* record = reinterpret_cast<RingRecordHeader*>(memory_.data + (tail_ & memory_.mask));
      if (record->published.load(Order) != kRingPublished) return nullptr;
      if (TERN_LIKELY((record->flags & kRingSkip) == 0)) return record;
      tail_ += advance(record);
    }
  }

  [[nodiscard]] static const std::byte* data(const RingRecordHeader* record) noexcept {
    return reinterpret_cast<const std::byte*>(record) + kRingHeaderSize;
  }
  // The message length, bounded by the ring: a confused sender in another
  // process must not make us read past it.
  [[nodiscard]] std::size_t length(const RingRecordHeader* record) const noexcept {
    const std::size_t bound = advance(record) - kRingHeaderSize;
    const std::size_t length = record->length >= kRingHeaderSize ? record->length - kRingHeaderSize : 0;
    return length < bound ? length : bound;
  }

  void pop(const RingRecordHeader* record) noexcept { tail_ += advance(record); }

  void publish_tail() noexcept {
    if (tail_ != published_) {
      memory_.control->tail.store(tail_, std::memory_order_release);
      published_ = tail_;
    }
  }

 private:
  // Bytes from this record to the next header; bounded by the ring's end
  // and at least a slot, whatever a confused sender wrote.
  [[nodiscard]] std::size_t advance(const RingRecordHeader* record) const noexcept {
    const auto at = static_cast<std::size_t>(reinterpret_cast<const std::byte*>(record) - memory_.data);
    const std::size_t to_end = memory_.bytes - at;
    std::size_t size = (record->flags & kRingSkip) != 0 ? record->length : ring_detail::record_size(record->length);
    size = (size + ring_detail::kRingSlot - 1) & ~(ring_detail::kRingSlot - 1);
    if (TERN_UNLIKELY(size == 0 || size > to_end)) return size == 0 ? ring_detail::kRingSlot : to_end;
    return size;
  }

  RingMemory memory_;
  uint64_t tail_ = 0;
  uint64_t published_ = 0;
};

}  // namespace tern::engine::transport
