// Tag matching: posted receives (expected) against arrived messages
// (unexpected). A message with tag T matches a receive (tag R, mask M) when
// (T & M) == (R & M).
//
// Both queues keep MPI order: among the receives a message matches, the
// earliest posted wins; among the messages a receive matches, the earliest
// arrived wins. Receives with a full mask live in a hash of per-tag queues,
// the others in one wildcard queue; a lookup compares the head candidates of
// the two by sequence number, so its cost does not grow with the number of
// receives posted for other tags. Unexpected messages sit both in a per-tag
// hash queue (for full-mask receives) and in one arrival-ordered list (for
// wildcard receives).
//
// The matcher owns no memory of its entries: they are embedded in requests and
// unexpected descriptors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::tag {

struct ExpectedEntry {
  uint64_t tag = 0;
  uint64_t mask = 0;
  uint64_t sequence = 0;  // set by the matcher on post
  runtime::ListHook hook;
  int32_t device_slot = -1;  // where a tag device holds it too (offload.hpp); -1: software only
};

struct UnexpectedEntry {
  uint64_t tag = 0;
  uint64_t sequence = 0;  // set by the matcher on add
  runtime::ListHook bucket_hook;
  runtime::ListHook arrival_hook;
};

class Matcher {
 public:
  explicit Matcher(std::size_t initial_buckets = 1024);
  ~Matcher();
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  // Queues a posted receive. The caller has already checked the unexpected
  // queue (find_unexpected) and found nothing.
  void post(ExpectedEntry* entry);
  // Removes and returns the earliest posted receive matching `tag`, or null.
  [[nodiscard]] ExpectedEntry* match_expected(uint64_t tag);
  // Removes a posted receive (cancel). False if it was not queued.
  bool remove_expected(ExpectedEntry* entry);

  // Queues an arrived message that matched no posted receive.
  void add_unexpected(UnexpectedEntry* entry);
  // The earliest arrived message matching (tag, mask), or null; with `remove`
  // it is taken out of the queue.
  [[nodiscard]] UnexpectedEntry* find_unexpected(uint64_t tag, uint64_t mask, bool remove);
  void remove_unexpected(UnexpectedEntry* entry);
  // The earliest arrived message for which `predicate` holds, or null
  // (a walk of every unexpected message: for rare lookups, such as a
  // sender's cancel).
  template <typename Predicate>
  [[nodiscard]] UnexpectedEntry* find_arrived(Predicate&& predicate) {
    for (UnexpectedEntry* entry = arrivals_.front(); entry != nullptr; entry = arrivals_.next(entry)) {
      if (predicate(*entry)) return entry;
    }
    return nullptr;
  }

  [[nodiscard]] std::size_t expected_count() const noexcept { return expected_count_; }
  [[nodiscard]] std::size_t unexpected_count() const noexcept { return unexpected_count_; }

 private:
  friend class MatcherInspector;  // white-box tests of table growth and bucket spread

  using WildcardQueue = runtime::IntrusiveList<ExpectedEntry, &ExpectedEntry::hook>;
  using ArrivalQueue = runtime::IntrusiveList<UnexpectedEntry, &UnexpectedEntry::arrival_hook>;

  // Power-of-two array of per-tag queues indexed by a mix of the full 64-bit
  // tag. Bucket heads are bare circular hooks rather than IntrusiveLists: two
  // pointers per bucket instead of three, and an entry unlinks without
  // knowing which bucket (or which table size) it was queued under.
  class TagTable {
   public:
    using TagOf = uint64_t (*)(const runtime::ListHook*);

    TagTable(std::size_t buckets, TagOf tag_of);
    ~TagTable();
    TagTable(const TagTable&) = delete;
    TagTable& operator=(const TagTable&) = delete;

    [[nodiscard]] runtime::ListHook* head(uint64_t tag) const noexcept;
    // Appends to the tag's queue; doubles the table first when it would
    // otherwise hold more entries than buckets.
    void link(runtime::ListHook* hook, uint64_t tag) noexcept;
    void unlink(runtime::ListHook* hook) noexcept;
    [[nodiscard]] std::size_t entries() const noexcept { return entries_; }
    [[nodiscard]] std::size_t bucket_count() const noexcept { return bucket_count_; }
    // Length of the fullest bucket: how evenly the hash spreads (a walk of
    // the whole table, for tests and diagnostics only).
    [[nodiscard]] std::size_t longest_bucket() const noexcept;

   private:
    void grow() noexcept;

    runtime::ListHook* heads_ = nullptr;
    std::size_t bucket_count_ = 0;
    std::size_t entries_ = 0;
    unsigned shift_ = 0;  // 64 - log2(bucket_count_): the index is the top bits of the mix
    TagOf tag_of_;        // recovers an entry's tag from its hook when rehashing
  };

  TagTable expected_table_;    // mask == ~0
  WildcardQueue wildcard_;     // any other mask, in posting order
  TagTable unexpected_table_;  // by bucket_hook
  ArrivalQueue arrivals_;      // every unexpected message, in arrival order
  uint64_t next_expected_sequence_ = 0;
  uint64_t next_unexpected_sequence_ = 0;
  std::size_t expected_count_ = 0;
  std::size_t unexpected_count_ = 0;
};

}  // namespace tern::engine::tag
