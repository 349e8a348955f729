// The owner's side of the shared-memory tag-matching device (tag_table.hpp):
// posts receives into the table in its own segment, takes them back, and
// hands the engine the receives that senders filled. Everything a sender
// wrote is checked before it is reported: a slot is only believed done in
// the generation it was posted in, and lengths and flags are bounded.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "shared_arena.hpp"
#include "tag_table.hpp"
#include "transport/tag_device.hpp"

namespace tern::engine::transport::shm {

class ShmTagDevice final : public TagDevice {
 public:
  ShmTagDevice(TagTable* table, uint32_t capacity) noexcept;

  [[nodiscard]] const char* name() const noexcept override { return "shm"; }
  [[nodiscard]] uint32_t capacity() const noexcept override { return capacity_; }
  [[nodiscard]] int post(uint64_t tag, uint64_t mask, void* buffer, std::size_t length) noexcept override;
  [[nodiscard]] bool take_back(uint32_t slot) noexcept override;
  void set_completion_handler(TagCompletionHandler handler, void* arg) noexcept override {
    handler_ = handler;
    handler_arg_ = arg;
  }

  [[nodiscard]] bool maps(const void* buffer, std::size_t length) const noexcept override {
    return arena_ != nullptr && arena_->contains(buffer, length);
  }
  // Receives into this arena's memory are filled by a plain copy.
  void set_arena(const SharedArena* arena) noexcept { arena_ = arena; }

  void set_owner_waiting(bool waiting) noexcept override {
    table_->owner_waiting.store(waiting ? 1 : 0, std::memory_order_relaxed);
  }

  // Receives are posted: progress should look for completions.
  [[nodiscard]] bool active() const noexcept { return in_use_ != 0; }
  // A sender finished a receive since the last poll (arm must not sleep).
  [[nodiscard]] bool completions_waiting() const noexcept {
    // seq_cst: the receiver's half of the sleep handshake (ShmIface::arm).
    return in_use_ != 0 && table_->completions.load(std::memory_order_seq_cst) != seen_;
  }
  // Reports the receives senders filled, after taking a chunk of each
  // shared copy still under way. Returns how many of both.
  unsigned poll() noexcept;

  // Tells whether `pid` is a local peer's process (the iface knows): a
  // shared copy is read from the process its slot names only then.
  using PeerCheck = bool (*)(void* arg, pid_t pid);
  void set_peer_check(PeerCheck check, void* arg) noexcept {
    peer_check_ = check;
    peer_check_arg_ = arg;
  }

 private:
  void release(uint32_t slot, uint64_t generation) noexcept;
  // Reads one chunk from the back of each shared copy into our receives.
  unsigned help_copies() noexcept;

  TagTable* table_;
  uint32_t capacity_;
  uint64_t in_use_ = 0;  // slots posted and not yet taken back or reported
  uint64_t next_sequence_ = 0;
  uint64_t seen_ = 0;  // the completions count at the last poll
  std::array<uint64_t, kTagSlots> generations_{};  // of each slot's current post
  // Each slot's receive buffer and its length, as we posted them: the
  // table's copies are the senders' to read, not ours to believe.
  std::array<std::byte*, kTagSlots> buffers_{};
  std::array<uint64_t, kTagSlots> capacities_{};
  const SharedArena* arena_ = nullptr;
  PeerCheck peer_check_ = nullptr;
  void* peer_check_arg_ = nullptr;
  TagCompletionHandler handler_ = nullptr;
  void* handler_arg_ = nullptr;
};

}  // namespace tern::engine::transport::shm
