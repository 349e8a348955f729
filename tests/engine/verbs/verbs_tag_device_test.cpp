// The verbs tag-matching device (verbs_tag_device.hpp) between two verbs
// ifaces on the emulated fabric: list management through the device,
// tagged sends that the receiver's HCA matches, unexpected ones delivered
// as eager messages, the sync rule, and a take-back that loses the race
// with a message.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../transport/transport_test_util.hpp"
#include "transport/verbs/verbs_emulated.hpp"
#include "transport/verbs/verbs_iface.hpp"

namespace tern::engine::transport::verbs {
namespace {

using transport::testing::spin_until;

constexpr uint8_t kAmId = 3;
constexpr uint64_t kAllBits = ~uint64_t{0};

struct Seen {
  std::vector<TagDeviceCompletion> completions;
  std::vector<std::string> unexpected;  // "tag:payload"
  std::vector<std::string> messages;    // ordinary active messages
};

void on_tag(void* arg, const TagDeviceCompletion& completion) {
  auto& seen = *static_cast<Seen*>(arg);
  if (completion.unexpected == nullptr) {
    seen.completions.push_back(completion);
    return;
  }
  uint64_t tag = 0;
  std::memcpy(&tag, completion.unexpected, sizeof(tag));
  seen.unexpected.push_back(std::to_string(tag) + ":" +
                            std::string(reinterpret_cast<const char*>(completion.unexpected) + 8, completion.length));
}

bool on_message(void* arg, const void* data, std::size_t length) {
  static_cast<Seen*>(arg)->messages.emplace_back(static_cast<const char*>(data), length);
  return true;
}

class VerbsTagDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = make_emulated_fabric({});
    VerbsLimits limits;
    limits.tag_capacity = 4;
    a_ = open(0xaaaa, limits);
    b_ = open(0xbbbb, limits);
    ASSERT_TRUE(a_ && b_);
    device_ = b_->tag_device();
    ASSERT_NE(device_, nullptr);
    device_->set_completion_handler(&on_tag, &seen_);
    b_->set_am_handler(kAmId, &on_message, &seen_);
    Status status = Status::InvalidParam;
    ep_ = a_->create_ep(b_->address(), status);
    ASSERT_EQ(status, Status::Ok);
    ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return send_ordinary("hello") == Status::Ok; }));
    ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.messages.size() == 1; }));
  }

  std::unique_ptr<VerbsIface> open(uint64_t uuid, const VerbsLimits& limits) {
    IfaceParams params;
    params.job_id = transport::testing::unique_job_id("vt");
    params.worker_uuid = uuid;
    Status status = Status::InvalidParam;
    auto iface = VerbsIface::create(params, make_emulated_provider(fabric_), limits, status);
    EXPECT_EQ(status, Status::Ok);
    return iface;
  }
  void progress() {
    a_->progress();
    b_->progress();
  }
  Status send_ordinary(const std::string& text) {
    return ep_->am_short(kAmId, 0x4242424242424242ull, text.data(), text.size());
  }
  Status send_tagged(uint64_t tag, const std::string& text) {
    return ep_->tag_offload_send(tag, 0xaaaa, text.data(), text.size(), 0);
  }
  std::string text(std::size_t offset, std::size_t length) const {
    return {reinterpret_cast<const char*>(buffer_.data() + offset), length};
  }
  int post(uint64_t tag, uint64_t mask, std::size_t offset, std::size_t length = 64) {
    return device_->post(tag, mask, buffer_.data() + offset, length);
  }

  std::shared_ptr<EmulatedFabric> fabric_;
  std::unique_ptr<VerbsIface> a_, b_;
  TagDevice* device_ = nullptr;
  Ep* ep_ = nullptr;
  Seen seen_;
  std::vector<std::byte> buffer_ = std::vector<std::byte>(4096);
};

TEST(VerbsTagDeviceSetup, OnlyWhenAskedForAndTheDeviceMatchesTags) {
  for (uint32_t device_tags : {0u, 64u}) {
    for (uint32_t capacity : {0u, 8u}) {
      EmulatedFabricParams fabric_params;
      fabric_params.tm_max_tags = device_tags;
      auto fabric = make_emulated_fabric(fabric_params);
      IfaceParams params;
      params.job_id = transport::testing::unique_job_id("vs");
      params.worker_uuid = 7;
      VerbsLimits limits;
      limits.tag_capacity = capacity;
      Status status = Status::InvalidParam;
      auto iface = VerbsIface::create(params, make_emulated_provider(fabric), limits, status);
      ASSERT_EQ(status, Status::Ok);
      TagDevice* device = iface->tag_device();
      VerbsAddress address;
      ASSERT_TRUE(unpack_address(iface->address(), address));
      if (device_tags != 0 && capacity != 0) {
        ASSERT_NE(device, nullptr);
        EXPECT_STREQ(device->name(), "verbs");
        EXPECT_EQ(device->capacity(), capacity);
        EXPECT_TRUE(address.tag_matching);
      } else {
        EXPECT_EQ(device, nullptr);
        EXPECT_FALSE(address.tag_matching);
      }
    }
  }
}

