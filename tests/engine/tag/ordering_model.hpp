// The reference model of MPI matching that ordering_stress_test.cpp checks
// every delivery against (that file's top comment says what it checks and
// why the checks are exact). This header holds what both sides of a message
// must agree on (tags, payloads, the send plan) and the receiver's checks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tern/runtime/config.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine::tag::stress {

// --- Tags: a fixed context (bits 48-63), the sender's rank (32-39) and a
// user tag (0-31), like an MPI front end packs them.
inline constexpr uint64_t kContext = uint64_t{0x5eed} << 48;
inline constexpr unsigned kSourceShift = 32;
inline constexpr uint64_t kSourceBits = uint64_t{0xff} << kSourceShift;
inline constexpr uint64_t kUserBits = 0xffffffffu;
inline constexpr unsigned kUserTags = 8;
inline constexpr unsigned kMaxRanks = 8;

inline uint64_t make_tag(unsigned source, uint32_t user_tag) {
  return kContext | (uint64_t{source} << kSourceShift) | user_tag;
}
inline unsigned source_of(uint64_t tag) { return static_cast<unsigned>((tag & kSourceBits) >> kSourceShift); }
inline bool tag_matches(uint64_t message_tag, uint64_t tag, uint64_t mask) { return ((message_tag ^ tag) & mask) == 0; }

inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// --- Payloads. A message of 8 bytes or more starts with its id (sender,
// receiver, per-pair sequence number) and continues with words derived from
// it, so a receiver names each message it gets. Shorter ones cannot carry
// an id: their bytes depend only on (tag, length, receiver), so that two of
// them differ in nothing a receive could observe (see the model's classes).
inline constexpr std::size_t kIdBytes = sizeof(uint64_t);
inline constexpr unsigned kSeqBits = 48;

inline uint64_t message_id(unsigned sender, unsigned receiver, uint64_t seq) {
  return (uint64_t{sender} << 56) | (uint64_t{receiver} << kSeqBits) | seq;
}
inline uint64_t short_message_key(uint64_t tag, std::size_t length, unsigned receiver) {
  return mix(tag ^ mix(length + (uint64_t{receiver} << 40)));
}

// Word `index` of the payload of the message keyed `key`.
inline uint64_t payload_word(uint64_t key, std::size_t index) { return mix(key * 31 + index); }

inline void fill_payload(unsigned char* out, std::size_t length, uint64_t id, uint64_t short_key) {
  if (length == 0) return;  // `out` may be null then
  if (length < kIdBytes) {
    const uint64_t word = payload_word(short_key, 0);
    std::memcpy(out, &word, length);
    return;
  }
  std::memcpy(out, &id, kIdBytes);
  std::size_t offset = kIdBytes;
  for (std::size_t index = 0; offset < length; ++index, offset += sizeof(uint64_t)) {
    const uint64_t word = payload_word(id, index);
    std::memcpy(out + offset, &word, std::min(sizeof(word), length - offset));
  }
}

// The first byte where `data` differs from fill_payload's bytes, or `length`.
inline std::size_t first_payload_difference(const unsigned char* data, std::size_t length, uint64_t id,
                                            uint64_t short_key) {
  unsigned char expected[sizeof(uint64_t)];
  std::size_t offset = 0;
  if (length < kIdBytes) {
    const uint64_t word = payload_word(short_key, 0);
    std::memcpy(expected, &word, sizeof(word));
  } else {
    std::memcpy(expected, &id, kIdBytes);
  }
  for (std::size_t index = 0; offset < length; offset += sizeof(uint64_t)) {
    const std::size_t chunk = std::min(sizeof(uint64_t), length - offset);
    if (std::memcmp(data + offset, expected, chunk) != 0) {
      for (std::size_t i = 0; i < chunk; ++i)
        if (data[offset + i] != expected[i]) return offset + i;
    }
    const uint64_t word = payload_word(id, index++);
    std::memcpy(expected, &word, sizeof(word));
  }
  return length;
}

// --- The send plan: what each sender sends each receiver, in order. Both
// ends compute it from the seed, so the receiver knows every message it
// must get without being told at run time.
struct SizeMenu {
  std::vector<std::size_t> tiny;        // 0 B and the lengths around the id header
  std::vector<std::size_t> cell_edges;  // around the short and one-fragment limits, multi-fragment
  std::vector<std::size_t> thresholds;  // the eager/rendezvous thresholds +-1
  std::vector<std::size_t> large;       // rendezvous up to max_length
  std::size_t one_cell = 0;             // payload of one FIFO cell
  std::size_t one_fragment = 0;         // payload of a first fragment
  std::size_t max_length = 0;
  std::size_t offload_threshold = 0;    // receives from this capacity on may go to a matching device
};

struct Setup {
  uint64_t seed = 0;
  unsigned ranks = 0;
  std::size_t messages_per_pair = 0;
  std::size_t longest_sync = SIZE_MAX;  // synchronous sends only up to this length
  bool mapped_buffers = false;           // every other receive buffer from Worker::mem_alloc
  uint32_t user_tags[kUserTags] = {};
  SizeMenu sizes;
};

// The lengths worth sending, from the configuration the engine reads
// (TERN_SHM_CELL_SIZE, TERN_RNDV_THRESH, TERN_TM_THRESH) for a job of `ranks`.
SizeMenu size_menu(const runtime::Config& config, unsigned ranks);

