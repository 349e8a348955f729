// Held messages from another host as their receiver sees them: a ticket in
// the sender's place among its messages (written here by a rogue in the
// sender's name), and the progress agent's announcement of the data (the
// peer worker playing the agent through Worker::agent_forward). Whichever
// comes first, and whether the receive is posted before, between or after
// them, the receive gets the agent's data with the ticket's tag and matches
// in the ticket's place; tickets and announcements that cannot be right are
// dropped or fail the receive, never read past.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rogue.hpp"

namespace tern::engine::hostile {
namespace {

constexpr uint64_t kTag = 0x99;
constexpr std::size_t kLength = 256 << 10;

class AgentTickets : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pair.ready());
    rogue = std::make_unique<ShmRogue>(*pair.target_, pair.job_id_);
    ASSERT_TRUE(rogue->ready());
    sender_uuid = uuid_of(*pair.peer_);
    for (std::size_t i = 0; i < kLength; ++i) data[i] = static_cast<unsigned char>(i * 13 + 5);
  }

  Status ticket(uint64_t number, uint64_t tag = kTag, std::size_t length = kLength) {
    const tag::AgentTicketHeader header{tag, sender_uuid, length, number};
    return rogue->send(tag::kAmAgentTicket, &header, sizeof(header));
  }

  // The peer, as the agent, announces `data` under `number`; `forwarded`
  // becomes true once the target has fetched it.
  Status announce(uint64_t number, std::size_t length = kLength) {
    return pair.peer_->agent_forward(pair.peer_to_target_, data.data(), length, sender_uuid, number,
                                     Callback{&AgentTickets::on_forwarded, this, nullptr});
  }
  static void on_forwarded(void* self, Status status, const TagRecvInfo&) {
    static_cast<AgentTickets*>(self)->forwarded_status = status;
    static_cast<AgentTickets*>(self)->forwarded = true;
  }

  // Waits for `recv` and checks it got the data whole under kTag.
  void expect_received(Request* recv) {
    ASSERT_TRUE(pair.until([&] { return recv->done() && forwarded; }));
    EXPECT_EQ(recv->status(), Status::Ok);
    EXPECT_EQ(recv->info().sender_tag, kTag);
    EXPECT_EQ(recv->info().length, kLength);
    EXPECT_EQ(std::memcmp(received.data(), data.data(), kLength), 0);
    EXPECT_EQ(forwarded_status, Status::Ok);
    pair.target_->release(recv);
  }

  Pair pair{"tick"};
  std::unique_ptr<ShmRogue> rogue;
  uint64_t sender_uuid = 0;
  std::vector<unsigned char> data = std::vector<unsigned char>(kLength);
  std::vector<unsigned char> received = std::vector<unsigned char>(kLength);
  bool forwarded = false;
  Status forwarded_status = Status::InProgress;
};

TEST_F(AgentTickets, TicketThenReceiveThenAnnouncement) {
  ASSERT_EQ(ticket(1), Status::Ok);
  for (int i = 0; i < 100; ++i) pair.progress();
  TagRecvInfo info;
  ASSERT_EQ(pair.target_->tag_probe(kTag, kTagMaskAll, info), Status::Ok);  // the ticket probes as the message
  EXPECT_EQ(info.length, kLength);
  Request* recv = nullptr;
  ASSERT_EQ(pair.target_->tag_recv_nb(received.data(), kLength, kTag, kTagMaskAll, recv), Status::InProgress);
  for (int i = 0; i < 100; ++i) pair.progress();
  EXPECT_FALSE(recv->done());  // no data yet
  ASSERT_EQ(announce(1), Status::InProgress);
  expect_received(recv);
}

TEST_F(AgentTickets, AnnouncementThenTicketThenReceive) {
  ASSERT_EQ(announce(2), Status::InProgress);
  for (int i = 0; i < 100; ++i) pair.progress();
  ASSERT_EQ(ticket(2), Status::Ok);
  for (int i = 0; i < 100; ++i) pair.progress();
  Request* recv = nullptr;
  const Status s = pair.target_->tag_recv_nb(received.data(), kLength, kTag, kTagMaskAll, recv);
  ASSERT_TRUE(s == Status::InProgress || s == Status::Ok);
  if (s == Status::Ok) {
    ASSERT_TRUE(pair.until([&] { return forwarded; }));
    EXPECT_EQ(std::memcmp(received.data(), data.data(), kLength), 0);
    return;
  }
  expect_received(recv);
}

TEST_F(AgentTickets, PostedReceiveMatchesTheTicketInItsPlace) {
  // Two receives that both match: the earlier takes the ticket, the later
  // the ordinary message the sender sent after it.
  Request* first = nullptr;
  Request* second = nullptr;
  std::vector<unsigned char> other(64, 0);
  ASSERT_EQ(pair.target_->tag_recv_nb(received.data(), kLength, kTag, 0, first), Status::InProgress);
  ASSERT_EQ(pair.target_->tag_recv_nb(other.data(), other.size(), kTag, 0, second), Status::InProgress);
  ASSERT_EQ(ticket(3), Status::Ok);
  const char after[] = "after the ticket";
  Request* send = nullptr;
  ASSERT_EQ(pair.peer_->tag_send_nb(pair.peer_to_target_, after, sizeof(after), kTag + 1, send), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return second->done(); }));
  EXPECT_EQ(second->info().sender_tag, kTag + 1);
  EXPECT_EQ(std::memcmp(other.data(), after, sizeof(after)), 0);
  pair.target_->release(second);
  EXPECT_FALSE(first->done());
  ASSERT_EQ(announce(3), Status::InProgress);
  expect_received(first);
}

TEST_F(AgentTickets, TicketsAndAnnouncementsThatCannotBeRight) {
  const uint64_t rejected_before = pair.target_->rejected_messages();
  ASSERT_EQ(ticket(0), Status::Ok);                                  // no ticket number
  ASSERT_EQ(ticket(4, kTag, kMaxMessageLength + 1), Status::Ok);     // longer than any message
  const tag::AgentRtsHeader lies[] = {
      {5, sender_uuid, sender_uuid, 0, 0x1000, 10, 0},               // no acknowledgement id
      {5, sender_uuid, sender_uuid, 7, 0, 10, 0},                    // no buffer
      {5, sender_uuid, 0x5151515151515151ull, 7, 0x1000, 10, 0},     // from no agent the target knows
  };
  for (const auto& lie : lies) ASSERT_EQ(rogue->send(tag::kAmAgentRts, &lie, sizeof(lie)), Status::Ok);
  ASSERT_TRUE(pair.until([&] { return pair.target_->rejected_messages() - rejected_before == 5; }));
  TagRecvInfo info;
  EXPECT_EQ(pair.target_->tag_probe(0, 0, info), Status::NotFound);
  // An announcement whose length is not the ticket's fails the receive.
  Request* recv = nullptr;
  ASSERT_EQ(pair.target_->tag_recv_nb(received.data(), kLength, kTag, kTagMaskAll, recv), Status::InProgress);
  ASSERT_EQ(ticket(6), Status::Ok);
  ASSERT_EQ(announce(6, kLength / 2), Status::InProgress);
  ASSERT_TRUE(pair.until([&] { return recv->done(); }));
  EXPECT_EQ(recv->status(), Status::IoError);
  pair.target_->release(recv);
  EXPECT_TRUE(pair.target_still_receives(1 << 20));
}

}  // namespace
}  // namespace tern::engine::hostile