TEST_F(VerbsTagDeviceTest, OrdinaryMessagesCarryTheHeaderBothWays) {
  std::string big(static_cast<std::size_t>(a_->attr().max_short), 'x');
  ASSERT_EQ(send_ordinary(big), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.messages.size() == 2; }));
  EXPECT_EQ(seen_.messages[1].size(), 8 + big.size());
  EXPECT_EQ(seen_.messages[1].substr(8), big);
  // Every one of them was an unexpected message to the device, handled.
  EXPECT_EQ(static_cast<VerbsTagDevice*>(device_)->handled(), 3u);  // Ready too
}

TEST_F(VerbsTagDeviceTest, ATaggedSendLandsInTheMatchingReceive) {
  const int slot = post(77, kAllBits, 128);
  ASSERT_GE(slot, 0);
  ASSERT_EQ(send_tagged(77, "matched by the HCA"), Status::Ok);
  // The receiver's HCA placed the data; its CPU only hears of it.
  EXPECT_EQ(text(128, 18), "matched by the HCA");
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.completions.size() == 1; }));
  const TagDeviceCompletion& done = seen_.completions[0];
  EXPECT_EQ(done.slot, static_cast<uint32_t>(slot));
  EXPECT_EQ(done.tag, 77u);
  EXPECT_EQ(done.length, 18u);
  EXPECT_EQ(done.sender_uuid, 0xaaaau);
  EXPECT_EQ(done.status, Status::Ok);
  EXPECT_TRUE(seen_.unexpected.empty());
}

TEST_F(VerbsTagDeviceTest, AnUnmatchedTaggedSendArrivesAsAnEagerMessage) {
  ASSERT_GE(post(1, kAllBits, 0), 0);
  ASSERT_EQ(send_tagged(2, "nobody asked"), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.unexpected.size() == 1; }));
  EXPECT_EQ(seen_.unexpected[0], "2:nobody asked");
  EXPECT_TRUE(seen_.completions.empty());
}

TEST_F(VerbsTagDeviceTest, TheEarliestPostedReceiveWinsAndMasksAreRespected) {
  const int any_low = post(0x05, 0xff, 0);
  const int exact = post(0x105, kAllBits, 1024);
  ASSERT_GE(any_low, 0);
  ASSERT_GE(exact, 0);
  ASSERT_EQ(send_tagged(0x105, "one"), Status::Ok);
  ASSERT_EQ(send_tagged(0x105, "two"), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.completions.size() == 2; }));
  EXPECT_EQ(seen_.completions[0].slot, static_cast<uint32_t>(any_low));
  EXPECT_EQ(seen_.completions[1].slot, static_cast<uint32_t>(exact));
  EXPECT_EQ(text(0, 3), "one");
  EXPECT_EQ(text(1024, 3), "two");
}

TEST_F(VerbsTagDeviceTest, ReceivesOrdinaryMessagesCouldMatchStayInSoftware) {
  EXPECT_EQ(post(0, 0, 0), -1);              // any tag
  EXPECT_EQ(post(kAllBits, kAllBits, 0), -1);  // the untagged tag itself
  EXPECT_GE(post(0x10, ~uint64_t{0xff}, 0), 0);
}

TEST_F(VerbsTagDeviceTest, CapacityIsTheDevicesAndSlotsComeBack) {
  std::vector<int> slots;
  for (uint64_t tag = 0; tag < 4; ++tag) slots.push_back(post(tag, kAllBits, tag * 64));
  for (int slot : slots) EXPECT_GE(slot, 0);
  EXPECT_EQ(post(9, kAllBits, 512), -1);
  EXPECT_TRUE(device_->take_back(static_cast<uint32_t>(slots[2])));
  EXPECT_FALSE(device_->take_back(static_cast<uint32_t>(slots[2])));  // not the device's any more
  EXPECT_EQ(post(9, kAllBits, 512), slots[2]);
  // Taken back, tag 2 matches nothing in the device.
  ASSERT_EQ(send_tagged(2, "late"), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.unexpected.size() == 1; }));
}

