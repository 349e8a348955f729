// A lock-free FIFO of fixed-size cells for many senders and one receiver, laid
// over memory the caller provides: private memory for `self`, a shared segment
// for `shm`. Nothing here allocates or makes a system call.
//
// Protocol. Indices grow without bound (64 bits never wrap in practice); cell
// `i` lives at slot i % cells.
//  - A sender claims index `head` by CAS on the shared head, once it knows the
//    receiver has released index head - cells (its cached copy of the tail,
//    reloaded only when the FIFO looks full, so the tail's cache line stays
//    with the receiver). It writes the cell, then publishes it by storing
//    sequence = index + 1 in the cell header.
//  - The receiver polls the sequence of cell[tail] for tail + 1, so the flag and
//    a short message share one cache line and one transfer. It releases cells
//    by publishing its tail in batches, never with a read-modify-write.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "iface.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport {

// The first 8 bytes of every cell; the message follows.
struct FifoCellHeader {
  // index + 1 (mod 2^32) once the cell holds message `index`. The value left
  // from the previous lap is index + 1 - cells, which differs because cells
  // is below 2^32; a fresh cell holds 0, which only index 2^32 - 1 expects,
  // long after every cell has been written.
  std::atomic<uint32_t> sequence;
  uint16_t length;  // message bytes after this header
  uint8_t am_id;
  uint8_t flags;
};
static_assert(sizeof(FifoCellHeader) == 8);
static_assert(std::atomic<uint32_t>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free,
              "the FIFO is shared between processes: its atomics must not hide a lock");

inline constexpr std::size_t kFifoCellHeaderSize = sizeof(FifoCellHeader);

// Cell flag: claimed but carries nothing (a pack callback overflowed); the
// receiver skips it. A claimed index cannot be given back, since later
// senders may already hold the indices after it.
inline constexpr uint8_t kFifoCellSkip = 1u << 0;

// The shared indices, each on its own cache line: senders write `head`, the
// receiver writes `tail`, and neither line ping-pongs on every message.
struct FifoIndices {
  alignas(kCacheLine) std::atomic<uint64_t> head{0};
  alignas(kCacheLine) std::atomic<uint64_t> tail{0};
};
static_assert(sizeof(FifoIndices) == 2 * kCacheLine);

struct FifoGeometry {
  uint32_t cells = 0;      // power of two
  uint32_t cell_size = 0;  // bytes per cell, header included; a whole number of cache lines

  static constexpr uint32_t kMinCells = 2;
  static constexpr uint32_t kMaxCells = 1u << 20;
  static constexpr uint32_t kMinCellSize = 64;
  static constexpr uint32_t kMaxCellSize = 65536;  // the length field is 16 bits

  [[nodiscard]] constexpr bool valid() const noexcept {
    return is_pow2(cells) && cell_size % kCacheLine == 0 && cells >= kMinCells && cells <= kMaxCells &&
           cell_size >= kMinCellSize && cell_size <= kMaxCellSize;
  }
  [[nodiscard]] constexpr std::size_t bytes() const noexcept { return std::size_t{cells} * cell_size; }
  // Bytes a message may occupy in one cell.
  [[nodiscard]] constexpr std::size_t max_message() const noexcept { return cell_size - kFifoCellHeaderSize; }
};

// Prepares an empty FIFO. Only the owner calls this, before any sender can
// see the memory. `cells` must be 64-byte aligned and geometry.bytes() long.
inline void fifo_init(FifoIndices* indices, std::byte* cells, FifoGeometry geometry) noexcept {
  new (indices) FifoIndices();
  for (uint32_t i = 0; i < geometry.cells; ++i) {
    auto* cell = new (cells + std::size_t{i} * geometry.cell_size) FifoCellHeader;
    cell->sequence.store(0, std::memory_order_relaxed);
    cell->length = 0;
    cell->am_id = 0;
    cell->flags = 0;
  }
}

// One sender's view of a FIFO (one per endpoint: the cached tail is private).
class FifoSender {
 public:
  FifoSender() = default;
  FifoSender(FifoIndices* indices, std::byte* cells, FifoGeometry geometry) noexcept
      : indices_(indices),
        cells_(cells),
        count_(geometry.cells),
        mask_(geometry.cells - 1),
        stride_(geometry.cell_size) {}

