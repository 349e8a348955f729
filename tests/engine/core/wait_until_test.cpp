// Worker::wait_until asks its condition no more once it held, so a front
// end's condition may act when it holds: MPI_Mprobe's takes the message it
// found, and asked again would take (and lose) the next one.
#include <gtest/gtest.h>

#include "self_worker_test.hpp"

namespace tern::engine {
namespace {

constexpr uint64_t kTag = 77;
constexpr int kMessages = 4;  // taken by waits; as many more stay queued, so
                              // that a wait that takes two never starves

struct TakingProbe {
  Worker* worker;
  Message* taken = nullptr;
  int takes = 0;
  int asked_after = 0;  // asked again after it had taken one
};

bool take_one(void* argument) {
  auto* probe = static_cast<TakingProbe*>(argument);
  if (probe->taken != nullptr) ++probe->asked_after;
  TagRecvInfo info;
  Message* message = nullptr;
  if (probe->worker->tag_probe(kTag, kTagMaskAll, info, &message) != Status::Ok) return false;
  ++probe->takes;
  probe->taken = message;
  return true;
}

TEST_F(SelfWorkerTest, WaitUntilAsksNoMoreOnceTheConditionHeld) {
  int values[2 * kMessages];
  for (int i = 0; i < 2 * kMessages; ++i) {
    values[i] = i;
    Request* send = nullptr;
    const Status s = worker_->tag_send_nb(ep_, &values[i], sizeof(int), kTag, send);
    ASSERT_TRUE(s == Status::Ok || s == Status::InProgress) << to_string(s);
    if (send != nullptr) {
      ASSERT_EQ(worker_->wait(send), Status::Ok);
    }
  }
  // Each wait takes exactly the next message, in order, and none is lost.
  for (int i = 0; i < kMessages; ++i) {
    TakingProbe probe{worker_.get()};
    worker_->wait_until(take_one, &probe);
    EXPECT_EQ(probe.takes, 1);
    EXPECT_EQ(probe.asked_after, 0);
    ASSERT_NE(probe.taken, nullptr);
    int received = -1;
    Request* receive = nullptr;
    TagRecvInfo info;
    const Status s = worker_->tag_msg_recv_nb(&received, sizeof(int), probe.taken, receive, &info);
    if (s == Status::InProgress) {
      ASSERT_EQ(worker_->wait(receive), Status::Ok);
    } else {
      ASSERT_EQ(s, Status::Ok);
    }
    EXPECT_EQ(received, i);
  }
  // The others are still there, the next one first.
  TagRecvInfo info;
  int next = -1;
  ASSERT_EQ(worker_->tag_recv(&next, sizeof(int), kTag, kTagMaskAll, &info), Status::Ok);
  EXPECT_EQ(next, kMessages);
}

}  // namespace
}  // namespace tern::engine
