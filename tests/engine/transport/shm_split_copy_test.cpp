// Split zero copies of the shm transport (Ep::offer_zcopy): the owner of a
// buffer and the peer that gets it each copy their own end of it. Both
// ifaces live in this process (CMA to oneself works), so each side's part
// can be stepped and checked on its own.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "transport/shm/offer.hpp"
#include "transport_test_util.hpp"

namespace tern::engine::transport {
namespace {

using testing::check_pattern;
using testing::fill_pattern;
using testing::spin_until;

struct Done {
  Completion comp;
  bool fired = false;
  Status result = Status::InProgress;

  Done() {
    comp.callback = [](Completion* self) {
      auto* done = reinterpret_cast<Done*>(self);
      done->fired = true;
      done->result = self->status;
    };
    comp.count = 1;
    comp.status = Status::Ok;
  }
};
static_assert(offsetof(Done, comp) == 0);

class SplitCopyTest : public ::testing::Test {
 protected:
  void SetUp() override { open(runtime::Config{}); }

  void open(const runtime::Config& config) {
    owner_ep_ = peer_ep_ = nullptr;
    owner_.reset();
    peer_.reset();
    IfaceParams params;
    params.job_id = testing::unique_job_id("split");
    params.config = config;
    Status status = Status::InvalidParam;
    owner_ = create_shm_iface(params, status);
    ASSERT_EQ(status, Status::Ok);
    peer_ = create_shm_iface(params, status);
    ASSERT_EQ(status, Status::Ok);
    owner_ep_ = owner_->create_ep(peer_->address(), status);  // offers go out on this one
    ASSERT_EQ(status, Status::Ok);
    peer_ep_ = peer_->create_ep(owner_->address(), status);   // and are got through this one
    ASSERT_EQ(status, Status::Ok);
    if (!peer_ep_->supports_zcopy()) GTEST_SKIP() << "the kernel refuses CMA here";
  }

  void TearDown() override {
    if (owner_ep_ != nullptr) owner_->destroy_ep(owner_ep_);
    if (peer_ep_ != nullptr) peer_->destroy_ep(peer_ep_);
  }

  static RemoteMemory remote(const std::vector<std::byte>& buffer, uint64_t key) {
    return {reinterpret_cast<uint64_t>(buffer.data()), key};
  }

