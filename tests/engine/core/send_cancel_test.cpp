// Cancelling sends on one worker talking to itself (self transport): a send
// that waits for its receiver is dropped while no receive has taken it, and
// completes as usual once one has; a canceled message never reaches a
// receive posted later.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "self_worker_test.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

class SendCancelTest : public SelfWorkerTest {
 protected:
  // Progresses until `request` is done; its status.
  Status finish(Request* request) {
    Status status = Status::InProgress;
    progress_until([&] { return (status = worker_->test(request)) != Status::InProgress; });
    return status;
  }
};

TEST_F(SendCancelTest, UnmatchedSynchronousSendIsDroppedAndNeverReceived) {
  for (std::size_t length : {std::size_t{8}, std::size_t{100000}}) {  // one message, and eager fragments
    SCOPED_TRACE(length);
    std::vector<char> data(length, 'c');
    Request* send = nullptr;
    ASSERT_EQ(worker_->tag_send_nb(ep_, data.data(), length, 21, send, kSendSync), Status::InProgress);
    worker_->progress();  // it arrives, unexpected
    EXPECT_EQ(worker_->cancel(send), Status::InProgress);
    // Asked once; a progress thread may have had the answer already.
    const Status again = worker_->cancel(send);
    EXPECT_TRUE(again == Status::InProgress || (again == Status::Busy && worker_->test(send) == Status::Canceled))
        << to_string(again);
    EXPECT_EQ(finish(send), Status::Canceled);
    worker_->release(send);
    // What a receive on that tag gets now is the next message, not the canceled one.
    const char next = 'n';
    ASSERT_EQ(worker_->tag_send(ep_, &next, 1, 21), Status::Ok);
    std::vector<char> received(length, 0);
    TagRecvInfo info;
    ASSERT_EQ(worker_->tag_recv(received.data(), length, 21, kTagMaskAll, &info), Status::Ok);
    EXPECT_EQ(info.length, 1u);
    EXPECT_EQ(received[0], 'n');
  }
}

TEST_F(SendCancelTest, MatchedSynchronousSendCompletesAsUsual) {
  int value = 7, received = 0;
  Request* recv = nullptr;
  ASSERT_EQ(worker_->tag_recv_nb(&received, sizeof(received), 22, kTagMaskAll, recv), Status::InProgress);
  Request* send = nullptr;
  const Status sent = worker_->tag_send_nb(ep_, &value, sizeof(value), 22, send, kSendSync);
  ASSERT_TRUE(sent == Status::Ok || sent == Status::InProgress) << to_string(sent);
  ASSERT_EQ(finish(recv), Status::Ok);
  worker_->release(recv);
  EXPECT_EQ(received, 7);
  if (send != nullptr) {
    const Status cancel = worker_->cancel(send);
    EXPECT_TRUE(cancel == Status::Busy || cancel == Status::InProgress) << to_string(cancel);
    EXPECT_EQ(finish(send), Status::Ok);
    worker_->release(send);
  }
}

TEST_F(SendCancelTest, ReceivePostedAfterTheCancelWinsTheRace) {
  // The cancel is on its way when a receive takes the message: the receive
  // has it, the receiver refuses the cancel, and the send ends as usual.
  // With a progress thread the cancel may arrive first; then the message
  // is gone and the receive takes the next one.
  int value = 9, received = 0;
  Request* send = nullptr;
  ASSERT_EQ(worker_->tag_send_nb(ep_, &value, sizeof(value), 23, send, kSendSync), Status::InProgress);
  worker_->progress();
  ASSERT_EQ(worker_->cancel(send), Status::InProgress);
  Request* recv = nullptr;
  const Status posted = worker_->tag_recv_nb(&received, sizeof(received), 23, kTagMaskAll, recv);
  ASSERT_TRUE(posted == Status::Ok || posted == Status::InProgress) << to_string(posted);
  const Status ended = finish(send);
  worker_->release(send);
  if (threaded() && ended == Status::Canceled) {
    const int next = 10;
    ASSERT_EQ(worker_->tag_send(ep_, &next, sizeof(next), 23), Status::Ok);
    if (recv != nullptr) {
      ASSERT_EQ(finish(recv), Status::Ok);
    }
    EXPECT_EQ(received, 10);
  } else {
    EXPECT_EQ(ended, Status::Ok);
    if (recv != nullptr) {
      ASSERT_EQ(finish(recv), Status::Ok);
    }
    EXPECT_EQ(received, 9);
  }
  if (recv != nullptr) worker_->release(recv);
}

TEST_F(SendCancelTest, UnmatchedRendezvousSendIsDropped) {
  const std::size_t rndv = worker_->rndv_threshold(ep_);
  if (rndv == SIZE_MAX) GTEST_SKIP() << "no rendezvous on this transport";
  std::vector<char> data(rndv * 2, 'r');
  Request* send = nullptr;
  ASSERT_EQ(worker_->tag_send_nb(ep_, data.data(), data.size(), 25, send), Status::InProgress);
  worker_->progress();  // its RTS arrives, unexpected
  EXPECT_EQ(worker_->cancel(send), Status::InProgress);
  EXPECT_EQ(finish(send), Status::Canceled);
  worker_->release(send);
  const char next = 'n';
  ASSERT_EQ(worker_->tag_send(ep_, &next, 1, 25), Status::Ok);
  std::vector<char> received(data.size(), 0);
  TagRecvInfo info;
  ASSERT_EQ(worker_->tag_recv(received.data(), received.size(), 25, kTagMaskAll, &info), Status::Ok);
  EXPECT_EQ(info.length, 1u);
}

TEST_F(SendCancelTest, SendThatNeedsNothingFromItsReceiverIsNotCanceled) {
  // A plain eager send is complete once out; nothing is left to cancel.
  std::vector<char> data(std::min<std::size_t>(30000, worker_->rndv_threshold(ep_) - 1), 'e');
  Request* send = nullptr;
  const Status sent = worker_->tag_send_nb(ep_, data.data(), data.size(), 24, send);
  if (sent == Status::InProgress) {
    EXPECT_EQ(worker_->cancel(send), Status::Busy);
    EXPECT_EQ(finish(send), Status::Ok);
    worker_->release(send);
  } else {
    ASSERT_EQ(sent, Status::Ok);
  }
  std::vector<char> received(data.size());
  ASSERT_EQ(worker_->tag_recv(received.data(), received.size(), 24, kTagMaskAll), Status::Ok);
  EXPECT_EQ(received, data);
}

}  // namespace
}  // namespace tern::engine
