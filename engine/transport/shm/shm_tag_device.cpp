#include "shm_tag_device.hpp"

#include <algorithm>
#include <bit>

#include "cma.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::shm {

ShmTagDevice::ShmTagDevice(TagTable* table, uint32_t capacity) noexcept
    : table_(table), capacity_(std::min(capacity, kTagSlots)) {
  for (uint32_t slot = 0; slot < kTagSlots; ++slot) {
    generations_[slot] = tag_generation(table_->slots[slot].state.load(std::memory_order_relaxed));
  }
}

int ShmTagDevice::post(uint64_t tag, uint64_t mask, void* buffer, std::size_t length) noexcept {
  const uint64_t limit = capacity_ == 64 ? ~uint64_t{0} : (uint64_t{1} << capacity_) - 1;
  const uint64_t free_slots = ~in_use_ & limit;
  if (free_slots == 0) return -1;
  const auto slot = static_cast<uint32_t>(std::countr_zero(free_slots));
  TagSlot& s = table_->slots[slot];
  s.tag.store(tag, std::memory_order_relaxed);
  s.mask.store(mask, std::memory_order_relaxed);
  s.buffer.store(reinterpret_cast<uint64_t>(buffer), std::memory_order_relaxed);
  s.capacity.store(length, std::memory_order_relaxed);
  s.sequence.store(next_sequence_, std::memory_order_relaxed);
  buffers_[slot] = static_cast<std::byte*>(buffer);
  capacities_[slot] = length;
  s.state.store(tag_state(generations_[slot], TagPhase::Posted), std::memory_order_release);
  in_use_ |= uint64_t{1} << slot;
  table_->posted.store(in_use_, std::memory_order_release);
  table_->next_sequence.store(++next_sequence_, std::memory_order_release);
  return static_cast<int>(slot);
}

bool ShmTagDevice::take_back(uint32_t slot) noexcept {
  if (slot >= kTagSlots || (in_use_ & (uint64_t{1} << slot)) == 0) return false;
  uint64_t expected = tag_state(generations_[slot], TagPhase::Posted);
  const uint64_t freed = tag_state(generations_[slot] + 1, TagPhase::Free);
  if (!table_->slots[slot].state.compare_exchange_strong(expected, freed, std::memory_order_acq_rel,
                                                         std::memory_order_relaxed)) {
    return false;
  }
  release(slot, generations_[slot] + 1);
  return true;
}

void ShmTagDevice::release(uint32_t slot, uint64_t generation) noexcept {
  generations_[slot] = generation;
  in_use_ &= ~(uint64_t{1} << slot);
  table_->posted.store(in_use_, std::memory_order_release);
}

unsigned ShmTagDevice::help_copies() noexcept {
  unsigned taken = 0;
  for (uint64_t pending = in_use_; pending != 0; pending &= pending - 1) {
    const auto slot = static_cast<uint32_t>(std::countr_zero(pending));
    TagSlot& s = table_->slots[slot];
    const uint64_t generation = generations_[slot];
    if (s.state.load(std::memory_order_acquire) != tag_state(generation, TagPhase::Claimed) ||
        s.copy_open.load(std::memory_order_acquire) != generation + 1) {
      continue;
    }
    // The sender's description, bounded by what we posted: a chunk we read
    // lands inside our buffer whatever the slot says.
    const uint64_t length = s.copy_length.load(std::memory_order_relaxed);
    const uint64_t chunk = s.copy_chunk.load(std::memory_order_relaxed);
    const uint64_t source = s.copy_source.load(std::memory_order_relaxed);
    const auto pid = static_cast<pid_t>(s.copy_pid.load(std::memory_order_relaxed));
    if (length > capacities_[slot] || chunk < 4096 || chunk > (uint64_t{1} << 30) || source + length < source ||
        peer_check_ == nullptr || !peer_check_(peer_check_arg_, pid)) {
      continue;  // not helped: the sender copies it all, and we check what it reports
    }
    TagCopyClaim piece;
    if (!claim_copy_chunk(s, true, (length + chunk - 1) / chunk, chunk, length, piece)) continue;
    if (cma_read(pid, buffers_[slot] + piece.offset, source + piece.offset, piece.length) != 0) {
      s.copy_failed.store(1, std::memory_order_relaxed);
    }
    s.copy_done.fetch_add(piece.length, std::memory_order_release);
    ++taken;
  }
  return taken;
}

unsigned ShmTagDevice::poll() noexcept {
  if (in_use_ == 0) return 0;
  unsigned reported = 0;
  if (TERN_UNLIKELY(table_->copies_open.load(std::memory_order_relaxed) != 0)) reported = help_copies();
  const uint64_t completions = table_->completions.load(std::memory_order_acquire);
  if (completions == seen_) return reported;
  for (uint64_t pending = in_use_; pending != 0; pending &= pending - 1) {
    const auto slot = static_cast<uint32_t>(std::countr_zero(pending));
    TagSlot& s = table_->slots[slot];
    const uint64_t done = tag_state(generations_[slot], TagPhase::Done);
    // Done in the generation we posted, or nothing we believe.
    if (s.state.load(std::memory_order_acquire) != done) continue;
    TagDeviceCompletion completion;
    completion.slot = slot;
    completion.tag = s.message_tag.load(std::memory_order_relaxed);
    completion.length = s.message_length.load(std::memory_order_relaxed);
    completion.sender_uuid = s.sender_uuid.load(std::memory_order_relaxed);
    const uint64_t failed = s.failed.load(std::memory_order_relaxed);
    completion.status = failed == 0 ? Status::Ok : Status::IoError;
    if (TERN_UNLIKELY(failed > 1)) {
      TERN_LOG(Error, "shm: a posted receive was marked done with a flag no sender writes (%llu)",
               static_cast<unsigned long long>(failed));
    }
    s.state.store(tag_state(generations_[slot] + 1, TagPhase::Free), std::memory_order_release);
    release(slot, generations_[slot] + 1);
    ++reported;
    if (handler_ != nullptr) handler_(handler_arg_, completion);
  }
  seen_ = completions;
  return reported;
}

}  // namespace tern::engine::transport::shm
