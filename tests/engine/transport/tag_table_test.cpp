// The shared-memory tag device's table on its own: senders take the
// earliest posted receive they match, never one posted after they looked,
// each receive once however many race for it; the owner takes receives
// back unless claimed, and believes a completion only in the generation it
// posted.
#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace tern::engine::transport::shm
