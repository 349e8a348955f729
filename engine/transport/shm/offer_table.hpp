// The owner's side of split zero copies (offer.hpp): which slots of its
// segment are free, and the offers it still helps to copy.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "offer.hpp"

namespace tern::engine::transport::shm {

class OfferTable {
 public:
  // `slots`: kOfferSlots slots in this process's segment, constructed here.
  void attach(OfferSlot* slots) noexcept;

  // Offers `length` bytes at `buffer` to the peer process `peer`. Returns the
  // key for the peer's get, or 0 when every slot is taken.
  [[nodiscard]] uint64_t offer(const void* buffer, std::size_t length, pid_t peer) noexcept;
  // Frees the slot. Only once the peer has reported its get complete: it
  // reads the slot until then.
  void withdraw(uint64_t key) noexcept;

  [[nodiscard]] bool helping() const noexcept { return !helping_.empty(); }
  // Copies the next chunk of the oldest offer the peer has matched, with
  // those of the next few small ones to the same peer in the same system
  // call, and stops helping offers with no chunk left. Returns the number of
  // chunks moved.
  unsigned help() noexcept;

 private:
  struct Helped {
    uint32_t index;
    pid_t peer;
  };

  OfferSlot* slots_ = nullptr;
  std::vector<uint32_t> free_;
  std::vector<Helped> helping_;  // oldest first
};

}  // namespace tern::engine::transport::shm
