// Malformed active messages written into a worker's shared-memory FIFO, as
// a buggy or stray-writing local process could: each is dropped (counted,
// logged), nothing is overrun or dereferenced, a peer that keeps sending
// them is disconnected with every call that needs it failing, and the
// worker goes on serving its other traffic.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rogue.hpp"

namespace tern::engine::hostile {
namespace {

constexpr uint64_t kTag = 0x77;

// What a worker dropped, as it grows.
struct Rejections {
  const Worker& worker;
  uint64_t before = worker.rejected_messages();
  [[nodiscard]] uint64_t added() const { return worker.rejected_messages() - before; }
};

// A target worker, a peer it knows, and a rogue writing into the target's FIFO.
class HostileMessages : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pair.ready());
    rogue = std::make_unique<ShmRogue>(*pair.target_, pair.job_id_);
    ASSERT_TRUE(rogue->ready());
    peer_uuid = uuid_of(*pair.peer_);
  }

  Pair pair{"msg"};
  std::unique_ptr<ShmRogue> rogue;
  uint64_t peer_uuid = 0;
  Rejections rejections{*pair.target_};
};

TEST_F(HostileMessages, ForgedOrStaleAcknowledgementsAreRefused) {
  ShmRogue at_peer(*pair.peer_, pair.job_id_);
  ASSERT_TRUE(at_peer.ready());
  const uint64_t target_uuid = uuid_of(*pair.target_);

  // A synchronous send from the peer waits for the target's acknowledgement.
  const char text[] = "synchronous";
  Request* send = nullptr;
  ASSERT_EQ(pair.peer_->tag_send_nb(pair.peer_to_target_, text, sizeof(text), kTag, send, kSendSync),
            Status::InProgress);
  Rejections at_peer_rejections{*pair.peer_};
  // A pointer, as the forger sent; ids that name nothing; the first
  // id a worker gives out, but claimed by a worker the peer never sent to.
  const tag::SendAckHeader forged[] = {
      {0x4141414141414141ull, target_uuid}, {0, target_uuid},        {~0ull, target_uuid},
      {(uint64_t{1} << 32) | 2, target_uuid}, {(uint64_t{1} << 32) | 1, uuid_of(*pair.peer_)},
  };
  for (const tag::SendAckHeader& ack : forged) {
    ASSERT_EQ(at_peer.send(tag::kAmSendAck, &ack, sizeof(ack)), Status::Ok);
  }
  ASSERT_TRUE(pair.until([&] { return at_peer_rejections.added() == std::size(forged); }));
  EXPECT_FALSE(send->done()) << "a forged acknowledgement completed a send";

  // The real one completes it.
  char received[sizeof(text)] = {};
  ASSERT_EQ(pair.target_->tag_recv(received, sizeof(received), kTag, kTagMaskAll), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return send->done(); }));
  EXPECT_EQ(pair.peer_->wait(send), Status::Ok);
  EXPECT_STREQ(received, text);

  // Replayed, the id it carried is stale (the first one given out).
  ASSERT_TRUE(pair.peer_->tag_send_nb(pair.peer_to_target_, text, sizeof(text), kTag, send, kSendSync) ==
              Status::InProgress);
  const tag::SendAckHeader replay{(uint64_t{1} << 32) | 1, target_uuid};
  ASSERT_EQ(at_peer.send(tag::kAmSendAck, &replay, sizeof(replay)), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return at_peer_rejections.added() == std::size(forged) + 1; }));
  EXPECT_FALSE(send->done());
  ASSERT_EQ(pair.target_->tag_recv(received, sizeof(received), kTag, kTagMaskAll), Status::Ok);
  EXPECT_EQ(pair.peer_->wait(send), Status::Ok);
}

TEST_F(HostileMessages, MessagesShorterThanTheirHeaderAreDropped) {
  struct Kind {
    uint8_t id;
    std::size_t header;  // bytes every message of the id has
  };
  const Kind kinds[] = {{tag::kAmEager, 8},
                        {tag::kAmEagerSync, sizeof(tag::EagerSyncHeader)},
                        {tag::kAmEagerFirst, sizeof(tag::EagerFirstHeader)},
                        {tag::kAmEagerMiddle, sizeof(tag::FragmentHeader)},
                        {tag::kAmRndvRts, sizeof(tag::RtsHeader)},
                        {tag::kAmSendAck, sizeof(tag::SendAckHeader)},
                        {tag::kAmHello, 24}};
  const std::byte garbage[64] = {std::byte{0x41}};
  // Lengths 0 and 4 underflowed `length - sizeof(header)` in four handlers.
  unsigned sent = 0;
  for (const Kind& kind : kinds) {
    for (std::size_t length : {0, 4, 7, 15, 23, 31, 47}) {
      if (length >= kind.header) continue;
      ASSERT_EQ(rogue->send(kind.id, garbage, length), Status::Ok);
      ++sent;
    }
  }
  ASSERT_TRUE(pair.until([&] { return rejections.added() == sent; })) << rejections.added() << " of " << sent;
  EXPECT_TRUE(pair.failed_.empty());
  EXPECT_TRUE(pair.target_still_receives(100));
  EXPECT_TRUE(pair.target_still_receives(64 * 1024));
}

