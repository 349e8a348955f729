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

  [[nodiscard]] std::size_t expected_count() const noexcept { return expected_count_; }
  [[nodiscard]] std::size_t unexpected_count() const noexcept { return unexpected_count_; }

 private:
  using ExpectedQueue = runtime::IntrusiveList<ExpectedEntry, &ExpectedEntry::hook>;
  using BucketQueue = runtime::IntrusiveList<UnexpectedEntry, &UnexpectedEntry::bucket_hook>;
  using ArrivalQueue = runtime::IntrusiveList<UnexpectedEntry, &UnexpectedEntry::arrival_hook>;

  // Implementation-defined members (hash tables that grow to keep buckets
  // short, the wildcard queue, the arrival list, sequence counters).
  struct Tables;
  Tables* tables_;
  std::size_t expected_count_ = 0;
  std::size_t unexpected_count_ = 0;
};

}  // namespace tern::engine::tag