  std::unique_ptr<Iface> owner_;
  std::unique_ptr<Iface> peer_;
  Ep* owner_ep_ = nullptr;
  Ep* peer_ep_ = nullptr;
};

bool all_zero(const std::byte* bytes, std::size_t length) {
  for (std::size_t i = 0; i < length; ++i) {
    if (bytes[i] != std::byte{0}) return false;
  }
  return true;
}

TEST_F(SplitCopyTest, EachSideCopiesItsOwnEnd) {
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> source(size), dest(size);
  fill_pattern(source.data(), size, 3);
  const uint64_t key = owner_ep_->offer_zcopy(source.data(), size);
  ASSERT_NE(key, 0u);

  Done done;
  ASSERT_EQ(peer_ep_->get_zcopy(dest.data(), size, remote(source, key), &done.comp), Status::InProgress);
  // The peer took the back half as it matched; the front half is the owner's.
  const std::size_t half = size / 2;
  EXPECT_EQ(std::memcmp(dest.data() + half, source.data() + half, half), 0);
  EXPECT_TRUE(all_zero(dest.data(), half));
  EXPECT_FALSE(done.fired);

  // The owner's progress copies the front half, before the peer moves again.
  EXPECT_EQ(owner_->progress(), 1u);
  EXPECT_TRUE(check_pattern(dest.data(), size, 3));
  EXPECT_FALSE(done.fired);

  peer_->progress();
  ASSERT_TRUE(done.fired);
  EXPECT_EQ(done.result, Status::Ok);
  owner_ep_->withdraw_zcopy(key);
  EXPECT_EQ(owner_->progress(), 0u);
}

TEST_F(SplitCopyTest, EachSideMovesItsChunksOfSeveralSmallOffersInOneStep) {
  constexpr int kMessages = 4;
  const std::size_t size = std::size_t{128} << 10;  // two 64 KiB chunks each: a batch of four fits kCmaBatchBytes
  std::vector<std::byte> source(size * kMessages), dest(size * kMessages);
  fill_pattern(source.data(), source.size(), 12);
  uint64_t keys[kMessages];
  Done done[kMessages];
  for (int i = 0; i < kMessages; ++i) {
    std::byte* from = source.data() + i * size;
    keys[i] = owner_ep_->offer_zcopy(from, size);
    ASSERT_NE(keys[i], 0u);
    const Status status = peer_ep_->get_zcopy(dest.data() + i * size, size,
                                              {reinterpret_cast<uint64_t>(from), keys[i]}, &done[i].comp);
    ASSERT_EQ(status, Status::InProgress) << "message " << i;
  }
  // The first get took its back half at once; the others wait in the queue.
  const std::size_t half = size / 2;
  EXPECT_EQ(std::memcmp(dest.data() + half, source.data() + half, half), 0);
  EXPECT_TRUE(all_zero(dest.data() + size, size * (kMessages - 1)));

  // One progress call of the owner moves the front half of all four.
  EXPECT_EQ(owner_->progress(), static_cast<unsigned>(kMessages));
  for (int i = 0; i < kMessages; ++i) {
    EXPECT_EQ(std::memcmp(dest.data() + i * size, source.data() + i * size, half), 0) << "message " << i;
  }
  // And one of the peer the back halves of the other three, which completes every get.
  peer_->progress();
  for (int i = 0; i < kMessages; ++i) {
    EXPECT_TRUE(done[i].fired) << "message " << i;
    EXPECT_EQ(done[i].result, Status::Ok) << "message " << i;
  }
  EXPECT_TRUE(check_pattern(dest.data(), dest.size(), 12));
  for (uint64_t key : keys) owner_ep_->withdraw_zcopy(key);
}

TEST_F(SplitCopyTest, ThePeerCopiesEverythingWhenTheOwnerDoesNotProgress) {
  const std::size_t size = (std::size_t{3} << 20) + 12345;
  std::vector<std::byte> source(size), dest(size);
  fill_pattern(source.data(), size, 4);
  const uint64_t key = owner_ep_->offer_zcopy(source.data(), size);
  ASSERT_NE(key, 0u);
  Done done;
  ASSERT_EQ(peer_ep_->get_zcopy(dest.data(), size, remote(source, key), &done.comp), Status::InProgress);
  ASSERT_TRUE(spin_until([&] { peer_->progress(); }, [&] { return done.fired; }));
  EXPECT_EQ(done.result, Status::Ok);
  EXPECT_TRUE(check_pattern(dest.data(), size, 4));
  // Nothing was left for the owner.
  EXPECT_EQ(owner_->progress(), 0u);
  owner_ep_->withdraw_zcopy(key);
}

TEST_F(SplitCopyTest, AnOwnerBusyWithItsOwnCopiesLeavesTheWholeOfferToThePeer) {
  runtime::Config config;
  config.cma_chunk = 64 * 1024;  // the owner's put stays queued, and offers have many chunks
  open(config);
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> put_source(size), put_dest(size), source(size), dest(size);
  fill_pattern(put_source.data(), size, 8);
  fill_pattern(source.data(), size, 9);
  Done put;
  ASSERT_EQ(owner_ep_->put_zcopy(put_source.data(), size, remote(put_dest, 0), &put.comp), Status::InProgress);

  const uint64_t key = owner_ep_->offer_zcopy(source.data(), size);
  ASSERT_NE(key, 0u);
  Done done;
  // One claim takes every chunk: the get is complete when the call returns.
  EXPECT_EQ(peer_ep_->get_zcopy(dest.data(), size, remote(source, key), &done.comp), Status::Ok);
  EXPECT_TRUE(check_pattern(dest.data(), size, 9));

  ASSERT_TRUE(spin_until([&] { owner_->progress(); }, [&] { return put.fired; }));
  EXPECT_EQ(put.result, Status::Ok);
  EXPECT_TRUE(check_pattern(put_dest.data(), size, 8));
  owner_ep_->withdraw_zcopy(key);
}

TEST_F(SplitCopyTest, AShorterReceiveCopiesOnlyWhatFits) {
  const std::size_t size = std::size_t{1} << 20;
  const std::size_t fits = size / 2 + 4097;
  std::vector<std::byte> source(size), dest(size);
  fill_pattern(source.data(), size, 5);
  const uint64_t key = owner_ep_->offer_zcopy(source.data(), size);
  ASSERT_NE(key, 0u);
  Done done;
  ASSERT_EQ(peer_ep_->get_zcopy(dest.data(), fits, remote(source, key), &done.comp), Status::InProgress);
  ASSERT_TRUE(spin_until(
      [&] {
        owner_->progress();
        peer_->progress();
      },
      [&] { return done.fired; }));
  EXPECT_EQ(done.result, Status::Ok);
  EXPECT_TRUE(check_pattern(dest.data(), fits, 5));
  EXPECT_TRUE(all_zero(dest.data() + fits, size - fits));
  owner_ep_->withdraw_zcopy(key);
}

TEST_F(SplitCopyTest, AWithdrawnKeyNoLongerMatches) {
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> source(size), dest(size);
  fill_pattern(source.data(), size, 6);
  const uint64_t key = owner_ep_->offer_zcopy(source.data(), size);
  ASSERT_NE(key, 0u);
  owner_ep_->withdraw_zcopy(key);
  // The slot is free again (and may be reused at once): the stale key falls
  // back to a get the peer makes alone, which still moves the right bytes.
  const uint64_t reused = owner_ep_->offer_zcopy(source.data(), size);
  ASSERT_NE(reused, 0u);
  EXPECT_NE(reused, key);
  Done done;
  const Status status = peer_ep_->get_zcopy(dest.data(), size, remote(source, key), &done.comp);
  ASSERT_TRUE(status == Status::Ok || status == Status::InProgress) << to_string(status);
  if (status == Status::InProgress) {
    ASSERT_TRUE(spin_until([&] { peer_->progress(); }, [&] { return done.fired; }));
  }
  EXPECT_TRUE(check_pattern(dest.data(), size, 6));
  EXPECT_EQ(owner_->progress(), 0u) << "the stale get must not have matched the new offer";
  owner_ep_->withdraw_zcopy(reused);
}

TEST_F(SplitCopyTest, OffersRunOutThenComeBack) {
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> source(size);
  std::vector<uint64_t> keys;
  for (uint32_t i = 0; i < shm::kOfferSlots; ++i) {
    keys.push_back(owner_ep_->offer_zcopy(source.data(), size));
    ASSERT_NE(keys.back(), 0u) << "offer " << i;
  }
  EXPECT_EQ(owner_ep_->offer_zcopy(source.data(), size), 0u) << "every slot is taken";
  owner_ep_->withdraw_zcopy(keys.back());
  keys.pop_back();
  const uint64_t again = owner_ep_->offer_zcopy(source.data(), size);
  EXPECT_NE(again, 0u);
  keys.push_back(again);
  for (uint64_t key : keys) owner_ep_->withdraw_zcopy(key);
}

TEST_F(SplitCopyTest, SmallBuffersAndTheSwitchTurnOffersOff) {
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> source(size);
  EXPECT_EQ(owner_ep_->offer_zcopy(source.data(), 4096), 0u) << "too small to be worth two system calls";
  runtime::Config config;
  config.cma_split = runtime::Switch::Off;
  open(config);
  EXPECT_EQ(owner_ep_->offer_zcopy(source.data(), size), 0u);
}

}  // namespace
}  // namespace tern::engine::transport
