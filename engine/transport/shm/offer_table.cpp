#include "offer_table.hpp"

#include <cstring>
#include <new>

#include "cma.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::shm {

void OfferTable::attach(OfferSlot* slots) noexcept {
  slots_ = slots;
  free_.clear();
  helping_.clear();
  free_.reserve(kOfferSlots);
  helping_.reserve(kOfferSlots);
  // Highest first, so that pop_back hands out the low slots.
  for (uint32_t index = kOfferSlots; index-- > 0;) {
    new (&slots_[index]) OfferSlot();
    free_.push_back(index);
  }
}

uint64_t OfferTable::offer(const void* buffer, std::size_t length, pid_t peer) noexcept {
  if (slots_ == nullptr || free_.empty() || buffer == nullptr || length == 0) return 0;
  const uint32_t index = free_.back();
  free_.pop_back();
  OfferSlot& slot = slots_[index];
  slot.source = reinterpret_cast<uint64_t>(buffer);
  slot.length = length;
  // The peer learns the key from a message sent after this, which orders
  // these stores before its reads.
  slot.state.store(static_cast<uint32_t>(OfferState::Offered), std::memory_order_release);
  helping_.push_back({index, peer});
  return offer_key(index, slot.generation);
}

void OfferTable::withdraw(uint64_t key) noexcept {
  const uint32_t index = offer_index(key);
  if (slots_ == nullptr || index >= kOfferSlots || slots_[index].generation != offer_generation(key)) {
    TERN_LOG(Error, "shm: withdraw of an unknown offer %016llx", static_cast<unsigned long long>(key));
    return;
  }
  OfferSlot& slot = slots_[index];
  ++slot.generation;
  slot.state.store(static_cast<uint32_t>(OfferState::Free), std::memory_order_relaxed);
  for (auto it = helping_.begin(); it != helping_.end(); ++it) {
    if (it->index == index) {
      helping_.erase(it);
      break;
    }
  }
  free_.push_back(index);
}

unsigned OfferTable::help() noexcept {
  CmaPiece pieces[kCmaBatchPieces];
  OfferSlot* helped_slots[kCmaBatchPieces];
  std::size_t count = 0;
  std::size_t bytes = 0;
  pid_t peer = 0;
  // Oldest first, as the peer completes them; the next chunk of each while
  // the batch is small and goes to one peer (cma.hpp).
  for (std::size_t i = 0; i < helping_.size() && count < kCmaBatchPieces;) {
    const Helped helped = helping_[i];
    OfferSlot& slot = slots_[helped.index];
    if (slot.state.load(std::memory_order_acquire) != static_cast<uint32_t>(OfferState::Matched)) {
      ++i;  // not received yet
      continue;
    }
    if (count != 0 && (helped.peer != peer || bytes >= kCmaBatchBytes || slot.copy_length > kCmaBatchBytes)) break;
    OfferClaim claim;
    if (!claim_offer_chunks(slot, false, false, claim)) {
      helping_.erase(helping_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    pieces[count] = {reinterpret_cast<std::byte*>(slot.source) + claim.offset, slot.target + claim.offset,
                     claim.length, 0};
    helped_slots[count] = &slot;
    peer = helped.peer;
    bytes += claim.length;
    ++count;
    ++i;
  }
  if (count == 0) return 0;
  cma_write_pieces(peer, {pieces, count});
  for (std::size_t i = 0; i < count; ++i) {
    if (pieces[i].error != 0) {
      TERN_LOG(Error, "shm: process_vm_writev of %zu bytes to process %d failed: %s", pieces[i].length,
               static_cast<int>(peer), std::strerror(pieces[i].error));
      helped_slots[i]->failed.store(1, std::memory_order_relaxed);
    }
    // Release: the peer that sees the last bytes counted sees the data.
    helped_slots[i]->done.fetch_add(pieces[i].length, std::memory_order_release);
  }
  return static_cast<unsigned>(count);
}

}  // namespace tern::engine::transport::shm