  // Claims the next cell and returns its header (the message goes at
  // data(cell)), or null when the FIFO is full. A claimed cell must be
  // published, even if empty (flag kFifoCellSkip).
  [[nodiscard]] FifoCellHeader* claim(uint64_t& index) noexcept {
    uint64_t head = indices_->head.load(std::memory_order_relaxed);
    for (;;) {
      // Signed: a stale head may lag a fresh tail; the CAS then fails and
      // brings the current head.
      if (TERN_UNLIKELY(static_cast<int64_t>(head - cached_tail_) >= static_cast<int64_t>(count_))) {
        if (TERN_UNLIKELY(corrupt_)) return nullptr;
        // Acquire: the receiver has finished reading the cells it released.
        cached_tail_ = indices_->tail.load(std::memory_order_acquire);
        if (static_cast<int64_t>(head - cached_tail_) >= static_cast<int64_t>(count_)) return nullptr;
        if (TERN_UNLIKELY(tail_beyond_head())) return nullptr;
      }
      // Relaxed is enough: the cell's reuse is ordered by the tail's acquire
      // above, and its contents by the sequence store in publish().
      if (TERN_LIKELY(indices_->head.compare_exchange_weak(head, head + 1, std::memory_order_relaxed,
                                                           std::memory_order_relaxed))) {
        index = last_claimed_ = head;
        claimed_any_ = true;
        return cell(head);
      }
    }
  }

  // True once a claim found indices no receiver leaves (a tail past the
  // head): the FIFO is corrupted and every claim fails from then on.
  [[nodiscard]] bool corrupt() const noexcept { return corrupt_; }

  // True when a claim would find a free cell now (reloads the tail if needed).
  [[nodiscard]] bool has_room() noexcept {
    uint64_t head = indices_->head.load(std::memory_order_relaxed);
    if (static_cast<int64_t>(head - cached_tail_) < static_cast<int64_t>(count_)) return true;
    cached_tail_ = indices_->tail.load(std::memory_order_acquire);
    return static_cast<int64_t>(head - cached_tail_) < static_cast<int64_t>(count_);
  }

  // True when the receiver has released every cell this sender claimed
  // (handlers included: it releases only after them). Reads its tail line.
  [[nodiscard]] bool all_mine_read() noexcept {
    if (!claimed_any_) return true;
    cached_tail_ = indices_->tail.load(std::memory_order_acquire);
    return cached_tail_ > last_claimed_;
  }

  // Messages in the FIFO, from every sender, that the receiver has not
  // released yet. Reads the receiver's tail line, so it costs a cache miss;
  // only for decisions worth that.
  [[nodiscard]] uint64_t unread() noexcept {
    cached_tail_ = indices_->tail.load(std::memory_order_acquire);
    return indices_->head.load(std::memory_order_relaxed) - cached_tail_;
  }

  [[nodiscard]] static std::byte* data(FifoCellHeader* cell) noexcept {
    return reinterpret_cast<std::byte*>(cell) + kFifoCellHeaderSize;
  }

  // Hands a claimed cell to the receiver. Between processes the store is
  // seq_cst because it is the sender's half of the wakeup handshake: publish,
  // then read the receiver's "armed" flag, while the receiver stores "armed",
  // then looks for a published cell; with both seq_cst at least one side sees
  // the other. A receiver in the same thread needs only release, and so does
  // one in a process that fences its senders before it sleeps
  // (shm/remote_fence.hpp).
  template <std::memory_order Order = std::memory_order_seq_cst>
  static void publish(FifoCellHeader* cell, uint64_t index, uint8_t am_id, std::size_t length,
                      uint8_t flags = 0) noexcept {
    cell->length = static_cast<uint16_t>(length);
    cell->am_id = am_id;
    cell->flags = flags;
    cell->sequence.store(static_cast<uint32_t>(index + 1), Order);
  }

  // Message bytes that share a cell's first line with its header.
  static constexpr std::size_t kFirstLineData = kCacheLine - kFifoCellHeaderSize;

