// The engine's side of tag-matching offload against a fake device: which
// posted receives go to the device (threshold, capacity, earlier
// software-only receives that could match the same message), and who owns
// a receive once software matched it or a sender claimed it.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tag/offload.hpp"

namespace tern::engine::tag {
namespace {

constexpr uint64_t kFull = ~uint64_t{0};
constexpr std::size_t kThreshold = 1000;
constexpr std::size_t kMappedThreshold = 100;

class FakeDevice final : public transport::TagDevice {
 public:
  explicit FakeDevice(uint32_t capacity) : capacity_(capacity) {}
  const char* name() const noexcept override { return "fake"; }
  uint32_t capacity() const noexcept override { return capacity_; }
  int post(uint64_t, uint64_t, void*, std::size_t) noexcept override {
    for (uint32_t slot = 0; slot < capacity_; ++slot) {
      if (held.insert(slot).second) return static_cast<int>(slot);
    }
    return -1;
  }
  bool take_back(uint32_t slot) noexcept override {
    if (claimed.count(slot) != 0) return false;
    return held.erase(slot) == 1;
  }
  void set_completion_handler(transport::TagCompletionHandler, void*) noexcept override {}
  bool maps(const void* buffer, std::size_t) const noexcept override { return buffer == mapped; }
  std::set<uint32_t> held;
  const void* mapped = nullptr;  // the one buffer senders copy into directly
  std::set<uint32_t> claimed;  // by a sender

 private:
  uint32_t capacity_;
};

struct Receive {
  ExpectedEntry entry;
  Receive(uint64_t tag, uint64_t mask) {
    entry.tag = tag;
    entry.mask = mask;
  }
};

class OffloadTest : public ::testing::Test {
 protected:
  OffloadTest() { offload_.attach(&device_, kThreshold, kMappedThreshold); }
  void post(Receive& r, std::size_t length = kThreshold) { offload_.posted(&r.entry, buffer_, length); }
  FakeDevice device_{4};
  Offload offload_;
  char buffer_[8] = {};
};

TEST_F(OffloadTest, LargeReceivesGoToTheDeviceSmallOnesStayInSoftware) {
  Receive large(1, kFull), small(2, kFull);
  post(large);
  post(small, kThreshold - 1);
  EXPECT_GE(large.entry.device_slot, 0);
  EXPECT_LT(small.entry.device_slot, 0);
  EXPECT_EQ(offload_.offloaded(), 1u);
}

TEST_F(OffloadTest, MappedReceivesGoToTheDeviceFromTheirOwnThreshold) {
  char mapped[8] = {};
  device_.mapped = mapped;
  Receive into_mapped(1, kFull), too_small(2, kFull), unmapped(3, kFull);
  offload_.posted(&into_mapped.entry, mapped, kMappedThreshold);
  offload_.posted(&too_small.entry, mapped, kMappedThreshold - 1);
  post(unmapped, kMappedThreshold);
  EXPECT_GE(into_mapped.entry.device_slot, 0);
  EXPECT_LT(too_small.entry.device_slot, 0);
  EXPECT_LT(unmapped.entry.device_slot, 0);
}

TEST_F(OffloadTest, ReceiveThatAnEarlierSoftwareOneCouldShadowStaysInSoftware) {
  Receive early(5, kFull);
  post(early, 10);  // software-only
  Receive same_tag(5, kFull), other_tag(6, kFull), wildcard(0, 0), after_wildcard(7, kFull);
  post(same_tag);
  post(other_tag);
  post(wildcard);
  post(after_wildcard);
  EXPECT_LT(same_tag.entry.device_slot, 0);   // a message tagged 5 matches both
  EXPECT_GE(other_tag.entry.device_slot, 0);  // none matches 6 and 5
  EXPECT_LT(wildcard.entry.device_slot, 0);   // a message tagged 5 matches both
  EXPECT_LT(after_wildcard.entry.device_slot, 0);  // the software wildcard matches all
  EXPECT_TRUE(offload_.claim(&after_wildcard.entry));
  // Once software matched the early one, the next same-tag receive may go.
  EXPECT_TRUE(offload_.claim(&early.entry));
  EXPECT_TRUE(offload_.claim(&same_tag.entry));
  EXPECT_TRUE(offload_.claim(&wildcard.entry));
  Receive later(5, kFull);
  post(later);
  EXPECT_GE(later.entry.device_slot, 0);
}

TEST_F(OffloadTest, BeyondTheRememberedSoftwareReceivesNothingGoesToTheDevice) {
  std::vector<Receive> small;
  small.reserve(17);
  for (uint64_t tag = 100; tag < 117; ++tag) small.emplace_back(tag, kFull);
  for (Receive& r : small) post(r, 1);
  Receive large(7, kFull);
  post(large);
  EXPECT_LT(large.entry.device_slot, 0);  // the 17th is not remembered: it might match
  for (Receive& r : small) EXPECT_TRUE(offload_.claim(&r.entry));
  EXPECT_TRUE(offload_.claim(&large.entry));
  Receive next(7, kFull);
  post(next);
  EXPECT_GE(next.entry.device_slot, 0);
}

TEST_F(OffloadTest, FullDeviceKeepsTheReceiveInSoftware) {
  std::vector<Receive> receives;
  receives.reserve(5);
  for (uint64_t tag = 1; tag <= 5; ++tag) receives.emplace_back(tag, kFull);
  for (Receive& r : receives) post(r);
  EXPECT_EQ(offload_.offloaded(), 4u);
  EXPECT_LT(receives[4].entry.device_slot, 0);
}

TEST_F(OffloadTest, SoftwareTakesAReceiveBackUnlessASenderClaimedIt) {
  Receive a(1, kFull), b(2, kFull);
  post(a);
  post(b);
  const auto slot_b = static_cast<uint32_t>(b.entry.device_slot);
  device_.claimed.insert(slot_b);
  EXPECT_TRUE(offload_.claim(&a.entry));
  EXPECT_EQ(device_.held.count(static_cast<uint32_t>(0)), 0u);
  EXPECT_FALSE(offload_.claim(&b.entry));  // the sender's: it completes through the device
  EXPECT_EQ(offload_.completed(slot_b), &b.entry);
  EXPECT_EQ(offload_.completed(slot_b), nullptr);  // reported once
  EXPECT_EQ(offload_.completed(99), nullptr);      // never given out
  EXPECT_EQ(offload_.offloaded(), 0u);
}

}  // namespace
}  // namespace tern::engine::tag
