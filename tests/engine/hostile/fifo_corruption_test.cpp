// Shared FIFO indices trashed by something other than the FIFO's senders
// and receiver: a head past cells nobody filled, a tail the receiver never
// published, a head behind the tail, a tail past the head as a sender sees
// it. Each ends in an error reported to the iface's owner, within a bound,
// never in a hang or in cells overwritten.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "rogue.hpp"
#include "transport/shm/shm_iface.hpp"

namespace tern::engine::hostile {
namespace {

using transport::Ep;
using transport::Iface;

constexpr uint8_t kAmId = 3;

struct Failures {
  struct Seen {
    Iface* iface;
    Ep* lane;
  };
  std::vector<Seen> seen;
  static void record(void* arg, Iface* iface, Ep* lane, const char*) {
    static_cast<Failures*>(arg)->seen.push_back({iface, lane});
  }
};

class FifoCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    receiver_ = open(0x100, &at_receiver_);
    sender_ = open(0x200, &at_sender_);
    ASSERT_TRUE(receiver_ && sender_);
    receiver_->set_am_handler(
        kAmId, [](void* arg, const void*, std::size_t) -> bool { return ++*static_cast<int*>(arg) > 0; }, &received_);
    Status status = Status::InvalidParam;
    ep_ = sender_->create_ep(receiver_->address(), status);
    ASSERT_EQ(status, Status::Ok);
    transport::shm::ShmAddress address;
    ASSERT_TRUE(transport::shm::unpack_address(receiver_->address(), address));
    ASSERT_EQ(transport::shm::ShmSegment::attach(address.segment_name, transport::shm::segment_size(address.geometry),
                                                 segment_),
              Status::Ok);
    shm_receiver()->set_stall_limit(50'000'000);  // 50 ms
  }
  void TearDown() override {
    if (ep_ != nullptr) sender_->destroy_ep(ep_);
  }

  std::unique_ptr<Iface> open(uint64_t uuid, Failures* failures) {
    transport::IfaceParams params;
    params.job_id = job_id_;
    params.worker_uuid = uuid;
    params.on_failure = &Failures::record;
    params.failure_arg = failures;
    Status status = Status::InvalidParam;
    return transport::create_shm_iface(params, status);
  }
  transport::shm::ShmIface* shm_receiver() { return static_cast<transport::shm::ShmIface*>(receiver_.get()); }
  transport::FifoIndices& indices() { return static_cast<transport::shm::SegmentHeader*>(segment_.base())->fifo; }

  // Messages that go through the FIFO (too long for a ring).
  Status send(int count) {
    const std::vector<std::byte> payload(100);
    for (int i = 0; i < count; ++i) {
      if (Status s = ep_->am_short(kAmId, i, payload.data(), payload.size()); s != Status::Ok) return s;
    }
    return Status::Ok;
  }
  // Progresses the receiver until its owner was told, or `seconds` pass.
  bool receiver_reports(double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (at_receiver_.seen.empty() && std::chrono::steady_clock::now() < deadline) (void)receiver_->progress();
    return !at_receiver_.seen.empty();
  }

  std::string job_id_ = unique_job_id("fifo");
  Failures at_receiver_, at_sender_;
  std::unique_ptr<Iface> receiver_, sender_;
  Ep* ep_ = nullptr;
  transport::shm::ShmSegment segment_;
  int received_ = 0;
};

TEST_F(FifoCorruption, HoleLeftByATrashedHeadEndsInAnErrorNotAHang) {
  ASSERT_EQ(send(3), Status::Ok);
  while (received_ < 3) (void)receiver_->progress();
  // Three cells claimed that no sender will ever fill.
  indices().head.fetch_add(3);
  const auto start = std::chrono::steady_clock::now();
  // Awake, the receiver waits for them while the bound lasts...
  EXPECT_EQ(receiver_->arm(), Status::Busy);
  ASSERT_TRUE(receiver_reports(5));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(at_receiver_.seen.size(), 1u);
  EXPECT_EQ(at_receiver_.seen[0].iface, receiver_.get());
  EXPECT_EQ(at_receiver_.seen[0].lane, nullptr);  // every peer: the FIFO is lost
  // ... and then may sleep: nothing more comes through it, and nothing hangs.
  EXPECT_EQ(receiver_->arm(), Status::Ok);
  receiver_->disarm();
  for (int i = 0; i < 1000; ++i) (void)receiver_->progress();
  EXPECT_EQ(at_receiver_.seen.size(), 1u);
}

TEST_F(FifoCorruption, TailTheReceiverNeverPublishedIsFoundBeforeItSleeps) {
  ASSERT_EQ(send(2), Status::Ok);
  while (received_ < 2) (void)receiver_->progress();
  indices().tail.store(1);  // senders would wait for room that never comes
  EXPECT_EQ(receiver_->arm(), Status::Ok);
  ASSERT_EQ(at_receiver_.seen.size(), 1u);
  EXPECT_EQ(at_receiver_.seen[0].lane, nullptr);
}

TEST_F(FifoCorruption, HeadBehindTheTailIsFoundWhileIdle) {
  ASSERT_EQ(send(5), Status::Ok);
  while (received_ < 5) (void)receiver_->progress();
  indices().head.store(1);
  ASSERT_TRUE(receiver_reports(5));
  EXPECT_EQ(at_receiver_.seen[0].lane, nullptr);
}

TEST_F(FifoCorruption, SenderFindingTheTailPastTheHeadFailsInsteadOfOverwriting) {
  // The receiver does not read; its tail, as senders see it, jumps ahead:
  // a sender trusting it would overwrite cells the receiver has not read.
  indices().tail.store(1u << 20);
  Status status = Status::Ok;
  int sent = 0;
  while (sent < 1000 && (status = send(1)) == Status::Ok) ++sent;
  EXPECT_EQ(status, Status::IoError);
  EXPECT_LE(sent, 64);  // no more than the cells it could have claimed anyway
  // Its owner learns of it from the iface's progress, not inside the send.
  EXPECT_TRUE(at_sender_.seen.empty());
  (void)sender_->progress();
  ASSERT_EQ(at_sender_.seen.size(), 1u);
  EXPECT_EQ(at_sender_.seen[0].lane, ep_);
  EXPECT_EQ(send(1), Status::IoError);
}

TEST(FifoCorruptionInAWorker, WorkerWhoseFifoIsTrashedTellsItsOwner) {
  Pair pair("worker");
  ASSERT_TRUE(pair.ready());
  ShmRogue rogue(*pair.target_, pair.job_id_);
  ASSERT_TRUE(rogue.ready());
  ASSERT_TRUE(pair.target_still_receives(100));
  rogue.indices().tail.fetch_add(7);
  // Found while the worker is idle (or before it sleeps).
  ASSERT_TRUE(pair.until([&] { return !pair.failed_.empty(); }, 20));
  EXPECT_EQ(pair.failed_[0], pair.target_to_peer_);
  EXPECT_EQ(pair.target_->peer_status(pair.target_to_peer_), Status::IoError);
  EXPECT_EQ(pair.target_->tag_send(pair.target_to_peer_, "x", 1, 1), Status::IoError);
}

}  // namespace
}  // namespace tern::engine::hostile