TEST_F(HostileMessages, FirstFragmentLongerThanItsAnnouncedTotalIsDropped) {
  // 20 KiB of payload announced as 10 bytes: it was copied into the
  // 192-byte inline buffer of an unexpected message (no receive posted)...
  const std::size_t payload = rogue->max_message() - sizeof(tag::EagerFirstHeader);
  ASSERT_GE(payload, std::size_t{20000});
  const auto lie = message(tag::EagerFirstHeader{kTag, peer_uuid, 10, 0}, payload);
  ASSERT_EQ(rogue->send(tag::kAmEagerFirst, lie), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return rejections.added() == 1; }));
  TagRecvInfo info;
  EXPECT_EQ(pair.target_->tag_probe(kTag, kTagMaskAll, info), Status::NotFound);

  // ... and into a posted receive's buffer as far as it held.
  std::vector<unsigned char> small(192, 0xee);
  Request* recv = nullptr;
  ASSERT_EQ(pair.target_->tag_recv_nb(small.data(), small.size(), kTag, kTagMaskAll, recv), Status::InProgress);
  ASSERT_EQ(rogue->send(tag::kAmEagerFirst, lie), Status::Ok);
  // A total beyond any message, too.
  const auto huge = message(tag::EagerFirstHeader{kTag, peer_uuid, ~0ull, 0}, 64);
  ASSERT_EQ(rogue->send(tag::kAmEagerFirst, huge), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return rejections.added() == 3; }));
  EXPECT_FALSE(recv->done());
  for (unsigned char byte : small) ASSERT_EQ(byte, 0xee);

  // The posted receive still takes the real message.
  std::vector<unsigned char> sent(150, 0x5a);
  ASSERT_EQ(pair.peer_->tag_send(pair.peer_to_target_, sent.data(), sent.size(), kTag), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return recv->done(); }));
  EXPECT_EQ(recv->status(), Status::Ok);
  EXPECT_EQ(recv->info().length, sent.size());
  pair.target_->release(recv);
  EXPECT_TRUE(std::equal(sent.begin(), sent.end(), small.begin()));
  EXPECT_TRUE(pair.target_still_receives(300));
}

TEST_F(HostileMessages, FragmentsBeyondTheAnnouncedTotalFailTheMessage) {
  // A fragment with no message in progress.
  ASSERT_EQ(rogue->send(tag::kAmEagerMiddle, message(tag::FragmentHeader{peer_uuid}, 100)), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return rejections.added() == 1; }));

  // A message of 300 bytes whose second fragment carries 400: the receive
  // that got the first fragment ends with an error, and nothing past its
  // buffer is written.
  std::vector<unsigned char> buffer(300 + 64, 0xee);
  Request* recv = nullptr;
  ASSERT_EQ(pair.target_->tag_recv_nb(buffer.data(), 300, kTag, kTagMaskAll, recv), Status::InProgress);
  ASSERT_EQ(rogue->send(tag::kAmEagerFirst, message(tag::EagerFirstHeader{kTag, peer_uuid, 300, 0}, 100)), Status::Ok);
  ASSERT_EQ(rogue->send(tag::kAmEagerMiddle, message(tag::FragmentHeader{peer_uuid}, 400)), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return recv->done(); }));
  EXPECT_EQ(recv->status(), Status::IoError);
  pair.target_->release(recv);
  for (std::size_t i = 300; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], 0xee) << "overrun at " << i;
  EXPECT_EQ(rejections.added(), 2u);

  // The same as an unexpected message: it is dropped, not kept half-filled.
  ASSERT_EQ(rogue->send(tag::kAmEagerFirst, message(tag::EagerFirstHeader{kTag, peer_uuid, 300, 0}, 100)), Status::Ok);
  ASSERT_EQ(rogue->send(tag::kAmEagerMiddle, message(tag::FragmentHeader{peer_uuid}, 400)), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return rejections.added() == 3; }));
  TagRecvInfo info;
  EXPECT_EQ(pair.target_->tag_probe(kTag, kTagMaskAll, info), Status::NotFound);
  EXPECT_TRUE(pair.target_still_receives(50 * 1024));
}