  // An active message of `header` and then `length` payload bytes; the caller
  // has checked that it fits. False when the FIFO is full.
  template <std::memory_order Order = std::memory_order_seq_cst>
  [[nodiscard]] bool send_short(uint8_t am_id, uint64_t header, const void* payload, std::size_t length) noexcept {
    uint64_t index;
    FifoCellHeader* c = claim(index);
    if (TERN_UNLIKELY(c == nullptr)) return false;
    std::byte* dest = data(c);
    const std::size_t total = sizeof(header) + length;
    // The receiver polls the cell's first line. Writing it last, just before
    // the publishing store, gives the receiver's poll less time to take the
    // line back between the two, which then costs the publish one more
    // transfer: osu_latency 128 B 0.55-0.58 -> 0.50-0.52 us, 256-512 B
    // 0.52-0.60 -> 0.47-0.50 (2-core VM, alternating runs).
    if (total > kFirstLineData) {
      const auto* bytes = static_cast<const std::byte*>(payload);
      std::memcpy(dest + kFirstLineData, bytes + (kFirstLineData - sizeof(header)), total - kFirstLineData);
      std::memcpy(dest, &header, sizeof(header));
      std::memcpy(dest + sizeof(header), bytes, kFirstLineData - sizeof(header));
    } else {
      std::memcpy(dest, &header, sizeof(header));
      if (length != 0) std::memcpy(dest + sizeof(header), payload, length);
    }
    publish<Order>(c, index, am_id, total);
    return true;
  }

  // An active message that `pack` writes straight into the cell, at most
  // `capacity` bytes. Returns its length, or WouldBlock (FIFO full) or
  // InvalidParam (pack claimed more than it was given; the cell is published
  // empty) as a negative ssize_t.
  template <std::memory_order Order = std::memory_order_seq_cst>
  [[nodiscard]] ssize_t send_bcopy(uint8_t am_id, PackCallback pack, void* arg, std::size_t capacity) {
    uint64_t index;
    FifoCellHeader* c = claim(index);
    if (TERN_UNLIKELY(c == nullptr)) return static_cast<ssize_t>(Status::WouldBlock);
    const std::size_t length = pack(data(c), capacity, arg);
    if (TERN_UNLIKELY(length > capacity)) {
      publish<Order>(c, index, am_id, 0, kFifoCellSkip);
      return static_cast<ssize_t>(Status::InvalidParam);
    }
    publish<Order>(c, index, am_id, length);
    return static_cast<ssize_t>(length);
  }

 private:
  [[nodiscard]] FifoCellHeader* cell(uint64_t index) const noexcept {
    return reinterpret_cast<FifoCellHeader*>(cells_ + (index & mask_) * stride_);
  }

  // The receiver releases only cells that were claimed, so a tail read
  // before the head never passes it. A head loaded earlier may lag it, so
  // the head is read again first.
  [[nodiscard]] bool tail_beyond_head() noexcept {
    const uint64_t head = indices_->head.load(std::memory_order_acquire);
    if (static_cast<int64_t>(head - cached_tail_) >= 0) return false;
    corrupt_ = true;
    cached_tail_ = head - count_;  // the FIFO looks full: later claims stop at corrupt_
    return true;
  }

  FifoIndices* indices_ = nullptr;
  std::byte* cells_ = nullptr;
  uint64_t cached_tail_ = 0;
  bool corrupt_ = false;
  uint64_t last_claimed_ = 0;
  bool claimed_any_ = false;
  uint32_t count_ = 0;
  uint32_t mask_ = 0;
  uint64_t stride_ = 0;
};

// The receiver's view; exactly one per FIFO.
class FifoReceiver {
 public:
  // Lines an empty poll asks for at most (half a KiB of message). Each one it
  // takes while the sender still writes there costs that sender one more
  // transfer, which shows when messages stream: with up to 16 lines, osu_bw
  // 512 B-1 KiB lost 20-25%; with 8, and only on empty polls, osu_bw and
  // osu_bibw 128-512 B stay within 4% (alternating runs, 8 rounds).
  static constexpr uint32_t kMaxLinesAhead = 8;

  FifoReceiver() = default;
  FifoReceiver(FifoIndices* indices, std::byte* cells, FifoGeometry geometry) noexcept
      : indices_(indices),
        cells_(cells),
        mask_(geometry.cells - 1),
        stride_(geometry.cell_size),
        batch_(geometry.cells / 4 != 0 ? geometry.cells / 4 : 1),
        max_message_(static_cast<uint32_t>(geometry.max_message())) {
    tail_ = published_ = indices->tail.load(std::memory_order_relaxed);
  }

