// Completion callbacks (callback.hpp) on one worker talking to itself: what
// runs when, with what status and info, in which order, and from which
// thread when a progress thread runs (these tests run in every progress mode).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "self_worker_test.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

// What one callback saw.
struct Seen {
  std::atomic<int> calls{0};
  Status status = Status::InProgress;
  TagRecvInfo info;
  std::thread::id thread;
};

void record(void* user_data, Status status, const TagRecvInfo& info) {
  auto* seen = static_cast<Seen*>(user_data);
  seen->status = status;
  seen->info = info;
  seen->thread = std::this_thread::get_id();
  seen->calls.fetch_add(1, std::memory_order_release);
}

// Callbacks run by the progress thread alone where there is one.
class CallbackTest : public SelfWorkerTest {
 protected:
  CallbackTest() { thread_alone_ = true; }
};

TEST_F(CallbackTest, SendAndReceiveReportStatusAndInfoOnceEachSize) {
  for (std::size_t size : {std::size_t{0}, std::size_t{100}, std::size_t{20000}, std::size_t{4} << 20}) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::vector<char> sent(size, 'x');
    std::vector<char> received(size, 0);
    Seen recv_seen;
    Seen send_seen;
    const uint64_t tag = 0x5000 + size;
    ASSERT_EQ(worker_->tag_recv_nb(received.data(), size, tag, kTagMaskAll, Callback{&record, &recv_seen}),
              Status::InProgress);
    const Status sent_status = worker_->tag_send_nb(ep_, sent.data(), size, tag, Callback{&record, &send_seen});
    ASSERT_TRUE(sent_status == Status::Ok || sent_status == Status::InProgress) << to_string(sent_status);
    // Never from inside the call that started the operation (a progress
    // thread may have run them by now).
    if (!threaded()) {
      EXPECT_EQ(send_seen.calls.load(), 0);
      EXPECT_EQ(recv_seen.calls.load(), 0);
    }
    progress_until([&] {
      return recv_seen.calls.load(std::memory_order_acquire) == 1 &&
             (sent_status == Status::Ok || send_seen.calls.load(std::memory_order_acquire) == 1);
    });
    EXPECT_EQ(recv_seen.status, Status::Ok);
    EXPECT_EQ(recv_seen.info.sender_tag, tag);
    EXPECT_EQ(recv_seen.info.length, size);
    EXPECT_EQ(received, sent);
    if (sent_status == Status::InProgress) {
      EXPECT_EQ(send_seen.status, Status::Ok);
      EXPECT_EQ(send_seen.info.sender_tag, tag);
      EXPECT_EQ(send_seen.info.length, size);
    } else {
      EXPECT_EQ(send_seen.calls.load(), 0) << "an immediate completion runs no callback";
    }
    for (int i = 0; i < 10; ++i) worker_->progress();
    EXPECT_EQ(recv_seen.calls.load(), 1);
    EXPECT_LE(send_seen.calls.load(), 1);
  }
}

TEST_F(CallbackTest, ArrivedMessageCompletesAtOnceWithoutCallback) {
  const char message[] = "early";
  ASSERT_EQ(worker_->tag_send(ep_, message, sizeof(message), 7), Status::Ok);
  for (int i = 0; i < 10; ++i) worker_->progress();
  char buffer[sizeof(message)] = {};
  Seen seen;
  TagRecvInfo info;
  if (worker_->delays_submissions()) {
    // Queued for the progress thread: the call cannot tell, so the callback runs.
    ASSERT_EQ(worker_->tag_recv_nb(buffer, sizeof(buffer), 7, kTagMaskAll, Callback{&record, &seen}, &info),
              Status::InProgress);
    progress_until([&] { return seen.calls.load() == 1; });
    EXPECT_STREQ(buffer, "early");
    EXPECT_EQ(seen.info.length, sizeof(message));
    return;
  }
  ASSERT_EQ(worker_->tag_recv_nb(buffer, sizeof(buffer), 7, kTagMaskAll, Callback{&record, &seen}, &info), Status::Ok);
  EXPECT_STREQ(buffer, "early");
  EXPECT_EQ(info.length, sizeof(message));
  for (int i = 0; i < 10; ++i) worker_->progress();
  EXPECT_EQ(seen.calls.load(), 0);
}

