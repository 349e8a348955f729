// The receiving side of a FIFO transport: polls the FIFO and hands each
// message, in order, to the active message handler registered for its id.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "fifo.hpp"
#include "iface.hpp"

namespace tern::engine::transport {

class FifoInbox {
 public:
  FifoInbox() noexcept { handlers_.fill({&drop, nullptr}); }

  void attach(FifoIndices* indices, std::byte* cells, FifoGeometry geometry) noexcept {
    rx_ = FifoReceiver(indices, cells, geometry);
  }

  // Ids past kMaxAmId are ignored; a null handler drops the id's messages.
  void set_handler(uint8_t id, AmHandler handler, void* arg) noexcept {
    if (id >= kMaxAmId) return;
    handlers_[id] = handler != nullptr ? Slot{handler, arg} : Slot{&drop, nullptr};
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
      rx_.pop();
      if (TERN_LIKELY((cell->flags & kFifoCellSkip) == 0)) {
        // The table covers every 8-bit id, so an id from a confused peer
        // needs no check: unknown ids reach `drop`.
        const Slot& slot = handlers_[cell->am_id];
        slot.handler(slot.arg, FifoReceiver::data(cell), rx_.length(cell));
      }
      ++count;
      if (outermost && rx_.batch_full()) rx_.publish_tail();
    }
    if (outermost) rx_.publish_tail();
    --depth_;
    return count;
  }

  [[nodiscard]] bool ready() const noexcept { return rx_.peek() != nullptr; }
  [[nodiscard]] bool ready_seq_cst() const noexcept { return rx_.ready_seq_cst(); }

 private:
  struct Slot {
    AmHandler handler;
    void* arg;
  };

  static void drop(void*, const void*, std::size_t) noexcept {}

  FifoReceiver rx_;
  unsigned depth_ = 0;
  std::array<Slot, 256> handlers_;
};

}  // namespace tern::engine::transport
