#include "tag_table.hpp"

#include <algorithm>
#include <bit>

namespace tern::engine::transport::shm {
namespace {

// Claims lost to other senders (or to the owner) before this one gives up
// and sends the ordinary way: each loss means someone else took a receive.
constexpr int kClaimAttempts = 4;

}  // namespace

bool claim_posted_receive(TagTable& table, uint64_t tag, TagClaim& claim, AcceptReceive acceptable,
                          void* arg) noexcept {
  for (int attempt = 0; attempt < kClaimAttempts; ++attempt) {
    // The number first: every post numbered below it is visible after it.
    const uint64_t limit = table.next_sequence.load(std::memory_order_acquire);
    uint64_t posted = table.posted.load(std::memory_order_acquire);
    int best = -1;
    uint64_t best_sequence = UINT64_MAX;
    uint64_t best_state = 0;
    while (posted != 0) {
      const auto slot = static_cast<uint32_t>(std::countr_zero(posted));
      posted &= posted - 1;
      TagSlot& s = table.slots[slot];
      const uint64_t state = s.state.load(std::memory_order_acquire);
      if (tag_phase(state) != TagPhase::Posted) continue;
      const uint64_t sequence = s.sequence.load(std::memory_order_relaxed);
      if (sequence >= limit || sequence >= best_sequence) continue;
      const uint64_t mask = s.mask.load(std::memory_order_relaxed);
      if (((tag ^ s.tag.load(std::memory_order_relaxed)) & mask) != 0) continue;
      best = static_cast<int>(slot);
      best_sequence = sequence;
      best_state = state;
      claim.buffer = s.buffer.load(std::memory_order_relaxed);
      claim.capacity = s.capacity.load(std::memory_order_relaxed);
    }
    if (best < 0 || (acceptable != nullptr && !acceptable(arg, claim.buffer, claim.capacity))) return false;
    TagSlot& s = table.slots[best];
    const uint64_t claimed = tag_state(tag_generation(best_state), TagPhase::Claimed);
    uint64_t expected = best_state;
    if (s.state.compare_exchange_strong(expected, claimed, std::memory_order_acq_rel, std::memory_order_relaxed)) {
      claim.slot = static_cast<uint32_t>(best);
      claim.state = claimed;
      return true;
    }
  }
  return false;
}

void finish_claimed_receive(TagTable& table, const TagClaim& claim, uint64_t sender_uuid, uint64_t tag,
                            uint64_t length, bool failed) noexcept {
  TagSlot& s = table.slots[claim.slot];
  s.sender_uuid.store(sender_uuid, std::memory_order_relaxed);
  s.message_tag.store(tag, std::memory_order_relaxed);
  s.message_length.store(length, std::memory_order_relaxed);
  s.failed.store(failed ? 1 : 0, std::memory_order_relaxed);
  s.state.store(tag_state(tag_generation(claim.state), TagPhase::Done), std::memory_order_release);
  // seq_cst: before the sender looks whether the owner sleeps.
  table.completions.fetch_add(1, std::memory_order_seq_cst);
}

bool claim_copy_chunk(TagSlot& slot, bool from_back, uint64_t chunks, uint64_t chunk, uint64_t length,
                      TagCopyClaim& out) noexcept {
  uint64_t word = slot.copy_claims.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t front = word & 0xffffffffu;
    const uint64_t back = std::min<uint64_t>(word >> 32, chunks);
    if (front >= back) return false;
    // Half of what is left: few system calls, and the other side still
    // finds chunks when it comes.
    const uint64_t count = std::max<uint64_t>((back - front) / 2, 1);
    const uint64_t first = from_back ? back - count : front;
    const uint64_t next = from_back ? (first << 32) | front : (back << 32) | (front + count);
    if (slot.copy_claims.compare_exchange_weak(word, next, std::memory_order_relaxed)) {
      out.offset = first * chunk;
      out.length = std::min(count * chunk, length - out.offset);
      return true;
    }
  }
}

}  // namespace tern::engine::transport::shm