struct PlannedMessage {
  uint64_t tag = 0;
  std::size_t length = 0;
  bool sync = false;
};

// User tags that differ from each other in three bit positions only, so
// that arbitrary masks make them collide in every pattern.
inline void choose_user_tags(uint64_t seed, uint32_t (&out)[kUserTags]) {
  std::mt19937_64 rng(mix(seed ^ 0x7a65));
  const uint32_t base = static_cast<uint32_t>(rng());
  unsigned bits[3];
  for (unsigned& bit : bits) bit = static_cast<unsigned>(rng() % 32);
  for (unsigned k = 0; k < kUserTags; ++k) {
    uint32_t tag = base;
    for (unsigned b = 0; b < 3; ++b)
      if ((k >> b) & 1u) tag ^= uint32_t{1} << bits[b];
    out[k] = tag;
  }
}

template <typename Rng>
std::size_t pick(const std::vector<std::size_t>& from, Rng& rng) {
  return from[rng() % from.size()];
}

template <typename Rng>
std::size_t random_length(const SizeMenu& menu, Rng& rng) {
  const unsigned roll = static_cast<unsigned>(rng() % 1000);
  if (roll < 120) return pick(menu.tiny, rng);
  if (roll < 600) return 9 + rng() % 1016;
  if (roll < 800) return menu.one_cell + 1 + rng() % (3 * menu.one_cell);
  if (roll < 950) return pick(menu.cell_edges, rng);
  if (roll < 990) return pick(menu.thresholds, rng);
  return pick(menu.large, rng);
}

inline std::vector<PlannedMessage> plan_pair(const Setup& setup, unsigned sender, unsigned receiver) {
  std::mt19937_64 rng(mix(setup.seed ^ mix((uint64_t{setup.ranks} << 16) | (sender << 8) | receiver)));
  std::vector<PlannedMessage> plan(setup.messages_per_pair);
  for (PlannedMessage& message : plan) {
    message.tag = make_tag(sender, setup.user_tags[rng() % kUserTags]);
    message.length = random_length(setup.sizes, rng);
    message.sync = rng() % 8 == 0 && message.length <= setup.longest_sync;
  }
  return plan;
}

// --- What a receiver saw, in program order. `op` is the receiver's
// operation counter; `epoch` changes whenever the worker may have made
// progress (progress, test, any send): within one epoch the unexpected
// queue only loses messages to the receiver's own calls.
inline constexpr uint64_t kNoOp = UINT64_MAX;
inline constexpr std::size_t kNoDifference = SIZE_MAX;

enum class Outcome : uint8_t { Pending, Delivered, Canceled };

// A posted receive or a probe that removed a message (both consume one).
struct ConsumeRecord {
  uint64_t op = 0;
  uint64_t epoch = 0;
  uint64_t tag = 0;
  uint64_t mask = 0;
  std::size_t capacity = 0;    // of its buffer: longer messages end Truncated
  bool is_probe = false;
  bool done_at_once = false;   // completed within the call that started it
  bool after_peek = false;     // a probe just before it, same spec and epoch, saw peek_tag/peek_length
  uint64_t peek_tag = 0;
  std::size_t peek_length = 0;
  Outcome outcome = Outcome::Pending;
  uint64_t cancel_op = kNoOp;  // the cancel that succeeded
  bool cancel_refused = false; // a cancel answered Busy: the receive was matched
  bool canceled_buffer_touched = false;
  uint64_t seen_done_op = kNoOp;  // where its completion was observed
  Status status = Status::InProgress;
  uint64_t sender_tag = 0;
  std::size_t length = 0;
  uint64_t header_id = 0;                // the id its payload starts with (8 bytes or more)
  std::size_t bad_byte = kNoDifference;  // first byte that differs from that message's
  bool overrun = false;                  // written past the message's end
  // Filled by the model: the message it got.
  unsigned source = 0;
  uint64_t seq = 0;
};

// A probe that found nothing, or a peek (probe without removal) that saw a message.
struct ProbeRecord {
  uint64_t op = 0;
  uint64_t epoch = 0;
  uint64_t tag = 0;
  uint64_t mask = 0;
  bool found = false;
  uint64_t seen_tag = 0;
};

struct ReceiverLog {
  std::vector<ConsumeRecord> consumers;  // in program order
  std::vector<ProbeRecord> probes;       // in program order
};

struct ModelCounts {
  uint64_t deliveries = 0;
  uint64_t bytes = 0;
  uint64_t canceled = 0;
  uint64_t cancel_refused = 0;
  uint64_t overtaking_checks = 0;  // (delivery, earlier message of that sender it also matches) pairs
  uint64_t epoch_checks = 0;
  uint64_t ambiguous = 0;  // short messages named by their class
};

// The receiver's checks; the difference with the smallest op index that the
// first failing check finds, or nothing.
std::optional<std::string> check_receiver(const Setup& setup, unsigned receiver,
                                          const std::vector<std::vector<PlannedMessage>>& plans_by_sender,
                                          ReceiverLog& log, ModelCounts& counts);

std::string describe_tag(uint64_t tag);
std::string describe(const ConsumeRecord& record);

}  // namespace tern::engine::tag::stress