  // The next message if its sender has published it, else null. The cell
  // stays valid until publish_tail() after the matching pop().
  //
  // A poll that finds the cell empty also asks for its lines past the first,
  // as many as the last message had. A sender writes them before the first
  // line (FifoSender::send_short), so once the sequence shows they are
  // written too, and have come in beside it rather than one transfer after
  // it: osu_latency 64 B 0.49 -> 0.37 us, 128-512 B 0.51 -> 0.38-0.40 on the
  // 2-core VM's slower days, 0.12-0.14 -> 0.11-0.13 on its faster ones.
  [[nodiscard]] FifoCellHeader* peek() const noexcept {
    FifoCellHeader* c = cell(tail_);
    if (c->sequence.load(std::memory_order_acquire) == static_cast<uint32_t>(tail_ + 1)) return c;
    const auto* first = reinterpret_cast<const std::byte*>(c);
    for (uint32_t line = 1; line <= lines_ahead_; ++line) __builtin_prefetch(first + line * kCacheLine);
    return nullptr;
  }

  // Like peek() != null, but seq_cst: the receiver's half of the wakeup
  // handshake (see FifoSender::publish).
  [[nodiscard]] bool ready_seq_cst() const noexcept {
    return cell(tail_)->sequence.load(std::memory_order_seq_cst) == static_cast<uint32_t>(tail_ + 1);
  }

  [[nodiscard]] static const std::byte* data(const FifoCellHeader* cell) noexcept {
    return reinterpret_cast<const std::byte*>(cell) + kFifoCellHeaderSize;
  }
  // The message length, bounded by the cell: a confused sender in another
  // process must not make us read past it.
  [[nodiscard]] std::size_t length(const FifoCellHeader* cell) const noexcept {
    return cell->length <= max_message_ ? cell->length : max_message_;
  }
  [[nodiscard]] std::size_t max_message() const noexcept { return max_message_; }

  enum class Health : uint8_t {
    Healthy,
    Waiting,  // a sender claimed the next cell and has not published it yet
    Corrupt,  // the shared indices hold what no sender or receiver leaves
  };
  // Checks the shared indices against what only this receiver knows. Reads
  // the senders' head line: for idle moments, not for every poll.
  [[nodiscard]] Health health() const noexcept {
    const uint64_t head = indices_->head.load(std::memory_order_acquire);
    // Only this receiver writes the tail, and senders claim at most one
    // FIFO's worth past what it published.
    if (indices_->tail.load(std::memory_order_relaxed) != published_ ||
        static_cast<int64_t>(head - tail_) < 0 || head - published_ > mask_ + uint64_t{1}) {
      return Health::Corrupt;
    }
    if (head != tail_ && peek() == nullptr) return Health::Waiting;
    return Health::Healthy;
  }
  [[nodiscard]] uint64_t tail() const noexcept { return tail_; }
  [[nodiscard]] uint64_t shared_head() const noexcept { return indices_->head.load(std::memory_order_relaxed); }
  [[nodiscard]] uint64_t shared_tail() const noexcept { return indices_->tail.load(std::memory_order_relaxed); }

  // Done with the peeked cell locally; senders learn of it at publish_tail().
  void pop(const FifoCellHeader* cell) noexcept {
    ++tail_;
    // Bounded like length(): the prefetches stay inside the cell.
    const auto lines = static_cast<uint32_t>((kFifoCellHeaderSize - 1 + length(cell)) / kCacheLine);
    lines_ahead_ = lines <= kMaxLinesAhead ? lines : 0;
  }

  [[nodiscard]] bool batch_full() const noexcept { return tail_ - published_ >= batch_; }

  // Lets senders reuse every popped cell: one release store, no RMW.
  void publish_tail() noexcept {
    if (tail_ != published_) {
      indices_->tail.store(tail_, std::memory_order_release);
      published_ = tail_;
    }
  }

 private:
  [[nodiscard]] FifoCellHeader* cell(uint64_t index) const noexcept {
    return reinterpret_cast<FifoCellHeader*>(cells_ + (index & mask_) * stride_);
  }

  FifoIndices* indices_ = nullptr;
  std::byte* cells_ = nullptr;
  uint64_t tail_ = 0;
  uint64_t published_ = 0;
  uint32_t mask_ = 0;
  uint64_t stride_ = 0;
  uint32_t batch_ = 1;
  uint32_t max_message_ = 0;
  uint32_t lines_ahead_ = 1;
};

}  // namespace tern::engine::transport
