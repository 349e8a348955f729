// The shared-memory tag device's table on its own: senders take the
// earliest posted receive they match, never one posted after they looked,
// each receive once however many race for it; the owner takes receives
// back unless claimed, and believes a completion only in the generation it
// posted. Shared copies: sender and owner split a large message's chunks
// between them, each exactly once, and the owner reads only into its own
// receive, from a process it knows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "transport/shm/shm_tag_device.hpp"
#include "transport/shm/tag_table.hpp"

namespace tern::engine::transport::shm {
namespace {

constexpr uint64_t kFull = ~uint64_t{0};

struct Completions {
  std::vector<TagDeviceCompletion> seen;
  static void record(void* arg, const TagDeviceCompletion& c) { static_cast<Completions*>(arg)->seen.push_back(c); }
};

class TagTableTest : public ::testing::Test {
 protected:
  TagTableTest() : table_(std::make_unique<TagTable>()), device_(table_.get(), kTagSlots) {
    device_.set_completion_handler(&Completions::record, &completions_);
  }
  std::unique_ptr<TagTable> table_;
  ShmTagDevice device_;
  Completions completions_;
  char buffers_[4][64] = {};
};

TEST_F(TagTableTest, SenderTakesTheEarliestPostedReceiveItMatches) {
  const int exact = device_.post(7, kFull, buffers_[0], 64);
  const int wildcard = device_.post(0, 0, buffers_[1], 64);
  const int other = device_.post(8, kFull, buffers_[2], 64);
  ASSERT_GE(exact, 0);
  TagClaim claim;
  ASSERT_TRUE(claim_posted_receive(*table_, 7, claim));
  EXPECT_EQ(claim.slot, static_cast<uint32_t>(exact));
  EXPECT_EQ(claim.buffer, reinterpret_cast<uint64_t>(buffers_[0]));
  ASSERT_TRUE(claim_posted_receive(*table_, 7, claim));
  EXPECT_EQ(claim.slot, static_cast<uint32_t>(wildcard));
  EXPECT_FALSE(claim_posted_receive(*table_, 7, claim));  // tag 8 does not match 7
  EXPECT_TRUE(device_.take_back(static_cast<uint32_t>(other)));
  EXPECT_FALSE(claim_posted_receive(*table_, 8, claim));
}

TEST_F(TagTableTest, ClaimedReceiveCannotBeTakenBackAndIsReportedOnce) {
  const int slot = device_.post(3, kFull, buffers_[0], 64);
  TagClaim claim;
  ASSERT_TRUE(claim_posted_receive(*table_, 3, claim));
  EXPECT_FALSE(device_.take_back(static_cast<uint32_t>(slot)));
  EXPECT_EQ(device_.poll(), 0u);  // claimed, not done
  finish_claimed_receive(*table_, claim, 0xabc, 3, 100, false);
  EXPECT_TRUE(device_.completions_waiting());
  EXPECT_EQ(device_.poll(), 1u);
  ASSERT_EQ(completions_.seen.size(), 1u);
  EXPECT_EQ(completions_.seen[0].slot, static_cast<uint32_t>(slot));
  EXPECT_EQ(completions_.seen[0].length, 100u);
  EXPECT_EQ(completions_.seen[0].sender_uuid, 0xabcu);
  EXPECT_EQ(completions_.seen[0].status, Status::Ok);
  EXPECT_EQ(device_.poll(), 0u);
  EXPECT_FALSE(device_.active());
  EXPECT_EQ(table_->posted.load(), 0u);
}

TEST_F(TagTableTest, ReceiveTheSenderRefusesStopsItsSearch) {
  // A short message takes only receives it can fill with a plain copy; a
  // later receive it could take would overtake the refused one.
  const int refused = device_.post(1, kFull, buffers_[0], 64);
  ASSERT_GE(device_.post(1, kFull, buffers_[1], 64), 0);
  struct Only {
    uint64_t buffer;
    static bool accept(void* arg, uint64_t buffer, uint64_t) { return buffer == static_cast<Only*>(arg)->buffer; }
  } only_second{reinterpret_cast<uint64_t>(buffers_[1])};
  TagClaim claim;
  EXPECT_FALSE(claim_posted_receive(*table_, 1, claim, &Only::accept, &only_second));
  EXPECT_EQ(tag_phase(table_->slots[refused].state.load()), TagPhase::Posted);
  Only only_first{reinterpret_cast<uint64_t>(buffers_[0])};
  ASSERT_TRUE(claim_posted_receive(*table_, 1, claim, &Only::accept, &only_first));
  EXPECT_EQ(claim.slot, static_cast<uint32_t>(refused));
}

TEST_F(TagTableTest, ReceivePostedAfterTheSenderLookedIsNotTaken) {
  // A slot that reads Posted but whose number the owner has not published
  // yet: a sender that read the number before it must not take it.
  TagSlot& slot = table_->slots[5];
  slot.tag.store(1);
  slot.mask.store(kFull);
  slot.sequence.store(0);
  slot.state.store(tag_state(0, TagPhase::Posted));
  table_->posted.store(uint64_t{1} << 5);
  TagClaim claim;
  EXPECT_FALSE(claim_posted_receive(*table_, 1, claim));
  table_->next_sequence.store(1);
  EXPECT_TRUE(claim_posted_receive(*table_, 1, claim));
}

TEST_F(TagTableTest, DoneInAnotherGenerationIsNotBelieved) {
  const int slot = device_.post(3, kFull, buffers_[0], 64);
  TagSlot& s = table_->slots[slot];
  // Something other than a sender marks it done, in a generation the owner
  // never posted.
  s.state.store(tag_state(tag_generation(s.state.load()) + 5, TagPhase::Done));
  table_->completions.fetch_add(1);
  EXPECT_EQ(device_.poll(), 0u);
  EXPECT_TRUE(completions_.seen.empty());
  EXPECT_TRUE(device_.active());
}

TEST_F(TagTableTest, FullDeviceRefusesAndReusesFreedSlots) {
  ShmTagDevice small(table_.get(), 2);
  ASSERT_GE(small.post(1, kFull, buffers_[0], 64), 0);
  const int second = small.post(2, kFull, buffers_[1], 64);
  ASSERT_GE(second, 0);
  EXPECT_EQ(small.post(3, kFull, buffers_[2], 64), -1);
  ASSERT_TRUE(small.take_back(static_cast<uint32_t>(second)));
  EXPECT_EQ(small.post(3, kFull, buffers_[2], 64), second);
}

TEST_F(TagTableTest, RacingSendersClaimEachReceiveOnce) {
  constexpr int kSenders = 4;
  constexpr int kRounds = 2000;
  std::atomic<int> claimed{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> senders;
  for (int t = 0; t < kSenders; ++t) {
    senders.emplace_back([&, t] {
      TagClaim claim;
      while (!stop.load()) {
        if (claim_posted_receive(*table_, 1, claim)) {
          finish_claimed_receive(*table_, claim, static_cast<uint64_t>(t), 1, 8, false);
          claimed.fetch_add(1);
        }
      }
    });
  }
  int completed = 0;
  for (int round = 0; round < kRounds; ++round) {
    while (device_.post(1, kFull, buffers_[0], 64) < 0) completed += static_cast<int>(device_.poll());
    completed += static_cast<int>(device_.poll());
  }
  while (completed < kRounds) completed += static_cast<int>(device_.poll());
  stop.store(true);
  for (auto& sender : senders) sender.join();
  EXPECT_EQ(completed, kRounds);
  EXPECT_EQ(claimed.load(), kRounds);
  EXPECT_EQ(completions_.seen.size(), static_cast<std::size_t>(kRounds));
}

// Claims from both ends of a copy of `chunks` chunks: every chunk is taken
// once, the two ends meet, and a claims word the peer corrupted bounds nothing.
TEST(TagCopyClaims, FrontAndBackMeetAndTakeEveryChunkOnce) {
  TagSlot slot;
  constexpr uint64_t kChunk = 4096;
  constexpr uint64_t kChunks = 37;
  constexpr uint64_t kLength = kChunks * kChunk - 100;  // the last chunk is short
  slot.copy_claims.store(kChunks << 32);
  std::vector<int> taken(kChunks, 0);
  uint64_t bytes = 0;
  TagCopyClaim piece;
  for (bool from_back = false;; from_back = !from_back) {
    if (!claim_copy_chunk(slot, from_back, kChunks, kChunk, kLength, piece)) break;
    ASSERT_EQ(piece.offset % kChunk, 0u);
    ASSERT_LE(piece.offset + piece.length, kLength);
    for (uint64_t c = piece.offset / kChunk; c * kChunk < piece.offset + piece.length; ++c) ++taken[c];
    bytes += piece.length;
  }
  EXPECT_EQ(bytes, kLength);
  for (uint64_t c = 0; c < kChunks; ++c) EXPECT_EQ(taken[c], 1) << "chunk " << c;
  EXPECT_FALSE(claim_copy_chunk(slot, true, kChunks, kChunk, kLength, piece));

  // A back end past the copy's own count: claims stay inside the copy.
  slot.copy_claims.store(uint64_t{0xfffffff} << 32);
  ASSERT_TRUE(claim_copy_chunk(slot, true, kChunks, kChunk, kLength, piece));
  EXPECT_LE(piece.offset + piece.length, kLength);
}

class SharedCopyTest : public TagTableTest {
 protected:
  static constexpr uint64_t kLength = 3 * kTagCopyChunk + 1000;
  SharedCopyTest() : source_(kLength), receive_(kLength, 0) {
    for (uint64_t i = 0; i < kLength; ++i) source_[i] = static_cast<unsigned char>(i * 7 + 3);
    device_.set_peer_check(&SharedCopyTest::accept_self, nullptr);
  }
  static bool accept_self(void*, pid_t pid) { return pid == getpid(); }
  // Posts the receive and claims it as a sender would, describing a copy
  // from this process's `source_` (CMA to oneself is allowed).
  TagClaim post_and_open(uint64_t described_length, pid_t pid) {
    const int slot = device_.post(4, kFull, receive_.data(), receive_.size());
    EXPECT_GE(slot, 0);
    TagClaim claim;
    EXPECT_TRUE(claim_posted_receive(*table_, 4, claim));
    TagSlot& s = table_->slots[claim.slot];
    s.copy_source.store(reinterpret_cast<uint64_t>(source_.data()));
    s.copy_pid.store(static_cast<uint64_t>(pid));
    s.copy_length.store(described_length);
    s.copy_chunk.store(kTagCopyChunk);
    const uint64_t chunks = (described_length + kTagCopyChunk - 1) / kTagCopyChunk;
    s.copy_claims.store(chunks << 32);
    s.copy_done.store(0);
    s.copy_failed.store(0);
    s.copy_open.store(tag_generation(claim.state) + 1);
    table_->copies_open.fetch_add(1);
    return claim;
  }
  std::vector<unsigned char> source_;
  std::vector<unsigned char> receive_;
};

TEST_F(SharedCopyTest, OwnerReadsChunksFromTheBackUntilNoneIsLeft) {
  const TagClaim claim = post_and_open(kLength, getpid());
  TagSlot& s = table_->slots[claim.slot];
  unsigned helped = 0;
  while (unsigned events = device_.poll()) helped += events;
  EXPECT_GE(helped, 1u);
  EXPECT_EQ(s.copy_done.load(), kLength);
  EXPECT_EQ(s.copy_failed.load(), 0u);
  EXPECT_EQ(std::memcmp(receive_.data(), source_.data(), kLength), 0);
  // Nothing is reported before the sender marks the receive done.
  EXPECT_TRUE(completions_.seen.empty());
  finish_claimed_receive(*table_, claim, 0xabc, 4, kLength, false);
  EXPECT_EQ(device_.poll(), 1u);
  ASSERT_EQ(completions_.seen.size(), 1u);
  EXPECT_EQ(completions_.seen[0].status, Status::Ok);
}

TEST_F(SharedCopyTest, OwnerLeavesTheFrontToTheSender) {
  const TagClaim claim = post_and_open(kLength, getpid());
  TagSlot& s = table_->slots[claim.slot];
  // The sender took the first chunk before the owner came back.
  TagCopyClaim front;
  const uint64_t chunks = (kLength + kTagCopyChunk - 1) / kTagCopyChunk;
  ASSERT_TRUE(claim_copy_chunk(s, false, chunks, kTagCopyChunk, kLength, front));
  EXPECT_EQ(front.offset, 0u);
  while (device_.poll() != 0) {
  }
  EXPECT_EQ(s.copy_done.load(), kLength - front.length);
  EXPECT_EQ(receive_[0], 0);  // the sender's to write
  EXPECT_EQ(std::memcmp(receive_.data() + front.length, source_.data() + front.length, kLength - front.length), 0);
}

TEST_F(SharedCopyTest, DescriptionPastTheReceiveOrFromAStrangerIsNotHelped) {
  // Longer than the receive: reading it would write past our buffer.
  const TagClaim longer = post_and_open(kLength + kTagCopyChunk, getpid());
  EXPECT_EQ(device_.poll(), 0u);
  EXPECT_EQ(table_->slots[longer.slot].copy_done.load(), 0u);
  finish_claimed_receive(*table_, longer, 0xabc, 4, kLength, false);
  EXPECT_EQ(device_.poll(), 1u);
  // A process that is no peer of ours.
  const TagClaim stranger = post_and_open(kLength, getpid() + 1);
  EXPECT_EQ(device_.poll(), 0u);
  EXPECT_EQ(table_->slots[stranger.slot].copy_done.load(), 0u);
  EXPECT_TRUE(std::all_of(receive_.begin(), receive_.end(), [](unsigned char c) { return c == 0; }));
}

}  // namespace
}  // namespace tern::engine::transport::shm
