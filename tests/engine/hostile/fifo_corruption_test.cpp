// Shared FIFO indices and rings trashed by something other than their
// senders and receiver: a head past cells nobody filled, a tail the receiver
// never published, a head behind the tail, a tail past the head as a sender
// sees it (FIFO and ring), a ring slot whose publication word no sender
// wrote. Each ends in an error reported to the iface's owner, within a bound,
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
    geometry_ = address.geometry;
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
  // The first ring of the receiver's segment: the one our sender claimed.
  transport::RingControl& ring_control() {
    return *reinterpret_cast<transport::RingControl*>(static_cast<std::byte*>(segment_.base()) +
                                                      transport::shm::rings_offset(geometry_));
  }
  transport::RingRecordHeader& ring_slot(uint64_t position) {
    auto* data = reinterpret_cast<std::byte*>(&ring_control()) + sizeof(transport::RingControl);
    const uint64_t slots = transport::shm::kRingBytes / transport::kRingSlot;
    return *reinterpret_cast<transport::RingRecordHeader*>(data + (position % slots) * transport::kRingSlot);
  }

  // Messages that go through the FIFO (too long for a ring), or through
  // the sender's ring.
  Status send(int count, std::size_t length = 100) {
    const std::vector<std::byte> payload(length);
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
  transport::FifoGeometry geometry_{};
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

TEST_F(FifoCorruption, SenderFindingItsRingsTailPastWhatItSentFailsInsteadOfOverwriting) {
  constexpr std::size_t kRingMessage = 8;  // fits a ring slot
  ASSERT_EQ(send(2, kRingMessage), Status::Ok);
  while (received_ < 2) (void)receiver_->progress();
  ring_control().tail.store(1u << 20);
  Status status = Status::Ok;
  int sent = 0;
  while (sent < 10000 && (status = send(1, kRingMessage)) == Status::Ok) ++sent;
  EXPECT_EQ(status, Status::IoError);
  EXPECT_LE(sent, static_cast<int>(transport::shm::kRingBytes / transport::kRingSlot));
  (void)sender_->progress();
  ASSERT_EQ(at_sender_.seen.size(), 1u);
  EXPECT_EQ(at_sender_.seen[0].lane, ep_);
  // Longer messages, which would go through the FIFO once the ring is
  // drained, fail too: the ring never says it is.
  EXPECT_EQ(send(1), Status::IoError);
}

TEST_F(FifoCorruption, GarbledRingSlotIsFoundWhileIdle) {
  constexpr std::size_t kRingMessage = 8;
  ASSERT_EQ(send(2, kRingMessage), Status::Ok);
  while (received_ < 2) (void)receiver_->progress();
  // The slot the receiver reads next holds a word no sender writes.
  ring_slot(2).published.store(0x41414141);
  ASSERT_TRUE(receiver_reports(5));
  EXPECT_EQ(at_receiver_.seen[0].lane, nullptr);
  EXPECT_EQ(received_, 2);
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