TEST_F(HostileMessages, RendezvousRequestsThatCannotBeRightAreDropped) {
  const tag::RtsHeader lies[] = {
      {kTag, peer_uuid, 0, 0x1000, 100, 0},         // no acknowledgement id
      {kTag, peer_uuid, 5, 0, 100, 0},              // no buffer
      {kTag, peer_uuid, 5, 0x1000, ~0ull >> 1, 0},  // longer than any message
  };
  for (const tag::RtsHeader& lie : lies) ASSERT_EQ(rogue->send(tag::kAmRndvRts, &lie, sizeof(lie)), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return rejections.added() == std::size(lies); }));
  TagRecvInfo info;
  EXPECT_EQ(pair.target_->tag_probe(kTag, kTagMaskAll, info), Status::NotFound);
  EXPECT_TRUE(pair.target_still_receives(1 << 20));
}

TEST_F(HostileMessages, UnknownSendersAndIdsAreDropped) {
  const auto stranger = message(tag::EagerSyncHeader{kTag, 0x5151515151515151ull, 1}, 10);
  ASSERT_EQ(rogue->send(tag::kAmEagerSync, stranger), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return rejections.added() == 1; }));
  // Ids nobody handles are dropped by the transport.
  for (uint8_t id : {uint8_t{0}, uint8_t{8}, uint8_t{31}}) ASSERT_EQ(rogue->send(id, stranger), Status::Ok);
  for (int i = 0; i < 100; ++i) pair.progress();
  TagRecvInfo info;
  EXPECT_EQ(pair.target_->tag_probe(kTag, kTagMaskAll, info), Status::NotFound);
  EXPECT_TRUE(pair.failed_.empty());
  EXPECT_TRUE(pair.target_still_receives(10));
}

TEST_F(HostileMessages, PeerSendingGarbageRepeatedlyIsDisconnectedAndItsCallsFail) {
  pair.target_->set_peer_name(pair.target_to_peer_, "rank 7 (host hostile)");
  EXPECT_EQ(pair.target_->peer_name(pair.target_to_peer_), "rank 7 (host hostile)");

  // Before: a send to the peer waiting for its acknowledgement, and a
  // message from it half arrived.
  const char text[] = "waits for the peer";
  Request* waiting = nullptr;
  ASSERT_EQ(pair.target_->tag_send_nb(pair.target_to_peer_, text, sizeof(text), kTag, waiting, kSendSync),
            Status::InProgress);
  std::vector<unsigned char> buffer(1000);
  Request* half = nullptr;
  ASSERT_EQ(pair.target_->tag_recv_nb(buffer.data(), buffer.size(), kTag + 1, kTagMaskAll, half), Status::InProgress);
  ASSERT_EQ(rogue->send(tag::kAmEagerFirst, message(tag::EagerFirstHeader{kTag + 1, peer_uuid, 1000, 0}, 100)),
            Status::Ok);
  ASSERT_TRUE(pair.until([&] { return !pair.target_->progress(); }));

  // Malformed messages that name the peer, one after the other.
  const auto garbage = message(tag::EagerSyncHeader{kTag, peer_uuid, 0}, 10);
  for (int i = 0; i < 20 && pair.failed_.empty(); ++i) {
    ASSERT_EQ(rogue->send(tag::kAmEagerSync, garbage), Status::Ok);
    for (int j = 0; j < 10; ++j) (void)pair.target_->progress();
  }
  ASSERT_EQ(pair.failed_.size(), 1u);
  EXPECT_EQ(pair.failed_[0], pair.target_to_peer_);
  EXPECT_EQ(pair.target_->peer_status(pair.target_to_peer_), Status::IoError);

  // Everything that needs the peer has failed, and fails from now on.
  EXPECT_TRUE(waiting->done());
  EXPECT_EQ(pair.target_->wait(waiting), Status::IoError);
  EXPECT_TRUE(half->done());
  EXPECT_EQ(pair.target_->wait(half), Status::IoError);
  EXPECT_EQ(pair.target_->tag_send(pair.target_to_peer_, text, 8, kTag), Status::IoError);
  EXPECT_EQ(pair.target_->tag_send(pair.target_to_peer_, text, sizeof(text), kTag, kSendSync), Status::IoError);
  std::vector<unsigned char> large(1 << 20);
  EXPECT_EQ(pair.target_->tag_send(pair.target_to_peer_, large.data(), large.size(), kTag), Status::IoError);
  // The worker itself goes on.
  Endpoint* self = nullptr;
  ASSERT_EQ(pair.target_->connect(pair.target_->address(), self), Status::Ok);
  Request* request = nullptr;
  ASSERT_EQ(pair.target_->tag_recv_nb(buffer.data(), 4, kTag + 2, kTagMaskAll, request), Status::InProgress);
  ASSERT_EQ(pair.target_->tag_send(self, "abc", 4, kTag + 2), Status::Ok);
  EXPECT_EQ(pair.target_->wait(request), Status::Ok);
}

}  // namespace
}  // namespace tern::engine::hostile