TEST_F(VerbsTagDeviceTest, AnAddIsRefusedUntilSoftwareHandledEveryUnexpectedMessage) {
  // An ordinary message reaches b_'s SRQ, and b_ has not polled it yet: a
  // receive added now could match a later message that this one precedes.
  ASSERT_EQ(send_ordinary("in flight"), Status::Ok);
  EXPECT_EQ(post(5, kAllBits, 0), -1);
  EXPECT_EQ(static_cast<VerbsTagDevice*>(device_)->refused_adds(), 1u);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.messages.size() == 2; }));
  EXPECT_GE(post(5, kAllBits, 0), 0);
  // A tagged message that went unexpected counts the same way.
  ASSERT_EQ(send_tagged(6, "x"), Status::Ok);
  EXPECT_EQ(post(7, kAllBits, 64), -1);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.unexpected.size() == 1; }));
  EXPECT_GE(post(7, kAllBits, 64), 0);
}

TEST_F(VerbsTagDeviceTest, ATaggedSendWaitsUntilThePeerHandledTheOrdinaryOnesBeforeIt) {
  ASSERT_GE(post(8, kAllBits, 0), 0);
  // An ordinary message that the receive would match too, not handled yet:
  // the HCA must not give the receive to the tagged send that follows.
  ASSERT_EQ(send_ordinary("earlier"), Status::Ok);
  EXPECT_EQ(send_tagged(8, "later"), Status::NotFound);  // the ordinary way, then
  b_->progress();  // handles it, and writes the count back to a_
  EXPECT_EQ(send_tagged(8, "later"), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.completions.size() == 1; }));
  EXPECT_EQ(text(0, 5), "later");
}

TEST_F(VerbsTagDeviceTest, TheDeviceIsSyncedWhenItAsks) {
  auto* device = static_cast<VerbsTagDevice*>(device_);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return send_ordinary("m" + std::to_string(i)) == Status::Ok; }));
  }
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.messages.size() == 41; }));
  EXPECT_GE(device->syncs(), 1u);
  EXPECT_EQ(device->handled(), 42u);  // Ready and hello too
  EXPECT_GE(post(1, kAllBits, 0), 0);  // in step with the device
}

TEST_F(VerbsTagDeviceTest, ATakeBackThatLosesTheRaceLeavesTheCompletionToCome) {
  const int slot = post(42, kAllBits, 256);
  ASSERT_GE(slot, 0);
  ASSERT_EQ(send_tagged(42, "first"), Status::Ok);
  // b_ has not polled: software believes the receive is still the device's.
  EXPECT_FALSE(device_->take_back(static_cast<uint32_t>(slot)));
  EXPECT_EQ(static_cast<VerbsTagDevice*>(device_)->lost_races(), 1u);
  EXPECT_TRUE(seen_.completions.empty());  // it comes with the next progress, in order
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.completions.size() == 1; }));
  EXPECT_EQ(seen_.completions[0].slot, static_cast<uint32_t>(slot));
  EXPECT_EQ(text(256, 5), "first");
  // The slot is free again.
  EXPECT_EQ(post(43, kAllBits, 256), slot);
}

TEST_F(VerbsTagDeviceTest, ATooLongMessageIsReportedWithItsLength) {
  const int slot = post(3, kAllBits, 0, 4);
  ASSERT_GE(slot, 0);
  ASSERT_EQ(send_tagged(3, "longer than four"), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return seen_.completions.size() == 1; }));
  EXPECT_EQ(seen_.completions[0].length, 16u);  // the engine reports it truncated
  EXPECT_EQ(text(0, 4), "long");
}

TEST_F(VerbsTagDeviceTest, APeerWithoutTagMatchingGetsPlainMessagesAndNoTaggedSends) {
  auto plain = open(0xcccc, VerbsLimits{});
  Seen at_plain;
  plain->set_am_handler(kAmId, &on_message, &at_plain);
  Status status = Status::InvalidParam;
  Ep* to_plain = b_->create_ep(plain->address(), status);
  ASSERT_EQ(status, Status::Ok);
  const std::string text = "plain";
  EXPECT_EQ(to_plain->tag_offload_send(1, 0xbbbb, text.data(), text.size(), 0), Status::NotFound);
  ASSERT_TRUE(spin_until([&] { plain->progress(); b_->progress(); },
                         [&] { return to_plain->am_short(kAmId, 0, text.data(), text.size()) == Status::Ok; }));
  ASSERT_TRUE(spin_until([&] { plain->progress(); b_->progress(); }, [&] { return at_plain.messages.size() == 1; }));
  // And the other way: the plain iface's messages to b_ carry the header.
  Ep* from_plain = plain->create_ep(b_->address(), status);
  ASSERT_EQ(status, Status::Ok);
  ASSERT_TRUE(spin_until([&] { plain->progress(); b_->progress(); },
                         [&] { return from_plain->am_short(kAmId, 0, text.data(), text.size()) == Status::Ok; }));
  ASSERT_TRUE(spin_until([&] { plain->progress(); b_->progress(); }, [&] { return seen_.messages.size() == 2; }));
  b_->destroy_ep(to_plain);
  plain->destroy_ep(from_plain);
}

}  // namespace
}  // namespace tern::engine::transport::verbs
