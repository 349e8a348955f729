// Tag matcher: MPI ordering across the hash and the wildcard queue, masks,
// cancel, probe, large queues, hash growth, and a randomized comparison with a
// linear-scan reference model.
#include "tag/matcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

namespace tern::engine::tag {

// Reads the matcher's tables; named friend of Matcher.
class MatcherInspector {
 public:
  static std::size_t expected_buckets(const Matcher& m) { return m.expected_table_.bucket_count(); }
  static std::size_t unexpected_buckets(const Matcher& m) {
    return m.unexpected_table_.bucket_count();
  }
  static std::size_t longest_expected_bucket(const Matcher& m) {
    return m.expected_table_.longest_bucket();
  }
  static std::size_t longest_unexpected_bucket(const Matcher& m) {
    return m.unexpected_table_.longest_bucket();
  }
};

namespace {

constexpr uint64_t kFull = ~uint64_t{0};

// An MPI-over-tags layout like the front end's: user tag in the high 32 bits,
// source rank in bits 16..31, communicator context in the low 16.
constexpr uint64_t make_tag(uint64_t user_tag, uint64_t source, uint64_t context) {
  return (user_tag << 32) | (source << 16) | context;
}
constexpr uint64_t kSourceBits = uint64_t{0xffff} << 16;
constexpr uint64_t kUserTagBits = uint64_t{0xffffffff} << 32;
constexpr uint64_t kAnySource = kFull & ~kSourceBits;
constexpr uint64_t kAnyTag = kFull & ~kUserTagBits;
constexpr uint64_t kAnySourceAnyTag = kFull & ~kSourceBits & ~kUserTagBits;

ExpectedEntry expected(uint64_t tag, uint64_t mask = kFull) {
  ExpectedEntry e;
  e.tag = tag;
  e.mask = mask;
  return e;
}

UnexpectedEntry unexpected(uint64_t tag) {
  UnexpectedEntry e;
  e.tag = tag;
  return e;
}

// ---------------------------------------------------------------------------
// Basics and ordering

TEST(Matcher, EmptyMatchesNothing) {
  Matcher m;
  EXPECT_EQ(m.match_expected(0), nullptr);
  EXPECT_EQ(m.match_expected(kFull), nullptr);
  EXPECT_EQ(m.find_unexpected(0, kFull, true), nullptr);
  EXPECT_EQ(m.find_unexpected(0, 0, true), nullptr);
  EXPECT_EQ(m.expected_count(), 0u);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

TEST(Matcher, ExactReceiveMatchesOnlyItsTag) {
  Matcher m;
  ExpectedEntry r = expected(make_tag(7, 1, 3));
  m.post(&r);
  EXPECT_EQ(m.match_expected(make_tag(7, 2, 3)), nullptr);
  EXPECT_EQ(m.match_expected(make_tag(8, 1, 3)), nullptr);
  EXPECT_EQ(m.match_expected(make_tag(7, 1, 4)), nullptr);
  EXPECT_EQ(m.expected_count(), 1u);
  EXPECT_EQ(m.match_expected(make_tag(7, 1, 3)), &r);
  EXPECT_EQ(m.expected_count(), 0u);
  EXPECT_FALSE(r.hook.linked());
  EXPECT_EQ(m.match_expected(make_tag(7, 1, 3)), nullptr);
}

TEST(Matcher, SameTagReceivesMatchInPostingOrder) {
  Matcher m;
  std::vector<ExpectedEntry> recvs(8, expected(42));
  for (auto& r : recvs) m.post(&r);
  EXPECT_EQ(m.expected_count(), recvs.size());
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    EXPECT_EQ(m.match_expected(42), &recvs[i]) << "receive " << i;
  }
  EXPECT_EQ(m.match_expected(42), nullptr);
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(Matcher, SequenceNumbersIncreaseAcrossBothQueues) {
  Matcher m;
  ExpectedEntry a = expected(1);
  ExpectedEntry b = expected(1, kAnySource);
  ExpectedEntry c = expected(2);
  m.post(&a);
  m.post(&b);
  m.post(&c);
  EXPECT_LT(a.sequence, b.sequence);
  EXPECT_LT(b.sequence, c.sequence);

  UnexpectedEntry x = unexpected(5);
  UnexpectedEntry y = unexpected(6);
  m.add_unexpected(&x);
  m.add_unexpected(&y);
  EXPECT_LT(x.sequence, y.sequence);
}

TEST(Matcher, SameTagUnexpectedFoundInArrivalOrder) {
  Matcher m;
  const uint64_t tag = make_tag(3, 9, 1);
  std::vector<UnexpectedEntry> msgs(8, unexpected(tag));
  for (auto& u : msgs) m.add_unexpected(&u);
  EXPECT_EQ(m.unexpected_count(), msgs.size());
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    EXPECT_EQ(m.find_unexpected(tag, kFull, true), &msgs[i]) << "message " << i;
  }
  EXPECT_EQ(m.find_unexpected(tag, kFull, true), nullptr);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

TEST(Matcher, SameTagUnexpectedFoundInArrivalOrderByWildcard) {
  Matcher m;
  std::vector<UnexpectedEntry> msgs;
  for (uint64_t src = 0; src < 6; ++src) msgs.push_back(unexpected(make_tag(3, src % 2, 1)));
  for (auto& u : msgs) m.add_unexpected(&u);
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    EXPECT_EQ(m.find_unexpected(make_tag(3, 0, 1), kAnySource, true), &msgs[i]) << "message " << i;
  }
  EXPECT_EQ(m.unexpected_count(), 0u);
}

TEST(Matcher, RepostedEntryQueuesBehindLaterPosts) {
  Matcher m;
  ExpectedEntry a = expected(11);
  ExpectedEntry b = expected(11);
  m.post(&a);
  ASSERT_EQ(m.match_expected(11), &a);
  m.post(&b);
  m.post(&a);  // a request object reused for a new receive
  EXPECT_EQ(m.match_expected(11), &b);
  EXPECT_EQ(m.match_expected(11), &a);
}

// ---------------------------------------------------------------------------
// Wildcards and masks

TEST(Matcher, WildcardPostedBeforeExactWins) {
  Matcher m;
  const uint64_t tag = make_tag(5, 2, 1);
  ExpectedEntry wild = expected(make_tag(5, 0, 1), kAnySource);
  ExpectedEntry exact = expected(tag);
  m.post(&wild);
  m.post(&exact);
  EXPECT_EQ(m.match_expected(tag), &wild);
  EXPECT_EQ(m.match_expected(tag), &exact);
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(Matcher, ExactPostedBeforeWildcardWins) {
  Matcher m;
  const uint64_t tag = make_tag(5, 2, 1);
  ExpectedEntry exact = expected(tag);
  ExpectedEntry wild = expected(make_tag(5, 0, 1), kAnySource);
  m.post(&exact);
  m.post(&wild);
  EXPECT_EQ(m.match_expected(tag), &exact);
  EXPECT_EQ(m.match_expected(tag), &wild);
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(Matcher, InterleavedExactAndWildcardMatchInPostingOrder) {
  Matcher m;
  const uint64_t tag = make_tag(9, 4, 2);
  // Alternating runs of exact and wildcard receives that all match `tag`,
  // plus receives for other tags that must be skipped.
  std::deque<ExpectedEntry> entries;
  std::vector<ExpectedEntry*> matching;
  const uint64_t masks[] = {kFull, kFull, kAnySource, kAnyTag, kFull, kAnySourceAnyTag,
                            0,     kFull, kAnySource};
  for (uint64_t mask : masks) {
    entries.push_back(expected(make_tag(1, 1, 2)));  // another tag, never matches
    m.post(&entries.back());
    // Junk in the bits the mask ignores must not matter.
    entries.push_back(expected(tag ^ (~mask & 0x5a5a5a5a5a5a5a5aull), mask));
    m.post(&entries.back());
    matching.push_back(&entries.back());
    entries.push_back(expected(make_tag(9, 4, 3), kAnySource));  // other context
    m.post(&entries.back());
  }
  for (std::size_t i = 0; i < matching.size(); ++i) {
    EXPECT_EQ(m.match_expected(tag), matching[i]) << "match " << i;
  }
  EXPECT_EQ(m.match_expected(tag), nullptr);
  EXPECT_EQ(m.expected_count(), 2 * matching.size());
}

TEST(Matcher, AnySourceMaskIgnoresOnlyTheSourceField) {
  Matcher m;
  ExpectedEntry any_source = expected(make_tag(7, 0, 1), kAnySource);
  m.post(&any_source);
  // Differences outside the source field do not match.
  EXPECT_EQ(m.match_expected(make_tag(8, 3, 1)), nullptr);
  EXPECT_EQ(m.match_expected(make_tag(7, 3, 2)), nullptr);
  EXPECT_EQ(m.match_expected(make_tag(7, 3, 1) | (uint64_t{1} << 63)), nullptr);
  // Any source does.
  EXPECT_EQ(m.match_expected(make_tag(7, 0xffff, 1)), &any_source);

  // The receive's own bits in the ignored field do not matter either.
  ExpectedEntry dirty = expected(make_tag(7, 0x1234, 1), kAnySource);
  m.post(&dirty);
  EXPECT_EQ(m.match_expected(make_tag(7, 0x4321, 1)), &dirty);
}

TEST(Matcher, AnyTagAndMaskZero) {
  Matcher m;
  ExpectedEntry any_tag = expected(make_tag(0, 4, 1), kAnyTag);
  ExpectedEntry anything = expected(0xdeadbeef, 0);
  m.post(&any_tag);
  m.post(&anything);
  // Wrong source for any_tag: falls through to the mask-0 receive.
  EXPECT_EQ(m.match_expected(make_tag(99, 5, 1)), &anything);
  EXPECT_EQ(m.match_expected(make_tag(99, 5, 1)), nullptr);
  EXPECT_EQ(m.match_expected(make_tag(123456, 4, 1)), &any_tag);
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(Matcher, ExactLaterThanNonMatchingWildcardStillMatches) {
  Matcher m;
  const uint64_t tag = make_tag(1, 1, 1);
  ExpectedEntry wild = expected(make_tag(2, 0, 1), kAnySource);  // different user tag
  ExpectedEntry exact = expected(tag);
  m.post(&wild);
  m.post(&exact);
  EXPECT_EQ(m.match_expected(tag), &exact);
  EXPECT_EQ(m.match_expected(make_tag(2, 5, 1)), &wild);
}

TEST(Matcher, WildcardFindUnexpectedPicksEarliestAcrossTags) {
  Matcher m;
  UnexpectedEntry a = unexpected(make_tag(1, 3, 1));
  UnexpectedEntry b = unexpected(make_tag(1, 2, 1));
  UnexpectedEntry c = unexpected(make_tag(2, 1, 1));
  UnexpectedEntry d = unexpected(make_tag(1, 1, 1));
  for (auto* u : {&a, &b, &c, &d}) m.add_unexpected(u);

  // ANY_SOURCE with user tag 1: a, b, d in arrival order, never c.
  EXPECT_EQ(m.find_unexpected(make_tag(1, 0, 1), kAnySource, true), &a);
  EXPECT_EQ(m.find_unexpected(make_tag(1, 0, 1), kAnySource, true), &b);
  EXPECT_EQ(m.find_unexpected(make_tag(1, 0, 1), kAnySource, true), &d);
  EXPECT_EQ(m.find_unexpected(make_tag(1, 0, 1), kAnySource, true), nullptr);
  // ANY_TAG from source 1: c.
  EXPECT_EQ(m.find_unexpected(make_tag(0, 1, 1), kAnyTag, true), &c);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

TEST(Matcher, ExactFindUnexpectedTakesEarliestOfThatTagOnly) {
  Matcher m;
  UnexpectedEntry a = unexpected(make_tag(1, 1, 1));
  UnexpectedEntry b = unexpected(make_tag(2, 1, 1));
  UnexpectedEntry c = unexpected(make_tag(2, 1, 1));
  for (auto* u : {&a, &b, &c}) m.add_unexpected(u);
  EXPECT_EQ(m.find_unexpected(make_tag(2, 1, 1), kFull, true), &b);
  EXPECT_EQ(m.find_unexpected(make_tag(2, 1, 1), kFull, true), &c);
  EXPECT_EQ(m.find_unexpected(make_tag(2, 1, 1), kFull, true), nullptr);
  EXPECT_EQ(m.find_unexpected(make_tag(3, 1, 1), kFull, true), nullptr);
  EXPECT_EQ(m.unexpected_count(), 1u);
  // A mask-0 probe sees whatever arrived first.
  EXPECT_EQ(m.find_unexpected(0, 0, false), &a);
}

// ---------------------------------------------------------------------------
// Cancel

TEST(Matcher, RemoveExpectedSucceedsOnce) {
  Matcher m;
  ExpectedEntry exact = expected(3);
  ExpectedEntry wild = expected(0, 0);
  m.post(&exact);
  m.post(&wild);
  EXPECT_EQ(m.expected_count(), 2u);
  EXPECT_TRUE(m.remove_expected(&exact));
  EXPECT_FALSE(m.remove_expected(&exact));
  EXPECT_EQ(m.expected_count(), 1u);
  EXPECT_TRUE(m.remove_expected(&wild));
  EXPECT_FALSE(m.remove_expected(&wild));
  EXPECT_EQ(m.expected_count(), 0u);
  EXPECT_EQ(m.match_expected(3), nullptr);
}

TEST(Matcher, RemoveExpectedFailsAfterMatchAndWhenNeverPosted) {
  Matcher m;
  ExpectedEntry never = expected(1);
  EXPECT_FALSE(m.remove_expected(&never));

  ExpectedEntry exact = expected(1);
  ExpectedEntry wild = expected(2, kAnySource);
  m.post(&exact);
  m.post(&wild);
  ASSERT_EQ(m.match_expected(1), &exact);
  ASSERT_EQ(m.match_expected(2), &wild);
  EXPECT_FALSE(m.remove_expected(&exact));
  EXPECT_FALSE(m.remove_expected(&wild));
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(Matcher, RemovedReceivesAreNeverMatched) {
  Matcher m;
  const uint64_t tag = make_tag(4, 4, 4);
  ExpectedEntry e0 = expected(tag);
  ExpectedEntry w0 = expected(make_tag(4, 0, 4), kAnySource);
  ExpectedEntry e1 = expected(tag);
  ExpectedEntry w1 = expected(make_tag(4, 0, 4), kAnySource);
  for (auto* e : {&e0, &w0, &e1, &w1}) m.post(e);
  // Cancel the middle of each queue and the head of the hash queue.
  EXPECT_TRUE(m.remove_expected(&e0));
  EXPECT_TRUE(m.remove_expected(&w0));
  EXPECT_EQ(m.match_expected(tag), &e1);
  EXPECT_EQ(m.match_expected(tag), &w1);
  EXPECT_EQ(m.match_expected(tag), nullptr);
  EXPECT_EQ(m.expected_count(), 0u);
}

// ---------------------------------------------------------------------------
// Probe

TEST(Matcher, ProbeWithoutRemoveLeavesTheMessage) {
  Matcher m;
  UnexpectedEntry u = unexpected(make_tag(6, 1, 1));
  m.add_unexpected(&u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m.find_unexpected(u.tag, kFull, false), &u);
    EXPECT_EQ(m.find_unexpected(make_tag(6, 0, 1), kAnySource, false), &u);
    EXPECT_EQ(m.unexpected_count(), 1u);
  }
  EXPECT_TRUE(u.bucket_hook.linked());
  EXPECT_TRUE(u.arrival_hook.linked());

  EXPECT_EQ(m.find_unexpected(make_tag(6, 0, 1), kAnySource, true), &u);
  EXPECT_EQ(m.unexpected_count(), 0u);
  EXPECT_FALSE(u.bucket_hook.linked());
  EXPECT_FALSE(u.arrival_hook.linked());
  EXPECT_EQ(m.find_unexpected(u.tag, kFull, false), nullptr);
  EXPECT_EQ(m.find_unexpected(0, 0, false), nullptr);
}

TEST(Matcher, RemoveUnexpectedUnlinksFromBothQueues) {
  Matcher m;
  UnexpectedEntry a = unexpected(10);
  UnexpectedEntry b = unexpected(10);
  UnexpectedEntry c = unexpected(20);
  for (auto* u : {&a, &b, &c}) m.add_unexpected(u);
  // Probe found `a`; the front end later receives it by handle.
  ASSERT_EQ(m.find_unexpected(10, kFull, false), &a);
  m.remove_unexpected(&a);
  EXPECT_EQ(m.unexpected_count(), 2u);
  EXPECT_EQ(m.find_unexpected(10, kFull, false), &b);
  EXPECT_EQ(m.find_unexpected(0, 0, false), &b);
  // A wildcard removal must also take it out of the per-tag queue.
  ASSERT_EQ(m.find_unexpected(0, 0, true), &b);
  EXPECT_EQ(m.find_unexpected(10, kFull, false), nullptr);
  EXPECT_EQ(m.find_unexpected(20, kFull, true), &c);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

// ---------------------------------------------------------------------------
// Large queues

constexpr std::size_t kLarge = 100000;

// Spread the distinct tags over every field, not just the low bits.
uint64_t large_tag(std::size_t i) { return make_tag(i * 7919, i % 1024, i % 3); }

TEST(MatcherLarge, DistinctTagReceivesMatchedInReverseOrder) {
  Matcher m(16);
  std::vector<ExpectedEntry> recvs(kLarge);
  for (std::size_t i = 0; i < kLarge; ++i) {
    recvs[i] = expected(large_tag(i));
    m.post(&recvs[i]);
  }
  ASSERT_EQ(m.expected_count(), kLarge);
  for (std::size_t i = kLarge; i-- > 0;) {
    ASSERT_EQ(m.match_expected(large_tag(i)), &recvs[i]) << "receive " << i;
  }
  EXPECT_EQ(m.expected_count(), 0u);
  EXPECT_EQ(m.match_expected(large_tag(0)), nullptr);
}

TEST(MatcherLarge, DistinctTagReceivesMatchedInRandomOrder) {
  Matcher m;
  std::vector<ExpectedEntry> recvs(kLarge);
  for (std::size_t i = 0; i < kLarge; ++i) {
    recvs[i] = expected(large_tag(i));
    m.post(&recvs[i]);
  }
  std::vector<std::size_t> order(kLarge);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1234));
  for (std::size_t k = 0; k < kLarge; ++k) {
    const std::size_t i = order[k];
    // A tag nobody posted must miss even with the queues this full.
    if (k % 1000 == 0) {
      ASSERT_EQ(m.match_expected(large_tag(kLarge + k)), nullptr);
    }
    ASSERT_EQ(m.match_expected(large_tag(i)), &recvs[i]) << "receive " << i;
    ASSERT_EQ(m.expected_count(), kLarge - k - 1);
  }
}

TEST(MatcherLarge, DistinctTagUnexpectedFoundInRandomOrder) {
  Matcher m(16);
  std::vector<UnexpectedEntry> msgs(kLarge);
  for (std::size_t i = 0; i < kLarge; ++i) {
    msgs[i] = unexpected(large_tag(i));
    m.add_unexpected(&msgs[i]);
  }
  ASSERT_EQ(m.unexpected_count(), kLarge);
  std::vector<std::size_t> order(kLarge);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(99));
  for (std::size_t k = 0; k < kLarge; ++k) {
    const std::size_t i = order[k];
    if (k % 2 == 0) {
      ASSERT_EQ(m.find_unexpected(large_tag(i), kFull, false), &msgs[i]);
    }
    ASSERT_EQ(m.find_unexpected(large_tag(i), kFull, true), &msgs[i]) << "message " << i;
  }
  EXPECT_EQ(m.unexpected_count(), 0u);
  EXPECT_EQ(m.find_unexpected(0, 0, false), nullptr);
}

TEST(MatcherLarge, DistinctTagUnexpectedDrainedByWildcardInArrivalOrder) {
  Matcher m;
  std::vector<UnexpectedEntry> msgs(kLarge);
  for (std::size_t i = 0; i < kLarge; ++i) {
    msgs[i] = unexpected(large_tag(i));
    m.add_unexpected(&msgs[i]);
  }
  for (std::size_t i = 0; i < kLarge; ++i) {
    ASSERT_EQ(m.find_unexpected(0, 0, true), &msgs[i]) << "message " << i;
  }
  EXPECT_EQ(m.unexpected_count(), 0u);
  // Wildcard removal left nothing behind in the hash.
  for (std::size_t i = 0; i < kLarge; i += 997) {
    EXPECT_EQ(m.find_unexpected(large_tag(i), kFull, false), nullptr);
  }
}

TEST(MatcherLarge, SameTagReceivesKeepPostingOrder) {
  Matcher m(4);
  const uint64_t tag = make_tag(77, 1, 1);
  std::vector<ExpectedEntry> recvs(kLarge, expected(tag));
  std::vector<ExpectedEntry> others(kLarge / 10);
  for (std::size_t i = 0; i < kLarge; ++i) {
    m.post(&recvs[i]);
    // Other tags force the table to grow while the same-tag queue is long.
    if (i % 10 == 0) {
      others[i / 10] = expected(large_tag(i));
      m.post(&others[i / 10]);
    }
  }
  for (std::size_t i = 0; i < kLarge; ++i) {
    ASSERT_EQ(m.match_expected(tag), &recvs[i]) << "receive " << i;
  }
  EXPECT_EQ(m.match_expected(tag), nullptr);
  EXPECT_EQ(m.expected_count(), others.size());
  for (auto& o : others) ASSERT_TRUE(m.remove_expected(&o));
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(MatcherLarge, SameTagUnexpectedKeepArrivalOrder) {
  Matcher m(4);
  const uint64_t tag = make_tag(77, 1, 1);
  std::vector<UnexpectedEntry> msgs(kLarge, unexpected(tag));
  std::vector<UnexpectedEntry> others(kLarge / 10);
  for (std::size_t i = 0; i < kLarge; ++i) {
    m.add_unexpected(&msgs[i]);
    if (i % 10 == 0) {
      others[i / 10] = unexpected(large_tag(i));
      m.add_unexpected(&others[i / 10]);
    }
  }
  for (std::size_t i = 0; i < kLarge; ++i) {
    ASSERT_EQ(m.find_unexpected(tag, kFull, true), &msgs[i]) << "message " << i;
  }
  EXPECT_EQ(m.unexpected_count(), others.size());
  for (auto& o : others) m.remove_unexpected(&o);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

// ---------------------------------------------------------------------------
// Hash growth with tags that differ only in high bits

TEST(MatcherGrowth, HighBitTagsStayCorrectAcrossGrowth) {
  // Start with the smallest table so it doubles many times, and keep
  // several receives per tag queued across every rehash.
  Matcher m(1);
  constexpr std::size_t kTags = 1 << 14;
  constexpr std::size_t kPerTag = 3;
  auto high_tag = [](std::size_t i) { return static_cast<uint64_t>(i) << 50; };
  std::vector<ExpectedEntry> recvs(kTags * kPerTag);
  std::vector<UnexpectedEntry> msgs(kTags * kPerTag);
  for (std::size_t round = 0; round < kPerTag; ++round) {
    for (std::size_t i = 0; i < kTags; ++i) {
      recvs[round * kTags + i] = expected(high_tag(i));
      m.post(&recvs[round * kTags + i]);
      msgs[round * kTags + i] = unexpected(high_tag(i) | 1);
      m.add_unexpected(&msgs[round * kTags + i]);
    }
  }
  ASSERT_EQ(m.expected_count(), kTags * kPerTag);
  ASSERT_EQ(m.unexpected_count(), kTags * kPerTag);
  for (std::size_t round = 0; round < kPerTag; ++round) {
    for (std::size_t i = kTags; i-- > 0;) {
      ASSERT_EQ(m.match_expected(high_tag(i)), &recvs[round * kTags + i]);
      ASSERT_EQ(m.find_unexpected(high_tag(i) | 1, kFull, true), &msgs[round * kTags + i]);
    }
  }
  EXPECT_EQ(m.expected_count(), 0u);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

// Flat match cost needs both: at most one entry per bucket on average, and
// no tag pattern piling into a few buckets. With a uniform hash the fullest
// of ~n buckets holding n entries has well under 16.
constexpr std::size_t kMaxBucket = 16;

void expect_even_spread(const std::function<uint64_t(std::size_t)>& tag_of, const char* pattern) {
  SCOPED_TRACE(pattern);
  Matcher m(16);
  std::vector<ExpectedEntry> recvs(kLarge);
  std::vector<UnexpectedEntry> msgs(kLarge);
  for (std::size_t i = 0; i < kLarge; ++i) {
    recvs[i] = expected(tag_of(i));
    m.post(&recvs[i]);
    msgs[i] = unexpected(tag_of(i));
    m.add_unexpected(&msgs[i]);
  }
  const std::size_t eb = MatcherInspector::expected_buckets(m);
  const std::size_t ub = MatcherInspector::unexpected_buckets(m);
  EXPECT_GE(eb, kLarge);
  EXPECT_LT(eb, 4 * kLarge);
  EXPECT_EQ(eb & (eb - 1), 0u);
  EXPECT_GE(ub, kLarge);
  EXPECT_LT(ub, 4 * kLarge);
  EXPECT_EQ(ub & (ub - 1), 0u);
  EXPECT_LE(MatcherInspector::longest_expected_bucket(m), kMaxBucket);
  EXPECT_LE(MatcherInspector::longest_unexpected_bucket(m), kMaxBucket);
}

TEST(MatcherGrowth, TablesGrowAndSpreadCommonTagPatterns) {
  expect_even_spread([](std::size_t i) { return static_cast<uint64_t>(i); }, "sequential low bits");
  expect_even_spread([](std::size_t i) { return static_cast<uint64_t>(i) << 47; },
                     "high bits only");
  expect_even_spread([](std::size_t i) { return static_cast<uint64_t>(i) << 32 | 0x10007; },
                     "user tag field");
  expect_even_spread([](std::size_t i) { return make_tag(i % 64, i / 64, 5); },
                     "tag x source grid");
  expect_even_spread([](std::size_t i) { return static_cast<uint64_t>(i) * 4096; },
                     "aligned strides");
  expect_even_spread(large_tag, "mixed fields");
}

TEST(MatcherGrowth, SmallInitialTableStillGrows) {
  Matcher m(0);
  std::vector<ExpectedEntry> recvs(1000);
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    recvs[i] = expected(i << 56 | i);
    m.post(&recvs[i]);
  }
  EXPECT_GE(MatcherInspector::expected_buckets(m), recvs.size());
  for (std::size_t i = 0; i < recvs.size(); ++i) ASSERT_TRUE(m.remove_expected(&recvs[i]));
  EXPECT_EQ(m.expected_count(), 0u);
}

TEST(MatcherGrowth, CollidingBucketsSkipOtherTags) {
  // With a two-bucket table and growth interleaved with matching, most
  // lookups walk past entries of other tags.
  Matcher m(2);
  std::deque<ExpectedEntry> recvs;
  for (uint64_t i = 0; i < 64; ++i) {
    recvs.push_back(expected(i << 60 | i << 40));
    m.post(&recvs.back());
    if (i % 4 == 3) {
      const uint64_t t = (i - 2) << 60 | (i - 2) << 40;
      ASSERT_EQ(m.match_expected(t), &recvs[i - 2]);
      ASSERT_EQ(m.match_expected(t), nullptr);
    }
  }
  for (uint64_t i = 0; i < 64; ++i) {
    if (i % 4 == 1) continue;
    ASSERT_EQ(m.match_expected(i << 60 | i << 40), &recvs[i]) << i;
  }
  EXPECT_EQ(m.expected_count(), 0u);
}

// ---------------------------------------------------------------------------
// Randomized comparison with a linear-scan reference

// Trivially correct: vectors in posting / arrival order, scanned front to back.
class ReferenceMatcher {
 public:
  void post(ExpectedEntry* e) { expected_.push_back(e); }
  ExpectedEntry* match_expected(uint64_t tag) {
    for (auto it = expected_.begin(); it != expected_.end(); ++it) {
      if (((*it)->tag & (*it)->mask) == (tag & (*it)->mask)) {
        ExpectedEntry* e = *it;
        expected_.erase(it);
        return e;
      }
    }
    return nullptr;
  }
  bool remove_expected(ExpectedEntry* e) {
    auto it = std::find(expected_.begin(), expected_.end(), e);
    if (it == expected_.end()) return false;
    expected_.erase(it);
    return true;
  }
  void add_unexpected(UnexpectedEntry* u) { unexpected_.push_back(u); }
  UnexpectedEntry* find_unexpected(uint64_t tag, uint64_t mask, bool remove) {
    for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
      if (((*it)->tag & mask) == (tag & mask)) {
        UnexpectedEntry* u = *it;
        if (remove) unexpected_.erase(it);
        return u;
      }
    }
    return nullptr;
  }
  void remove_unexpected(UnexpectedEntry* u) {
    unexpected_.erase(std::find(unexpected_.begin(), unexpected_.end(), u));
  }
  std::size_t expected_count() const { return expected_.size(); }
  std::size_t unexpected_count() const { return unexpected_.size(); }
  const std::vector<UnexpectedEntry*>& unexpected() const { return unexpected_; }

 private:
  std::vector<ExpectedEntry*> expected_;
  std::vector<UnexpectedEntry*> unexpected_;
};

TEST(MatcherRandom, AgreesWithReferenceModel) {
  constexpr int kOperations = 50000;
  std::mt19937_64 rng(20240601);
  auto pick = [&rng](std::size_t n) { return static_cast<std::size_t>(rng() % n); };

  // A small tag set so that matches, collisions and ties are frequent; two
  // of them differ only in bit 63.
  std::vector<uint64_t> tags;
  for (uint64_t user : {0, 1, 2, 5})
    for (uint64_t src : {0, 1, 3}) tags.push_back(make_tag(user, src, 1));
  tags.push_back(make_tag(1, 1, 2));
  tags.push_back(make_tag(1, 1, 1) | (uint64_t{1} << 63));
  const uint64_t masks[] = {
      kFull,     kFull, kFull, kAnySource, kAnyTag, kAnySourceAnyTag, 0, kFull & ~uint64_t{1},
      kFull >> 1};
  auto random_mask = [&]() { return pick(8) == 0 ? rng() : masks[pick(std::size(masks))]; };

  Matcher m(2);  // small, so growth happens during the run
  ReferenceMatcher ref;
  std::deque<ExpectedEntry> recv_pool;
  std::deque<UnexpectedEntry> msg_pool;
  std::vector<ExpectedEntry*> posted;  // may hold entries already matched: cancel must then fail

  for (int op = 0; op < kOperations; ++op) {
    const std::size_t kind = pick(100);
    if (kind < 25) {
      recv_pool.push_back(expected(tags[pick(tags.size())], random_mask()));
      m.post(&recv_pool.back());
      ref.post(&recv_pool.back());
      posted.push_back(&recv_pool.back());
    } else if (kind < 45) {
      const uint64_t tag = tags[pick(tags.size())];
      ExpectedEntry* want = ref.match_expected(tag);
      ASSERT_EQ(m.match_expected(tag), want) << "op " << op;
    } else if (kind < 55) {
      if (posted.empty()) continue;
      const std::size_t i = pick(posted.size());
      const bool want = ref.remove_expected(posted[i]);
      ASSERT_EQ(m.remove_expected(posted[i]), want) << "op " << op;
      posted[i] = posted.back();
      posted.pop_back();
    } else if (kind < 80) {
      msg_pool.push_back(unexpected(tags[pick(tags.size())]));
      m.add_unexpected(&msg_pool.back());
      ref.add_unexpected(&msg_pool.back());
    } else if (kind < 95) {
      const uint64_t tag = tags[pick(tags.size())];
      const uint64_t mask = random_mask();
      const bool remove = pick(3) != 0;
      UnexpectedEntry* want = ref.find_unexpected(tag, mask, remove);
      ASSERT_EQ(m.find_unexpected(tag, mask, remove), want) << "op " << op;
    } else {
      if (ref.unexpected_count() == 0) continue;
      UnexpectedEntry* u = ref.unexpected()[pick(ref.unexpected_count())];
      ref.remove_unexpected(u);
      m.remove_unexpected(u);
    }
    ASSERT_EQ(m.expected_count(), ref.expected_count()) << "op " << op;
    ASSERT_EQ(m.unexpected_count(), ref.unexpected_count()) << "op " << op;
  }

  // Drain both and compare what is left, in order.
  for (uint64_t tag : tags) {
    for (;;) {
      ExpectedEntry* want = ref.match_expected(tag);
      ASSERT_EQ(m.match_expected(tag), want);
      if (want == nullptr) break;
    }
  }
  for (;;) {
    UnexpectedEntry* want = ref.find_unexpected(0, 0, true);
    ASSERT_EQ(m.find_unexpected(0, 0, true), want);
    if (want == nullptr) break;
  }
  // Receives left are those no tag in the set can match (random masks).
  EXPECT_EQ(m.expected_count(), ref.expected_count());
  EXPECT_EQ(m.unexpected_count(), 0u);
}

}  // namespace
}  // namespace tern::engine::tag
