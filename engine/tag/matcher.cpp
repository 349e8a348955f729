#include "tag/matcher.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <new>

#include "tern/runtime/compiler.hpp"

namespace tern::engine::tag {

namespace {

using runtime::ListHook;

constexpr uint64_t kFullMask = ~uint64_t{0};
// Fewer than two buckets would need a shift of 64, which C++ leaves undefined.
constexpr std::size_t kMinBuckets = 2;

// Tag layouts put the interesting bits anywhere: MPI-style tags keep the user
// tag in the high bits, so folding the high half down before the multiply
// lets those bits reach the top bits the index is taken from.
inline std::size_t bucket_index(uint64_t tag, unsigned shift) noexcept {
  uint64_t x = tag ^ (tag >> 32);
  x *= 0x9e3779b97f4a7c15ull;  // odd: the multiply is a bijection
  return static_cast<std::size_t>(x >> shift);
}

// The entries are standard-layout, so their hook offsets are plain constants.
inline ExpectedEntry* expected_of(ListHook* h) noexcept {
  return reinterpret_cast<ExpectedEntry*>(reinterpret_cast<char*>(h) -
                                          offsetof(ExpectedEntry, hook));
}
inline UnexpectedEntry* unexpected_of_bucket(ListHook* h) noexcept {
  return reinterpret_cast<UnexpectedEntry*>(reinterpret_cast<char*>(h) -
                                            offsetof(UnexpectedEntry, bucket_hook));
}

uint64_t expected_tag(const ListHook* h) noexcept {
  return expected_of(const_cast<ListHook*>(h))->tag;
}
uint64_t unexpected_tag(const ListHook* h) noexcept {
  return unexpected_of_bucket(const_cast<ListHook*>(h))->tag;
}

inline void make_empty(ListHook* head) noexcept { head->prev = head->next = head; }

inline void insert_before(ListHook* position, ListHook* h) noexcept {
  h->next = position;
  h->prev = position->prev;
  position->prev->next = h;
  position->prev = h;
}

ListHook* allocate_heads(std::size_t count) noexcept {
  auto* heads = new (std::nothrow) ListHook[count];
  if (heads != nullptr) {
    for (std::size_t i = 0; i < count; ++i) make_empty(&heads[i]);
  }
  return heads;
}

}  // namespace

// ---------------------------------------------------------------------------
// TagTable

Matcher::TagTable::TagTable(std::size_t buckets, TagOf tag_of) : tag_of_(tag_of) {
  bucket_count_ = std::bit_ceil(buckets < kMinBuckets ? kMinBuckets : buckets);
  shift_ = 64u - static_cast<unsigned>(std::countr_zero(bucket_count_));
  heads_ = allocate_heads(bucket_count_);
  if (heads_ == nullptr) throw std::bad_alloc();  // construction is not a hot path
}

Matcher::TagTable::~TagTable() { delete[] heads_; }

// Inline: every post and every arrival asks (only this file calls it).
inline ListHook* Matcher::TagTable::head(uint64_t tag) const noexcept {
  return &heads_[bucket_index(tag, shift_)];
}

void Matcher::TagTable::link(ListHook* hook, uint64_t tag) noexcept {
  if (TERN_UNLIKELY(entries_ >= bucket_count_)) grow();
  insert_before(head(tag), hook);
  ++entries_;
}

void Matcher::TagTable::unlink(ListHook* hook) noexcept {
  hook->prev->next = hook->next;
  hook->next->prev = hook->prev;
  hook->prev = hook->next = nullptr;  // linked() is how cancel tells a matched entry
  --entries_;
}

// Moving each old bucket's entries front to back keeps every tag's queue in
// order: all entries of one tag share an old bucket and land in one new one.
// If the larger array cannot be had, the table stays as it is: lookups get
// slower but nothing fails on the post path.
void Matcher::TagTable::grow() noexcept {
  const std::size_t new_count = bucket_count_ * 2;
  if (new_count == 0) return;
  ListHook* new_heads = allocate_heads(new_count);
  if (new_heads == nullptr) return;
  const unsigned new_shift = shift_ - 1;
  for (std::size_t i = 0; i < bucket_count_; ++i) {
    ListHook* old_head = &heads_[i];
    for (ListHook* h = old_head->next; h != old_head;) {
      ListHook* following = h->next;
      insert_before(&new_heads[bucket_index(tag_of_(h), new_shift)], h);
      h = following;
    }
  }
  delete[] heads_;
  heads_ = new_heads;
  bucket_count_ = new_count;
  shift_ = new_shift;
}

std::size_t Matcher::TagTable::longest_bucket() const noexcept {
  std::size_t longest = 0;
  for (std::size_t i = 0; i < bucket_count_; ++i) {
    std::size_t length = 0;
    for (const ListHook* h = heads_[i].next; h != &heads_[i]; h = h->next) ++length;
    longest = std::max(longest, length);
  }
  return longest;
}

// ---------------------------------------------------------------------------
// Matcher

Matcher::Matcher(std::size_t initial_buckets)
    : expected_table_(initial_buckets, &expected_tag),
      unexpected_table_(initial_buckets, &unexpected_tag) {}

// Entries still queued belong to their callers; only the bucket arrays go.
Matcher::~Matcher() = default;

void Matcher::post(ExpectedEntry* entry) {
  entry->sequence = next_expected_sequence_++;
  if (entry->mask == kFullMask) {
    expected_table_.link(&entry->hook, entry->tag);
  } else {
    wildcard_.push_back(entry);
  }
  ++expected_count_;
}

ExpectedEntry* Matcher::match_expected(uint64_t tag) {
  ExpectedEntry* exact = nullptr;
  if (expected_table_.entries() != 0) {
    ListHook* head = expected_table_.head(tag);
    for (ListHook* h = head->next; h != head; h = h->next) {
      ExpectedEntry* candidate = expected_of(h);
      if (candidate->tag == tag) {
        exact = candidate;
        break;
      }
    }
  }

  // The wildcard queue is in sequence order, so once it passes the exact
  // candidate nothing further in it can be earlier.
  ExpectedEntry* wild = nullptr;
  for (ExpectedEntry* e = wildcard_.front(); e != nullptr; e = wildcard_.next(e)) {
    if (exact != nullptr && e->sequence > exact->sequence) break;
    if (((e->tag ^ tag) & e->mask) == 0) {
      wild = e;
      break;
    }
  }

  if (wild != nullptr) {
    wildcard_.remove(wild);
    --expected_count_;
    return wild;
  }
  if (exact != nullptr) {
    expected_table_.unlink(&exact->hook);
    --expected_count_;
  }
  return exact;
}

bool Matcher::remove_expected(ExpectedEntry* entry) {
  if (!entry->hook.linked()) return false;
  if (entry->mask == kFullMask) {
    expected_table_.unlink(&entry->hook);
  } else {
    wildcard_.remove(entry);
  }
  --expected_count_;
  return true;
}

void Matcher::add_unexpected(UnexpectedEntry* entry) {
  entry->sequence = next_unexpected_sequence_++;
  unexpected_table_.link(&entry->bucket_hook, entry->tag);
  arrivals_.push_back(entry);
  ++unexpected_count_;
}

UnexpectedEntry* Matcher::find_unexpected(uint64_t tag, uint64_t mask, bool remove) {
  UnexpectedEntry* found = nullptr;
  if (mask == kFullMask) {
    // Same-tag messages share a bucket in arrival order, so the first exact
    // hit there is also the earliest arrived.
    if (unexpected_table_.entries() != 0) {
      ListHook* head = unexpected_table_.head(tag);
      for (ListHook* h = head->next; h != head; h = h->next) {
        UnexpectedEntry* candidate = unexpected_of_bucket(h);
        if (candidate->tag == tag) {
          found = candidate;
          break;
        }
      }
    }
  } else {
    for (UnexpectedEntry* e = arrivals_.front(); e != nullptr; e = arrivals_.next(e)) {
      if (((e->tag ^ tag) & mask) == 0) {
        found = e;
        break;
      }
    }
  }
  if (found != nullptr && remove) remove_unexpected(found);
  return found;
}

void Matcher::remove_unexpected(UnexpectedEntry* entry) {
  if (!entry->bucket_hook.linked()) return;
  unexpected_table_.unlink(&entry->bucket_hook);
  arrivals_.remove(entry);
  --unexpected_count_;
}

}  // namespace tern::engine::tag
