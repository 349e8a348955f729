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
//
// Shared copies: a sender that claims a large receive describes its copy in
// the slot (TagCopy) and moves it in chunks from the front. The owner, once
// back in the library with the copy unfinished, reads chunks from the back
// (process_vm_readv) until the two meet, so the part of the transfer that
// outlasted the owner's computation moves on two cores instead of one. The
// sender marks the receive done only after every chunk has landed.
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
  // A large claimed receive's copy (open names the claim), both sides.
  alignas(kCacheLine) std::atomic<uint64_t> copy_open{0};  // the claim's generation + 1; else stale
  std::atomic<uint64_t> copy_source{0};                    // the sender's buffer, in its address space
  std::atomic<uint64_t> copy_pid{0};                       // the sender's process
  std::atomic<uint64_t> copy_length{0};                    // bytes to move
  std::atomic<uint64_t> copy_chunk{0};                     // bytes per claim
  std::atomic<uint64_t> copy_claims{0};                    // next front chunk | end of the back ones << 32
  std::atomic<uint64_t> copy_done{0};                      // bytes moved, by either side
  std::atomic<uint64_t> copy_failed{0};                    // 1: the owner could not read a chunk
};
static_assert(sizeof(TagSlot) == 3 * kCacheLine);

// Chunks of a shared copy: small enough that an owner who comes back midway
// finds some left. Each claim takes half of what is left (at least one
// chunk): a CMA call costs about 1.5 us here besides its copy (a 4 MiB
// message moved 128 KiB at a time took 30% longer than in one call), so
// claims shrink as the two sides near each other instead of all being small.
inline constexpr uint64_t kTagCopyChunk = uint64_t{128} << 10;
// Copies shorter than this go in one piece (nothing left to share).
inline constexpr uint64_t kTagCopyShared = 4 * kTagCopyChunk;

struct TagTable {
  // The owner's: its Posted slots (a bit each) and the number its next post
  // takes. Senders read both before looking at slots.
  alignas(kCacheLine) std::atomic<uint64_t> next_sequence{0};
  std::atomic<uint64_t> posted{0};
  // Senders bump it after each slot they mark Done.
  alignas(kCacheLine) std::atomic<uint64_t> completions{0};
  // Shared copies under way (senders count them in and out): the owner
  // looks at slots for chunks to take only while it is not zero.
  std::atomic<uint64_t> copies_open{0};
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
// `tag` matches. False when none does (or other claimants kept winning), or
// when `acceptable(arg, buffer, capacity)` refuses that receive: then no
// later one is taken either, which would overtake it.
using AcceptReceive = bool (*)(void* arg, uint64_t buffer, uint64_t capacity);
[[nodiscard]] bool claim_posted_receive(TagTable& table, uint64_t tag, TagClaim& claim,
                                        AcceptReceive acceptable = nullptr, void* arg = nullptr) noexcept;

// Sender side, after writing the message (or failing to): hands the
// receive to its owner, who completes it.
void finish_claimed_receive(TagTable& table, const TagClaim& claim, uint64_t sender_uuid, uint64_t tag,
                            uint64_t length, bool failed) noexcept;

// Takes the next chunks of a shared copy from the front (the sender) or the
// back (the owner) of `chunks` chunks of `chunk` bytes in `length`; false
// once none is left. `chunks`, `chunk` and `length` are the caller's own
// record of the copy: the claims word is written by both processes and
// bounds nothing by itself.
struct TagCopyClaim {
  uint64_t offset = 0;
  uint64_t length = 0;
};
[[nodiscard]] bool claim_copy_chunk(TagSlot& slot, bool from_back, uint64_t chunks, uint64_t chunk, uint64_t length,
                                    TagCopyClaim& out) noexcept;

// Whether anything is posted at all: one load of the line the owner
// writes when it posts.
[[nodiscard]] inline bool anything_posted(const TagTable& table) noexcept {
  return table.posted.load(std::memory_order_relaxed) != 0;
}

}  // namespace tern::engine::transport::shm
