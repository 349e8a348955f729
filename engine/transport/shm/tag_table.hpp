// The shared-memory tag-matching device: a table of posted receives in the
// receiver's segment, which local senders match their messages against
// themselves. A sender that finds a receive claims it with one atomic,
// writes its message straight into the receive buffer (CMA, or a copy into
// mapped memory) and marks it done: no rendezvous round trip, and the
// receiver's CPU is not needed for the data to land.
//
// Ordering (MPI's earliest posted receive wins): the owner numbers its posts
// and publishes the next number after each; a sender reads that number
// first and considers only receives numbered below it, all of whose posts
// it then sees, and among them takes the lowest number that matches. The
// engine posts a receive here only when no receive outside the table could
// match what it matches (engine/tag/offload.hpp), and a sender uses the
// table only when the receiver has read everything it sent before
// (ShmEp::tag_offload_send), so a message never overtakes an earlier one
// from the same sender.
//
// A slot's state word holds a generation and a phase; every change of owner
// is a compare-and-swap on it, so a sender that read a slot which was taken
// back and posted again in the meantime fails its claim.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport::shm {

inline constexpr uint32_t kTagSlots = 64;

enum class TagPhase : uint64_t {
  Free = 0,     // the owner's: nothing posted
  Posted = 1,   // a receive waits; senders and the owner may claim it
  Claimed = 2,  // a sender is writing into it
  Done = 3,     // the sender wrote it; the owner completes it
};

[[nodiscard]] constexpr uint64_t tag_state(uint64_t generation, TagPhase phase) noexcept {
  return (generation << 2) | static_cast<uint64_t>(phase);
}
[[nodiscard]] constexpr TagPhase tag_phase(uint64_t state) noexcept { return static_cast<TagPhase>(state & 3); }
[[nodiscard]] constexpr uint64_t tag_generation(uint64_t state) noexcept { return state >> 2; }

// Fields are atomics (relaxed) because the other side may read one while it
// is rewritten; the state word's compare-and-swap tells whether what was
// read still holds.
struct TagSlot {
  // Written by the owner while Free, published by `state`; read by senders.
  alignas(kCacheLine) std::atomic<uint64_t> state{0};
  std::atomic<uint64_t> tag{0};
  std::atomic<uint64_t> mask{0};
  std::atomic<uint64_t> buffer{0};    // in the owner's address space
  std::atomic<uint64_t> capacity{0};  // bytes
  std::atomic<uint64_t> sequence{0};  // posting order
  // Written by the claiming sender before it marks the slot Done.
  alignas(kCacheLine) std::atomic<uint64_t> sender_uuid{0};
  std::atomic<uint64_t> message_tag{0};
  std::atomic<uint64_t> message_length{0};
  std::atomic<uint64_t> failed{0};  // 1: the sender could not write the buffer
};
static_assert(sizeof(TagSlot) == 2 * kCacheLine);

struct TagTable {
  // The owner's: its Posted slots (a bit each) and the number its next post
  // takes. Senders read both before looking at slots.
  alignas(kCacheLine) std::atomic<uint64_t> next_sequence{0};
  std::atomic<uint64_t> posted{0};
  // Senders bump it after each slot they mark Done.
  alignas(kCacheLine) std::atomic<uint64_t> completions{0};
  // The owner's: 1 while it waits in the library (ShmEp::tag_offload_send
  // then sends the ordinary way, where the owner's CPU shares the copy).
  alignas(kCacheLine) std::atomic<uint32_t> owner_waiting{0};
  TagSlot slots[kTagSlots];
};

// A receive a sender claimed: where to write, and the state to finish it from.
struct TagClaim {
  uint32_t slot = 0;
  uint64_t state = 0;  // Claimed, with the slot's generation
  uint64_t buffer = 0;
  uint64_t capacity = 0;
};

// Sender side: claims the earliest posted receive that a message tagged
// `tag` matches. False when none does (or other claimants kept winning).
[[nodiscard]] bool claim_posted_receive(TagTable& table, uint64_t tag, TagClaim& claim) noexcept;

// Sender side, after writing the message (or failing to): hands the
// receive to its owner, who completes it.
void finish_claimed_receive(TagTable& table, const TagClaim& claim, uint64_t sender_uuid, uint64_t tag,
                            uint64_t length, bool failed) noexcept;

// Whether anything is posted at all: one load of the line the owner
// writes when it posts.
[[nodiscard]] inline bool anything_posted(const TagTable& table) noexcept {
  return table.posted.load(std::memory_order_relaxed) != 0;
}

}  // namespace tern::engine::transport::shm
