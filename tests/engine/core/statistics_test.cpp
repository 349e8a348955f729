// Worker::statistics: the matcher's queues and the sends per transport, as
// tools read them (MPI_T performance variables).
#include <gtest/gtest.h>

#include "self_worker_test.hpp"

namespace tern::engine {
namespace {

constexpr int kMessages = 3;

TEST_F(SelfWorkerTest, StatisticsFollowTheQueuesAndTheSends) {
  Worker::Statistics before = worker_->statistics();
  EXPECT_EQ(before.posted_receives, 0u);
  EXPECT_EQ(before.unexpected_messages, 0u);
  EXPECT_EQ(before.sends_self, 0u);

  // Receives posted first wait in the expected queue until their messages come.
  int in[kMessages] = {};
  Request* receives[kMessages] = {};
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(worker_->tag_recv_nb(&in[i], sizeof(int), 100 + i, kTagMaskAll, receives[i]), Status::InProgress);
  }
  EXPECT_EQ(worker_->statistics().posted_receives, static_cast<std::size_t>(kMessages));
  const int value = 7;
  for (int i = 0; i < kMessages; ++i) {
    Request* send = nullptr;
    const Status s = worker_->tag_send_nb(ep_, &value, sizeof(value), 100 + i, send);
    ASSERT_TRUE(s == Status::Ok || s == Status::InProgress) << to_string(s);
    if (send != nullptr) {
      ASSERT_EQ(worker_->wait(send), Status::Ok);
    }
  }
  for (Request* receive : receives) ASSERT_EQ(worker_->wait(receive), Status::Ok);
  Worker::Statistics now = worker_->statistics();
  EXPECT_EQ(now.posted_receives, 0u);
  EXPECT_EQ(now.sends_self, static_cast<uint64_t>(kMessages));

  // Messages sent first wait in the unexpected queue until received.
  for (int i = 0; i < kMessages; ++i) {
    Request* send = nullptr;
    const Status s = worker_->tag_send_nb(ep_, &value, sizeof(value), 200 + i, send);
    ASSERT_TRUE(s == Status::Ok || s == Status::InProgress) << to_string(s);
    if (send != nullptr) {
      ASSERT_EQ(worker_->wait(send), Status::Ok);
    }
  }
  TagRecvInfo info;
  progress_until([&] { return worker_->tag_probe(200 + kMessages - 1, kTagMaskAll, info) == Status::Ok; });
  EXPECT_EQ(worker_->statistics().unexpected_messages, static_cast<std::size_t>(kMessages));
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(worker_->tag_recv(&in[i], sizeof(int), 200 + i, kTagMaskAll), Status::Ok);
  }
  now = worker_->statistics();
  EXPECT_EQ(now.unexpected_messages, 0u);
  EXPECT_EQ(now.sends_self, static_cast<uint64_t>(2 * kMessages));
  EXPECT_EQ(now.sends_shm + now.sends_tcp + now.sends_verbs, 0u);
  EXPECT_EQ(now.rejected_messages, 0u);
}

}  // namespace
}  // namespace tern::engine