TEST_F(CallbackTest, TruncationAndCancelArriveThroughTheCallback) {
  char small[4];
  Seen truncated;
  ASSERT_EQ(worker_->tag_recv_nb(small, sizeof(small), 8, kTagMaskAll, Callback{&record, &truncated}),
            Status::InProgress);
  const char message[] = "longer than four";
  ASSERT_EQ(worker_->tag_send(ep_, message, sizeof(message), 8), Status::Ok);
  progress_until([&] { return truncated.calls.load(std::memory_order_acquire) == 1; });
  EXPECT_EQ(truncated.status, Status::Truncated);
  EXPECT_EQ(truncated.info.length, sizeof(message));

  // A request handed over by set_callback can still be canceled while it waits.
  Request* request = nullptr;
  ASSERT_EQ(worker_->tag_recv_nb(small, sizeof(small), 9, kTagMaskAll, request), Status::InProgress);
  Seen canceled;
  ASSERT_EQ(worker_->set_callback(request, Callback{&record, &canceled}), Status::Ok);
  ASSERT_EQ(worker_->cancel(request), Status::Ok);
  if (!threaded()) {
    EXPECT_EQ(canceled.calls.load(), 0) << "runs from progress, not inside cancel";
  }
  progress_until([&] { return canceled.calls.load(std::memory_order_acquire) == 1; });
  EXPECT_EQ(canceled.status, Status::Canceled);
}

TEST_F(CallbackTest, SetCallbackOnAFinishedRequestRunsAtTheNextProgress) {
  char buffer[8];
  Request* request = nullptr;
  ASSERT_EQ(worker_->tag_recv_nb(buffer, sizeof(buffer), 10, kTagMaskAll, request), Status::InProgress);
  ASSERT_EQ(worker_->tag_send(ep_, "abc", 4, 10), Status::Ok);
  while (worker_->test(request) == Status::InProgress) {
  }
  Seen seen;
  ASSERT_EQ(worker_->set_callback(request, Callback{&record, &seen}), Status::Ok);
  progress_until([&] { return seen.calls.load(std::memory_order_acquire) == 1; });
  EXPECT_EQ(seen.status, Status::Ok);
  EXPECT_EQ(seen.info.length, 4u);
}

// A callback may post the next receive: a chain of receives each posted by
// the previous one's callback.
struct Chain {
  Worker* worker;
  int value = -1;
  std::atomic<int> received{0};
  int target = 0;
};
void repost(void* user_data, Status status, const TagRecvInfo&) {
  auto* chain = static_cast<Chain*>(user_data);
  EXPECT_EQ(status, Status::Ok);
  EXPECT_EQ(chain->value, chain->received.load());
  if (chain->received.fetch_add(1) + 1 == chain->target) return;
  const Status posted =
      chain->worker->tag_recv_nb(&chain->value, sizeof(int), 11, kTagMaskAll, Callback{&repost, chain});
  EXPECT_EQ(posted, Status::InProgress);
}

TEST_F(CallbackTest, ACallbackMayPostTheNextReceive) {
  Chain chain{worker_.get()};
  chain.target = 50;
  ASSERT_EQ(worker_->tag_recv_nb(&chain.value, sizeof(int), 11, kTagMaskAll, Callback{&repost, &chain}),
            Status::InProgress);
  for (int i = 0; i < chain.target; ++i) {
    ASSERT_EQ(worker_->tag_send(ep_, &i, sizeof(i), 11), Status::Ok);
    progress_until([&] { return chain.received.load() == i + 1; });
  }
}

TEST_F(CallbackTest, WithAProgressThreadCallbacksRunThereWithoutTheCaller) {
  if (!threaded()) GTEST_SKIP() << "needs TERN_PROGRESS=thread or thread-blocking";
  int value = 0;
  Seen seen;
  ASSERT_EQ(worker_->tag_recv_nb(&value, sizeof(value), 12, kTagMaskAll, Callback{&record, &seen}),
            Status::InProgress);
  const int sent = 42;
  // A send that returns at once; from here on this thread never calls the worker.
  Request* send = nullptr;
  const Status status = worker_->tag_send_nb(ep_, &sent, sizeof(sent), 12, send);
  ASSERT_TRUE(status == Status::Ok || status == Status::InProgress);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (seen.calls.load(std::memory_order_acquire) == 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_NE(seen.thread, std::this_thread::get_id());
  EXPECT_EQ(value, 42);
  if (send != nullptr) {
    EXPECT_EQ(worker_->wait(send), Status::Ok);
  }
}

TEST_F(CallbackTest, BadArgumentsAreRefused) {
  char buffer[4];
  EXPECT_EQ(worker_->tag_recv_nb(buffer, sizeof(buffer), 1, kTagMaskAll, Callback{}), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_send_nb(ep_, buffer, sizeof(buffer), 1, Callback{}), Status::InvalidParam);
  Seen seen;
  EXPECT_EQ(worker_->set_callback(nullptr, Callback{&record, &seen}), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_send_nb(nullptr, buffer, sizeof(buffer), 1, Callback{&record, &seen}), Status::InvalidParam);
  for (int i = 0; i < 10; ++i) worker_->progress();
  EXPECT_EQ(seen.calls.load(), 0);
}

}  // namespace
}  // namespace tern::engine
