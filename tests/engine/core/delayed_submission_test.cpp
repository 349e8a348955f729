// Delayed submission (worker.hpp, delays_submissions): with a progress
// thread, the program's threads queue their sends and receives and wait
// without the worker's lock. What the caller sees (InProgress, argument
// errors at once, callbacks that always run), that each thread's operations
// keep their order through the queue and its fallback to the lock, and that
// probe, cancel and release see the queued operations.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

std::unique_ptr<Worker> make_worker(runtime::ProgressMode progress, runtime::Switch delayed, bool thread_safe,
                                    unsigned local_peers = 0, std::vector<unsigned> progress_cpus = {}) {
  WorkerParams params;
  params.local_peers = local_peers;
  params.config.progress_cpus = std::move(progress_cpus);
  params.job_id = "ds" + std::to_string(getpid());
  params.config.transports = "self";
  params.progress = progress;
  params.thread_safe = thread_safe;
  params.config.delayed_submission = delayed;
  std::unique_ptr<Worker> worker;
  EXPECT_EQ(Worker::create(params, worker), Status::Ok);
  return worker;
}

class DelayedSubmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    worker_ = make_worker(runtime::ProgressMode::Thread, runtime::Switch::On, true);
    ASSERT_NE(worker_, nullptr);
    ASSERT_TRUE(worker_->delays_submissions());
    ASSERT_EQ(worker_->connect(worker_->address(), ep_), Status::Ok);
  }

  std::unique_ptr<Worker> worker_;
  Endpoint* ep_ = nullptr;
};

TEST(DelayedSubmissionSetting, OnWhereAskedAndWithAPollingThreadInAThreadSafeWorkerByDefault) {
  using runtime::ProgressMode;
  using runtime::Switch;
  EXPECT_TRUE(make_worker(ProgressMode::Thread, Switch::Auto, true)->delays_submissions());
  EXPECT_FALSE(make_worker(ProgressMode::Thread, Switch::Auto, false)->delays_submissions());
  EXPECT_FALSE(make_worker(ProgressMode::ThreadBlocking, Switch::Auto, true)->delays_submissions());
  EXPECT_TRUE(make_worker(ProgressMode::ThreadBlocking, Switch::On, false)->delays_submissions());
  EXPECT_FALSE(make_worker(ProgressMode::Thread, Switch::Off, true)->delays_submissions());
  EXPECT_FALSE(make_worker(ProgressMode::Caller, Switch::On, true)->delays_submissions()) << "no thread to hand to";
  // auto wants a core for the thread: CPUs of its own, or two per local rank.
  EXPECT_FALSE(make_worker(ProgressMode::Thread, Switch::Auto, true, 4096)->delays_submissions());
  EXPECT_TRUE(make_worker(ProgressMode::Thread, Switch::Auto, true, 4096, {0})->delays_submissions());
  EXPECT_TRUE(make_worker(ProgressMode::Thread, Switch::On, true, 4096)->delays_submissions());
}

TEST_F(DelayedSubmissionTest, CallsReturnInProgressAndCompleteWithTheirData) {
  const uint64_t sent = 0x1122334455667788;
  uint64_t received = 0;
  Request* recv = nullptr;
  Request* send = nullptr;
  ASSERT_EQ(worker_->tag_recv_nb(&received, sizeof(received), 42, kTagMaskAll, recv), Status::InProgress);
  ASSERT_EQ(worker_->tag_send_nb(ep_, &sent, sizeof(sent), 42, send), Status::InProgress)
      << "queued calls cannot know they ended at once";
  EXPECT_EQ(worker_->wait(send), Status::Ok);
  while (worker_->test(recv) == Status::InProgress) std::this_thread::yield();
  EXPECT_EQ(recv->info().sender_tag, 42u);
  EXPECT_EQ(recv->info().length, sizeof(sent));
  worker_->release(recv);
  EXPECT_EQ(received, sent);
  // Blocking forms go the same way.
  ASSERT_EQ(worker_->tag_send(ep_, &sent, sizeof(sent), 43), Status::Ok);
  TagRecvInfo info;
  received = 0;
  ASSERT_EQ(worker_->tag_recv(&received, sizeof(received), 43, kTagMaskAll, &info), Status::Ok);
  EXPECT_EQ(received, sent);
  EXPECT_EQ(info.length, sizeof(sent));
}

TEST_F(DelayedSubmissionTest, ArgumentErrorsComeBackAtOnce) {
  int value = 0;
  Request* request = nullptr;
  EXPECT_EQ(worker_->tag_send_nb(nullptr, &value, 4, 1, request), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_send_nb(ep_, nullptr, 4, 1, request), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_recv_nb(nullptr, 4, 1, kTagMaskAll, request), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_recv_nb(&value, kMaxMessageLength + 1, 1, kTagMaskAll, request), Status::MessageTooLong);
  EXPECT_EQ(worker_->tag_send_nb(ep_, &value, 4, 1, Callback{}), Status::InvalidParam) << "a callback without function";
  EXPECT_EQ(request, nullptr);
}

struct Calls {
  std::atomic<int> count{0};
  Status status = Status::InProgress;
  TagRecvInfo info;
};

void count_call(void* user_data, Status status, const TagRecvInfo& info) {
  auto* calls = static_cast<Calls*>(user_data);
  calls->status = status;
  calls->info = info;
  calls->count.fetch_add(1);
}

TEST_F(DelayedSubmissionTest, CallbackFormsRunTheirCallbackEvenForAnImmediateEnd) {
  const char message[] = "already here";
  ASSERT_EQ(worker_->tag_send(ep_, message, sizeof(message), 7), Status::Ok);
  Calls send_calls;
  ASSERT_EQ(worker_->tag_send_nb(ep_, message, sizeof(message), 8, Callback{&count_call, &send_calls}),
            Status::InProgress);
  char buffer[sizeof(message)] = {};
  Calls recv_calls;
  ASSERT_EQ(worker_->tag_recv_nb(buffer, sizeof(buffer), 7, kTagMaskAll, Callback{&count_call, &recv_calls}),
            Status::InProgress);
  while (send_calls.count.load() + recv_calls.count.load() < 2) std::this_thread::yield();
  EXPECT_EQ(send_calls.status, Status::Ok);
  EXPECT_EQ(send_calls.info.length, sizeof(message));
  EXPECT_EQ(recv_calls.status, Status::Ok);
  EXPECT_EQ(recv_calls.info.sender_tag, 7u);
  EXPECT_STREQ(buffer, "already here");
  char other[sizeof(message)];
  ASSERT_EQ(worker_->tag_recv(other, sizeof(other), 8, kTagMaskAll), Status::Ok);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(send_calls.count.load(), 1);
  EXPECT_EQ(recv_calls.count.load(), 1);
}

TEST_F(DelayedSubmissionTest, AProbeSeesAQueuedReceiveFirst) {
  for (int round = 0; round < 200; ++round) {
    const uint64_t tag = 1000 + static_cast<uint64_t>(round);
    uint64_t received = 0;
    const uint64_t sent = round;
    Request* recv = nullptr;
    ASSERT_EQ(worker_->tag_recv_nb(&received, sizeof(received), tag, kTagMaskAll, recv), Status::InProgress);
    ASSERT_EQ(worker_->tag_send(ep_, &sent, sizeof(sent), tag), Status::Ok);
    TagRecvInfo info;
    // The receive was made first: the message is its, never the probe's.
    EXPECT_EQ(worker_->tag_probe(tag, kTagMaskAll, info), Status::NotFound) << "round " << round;
    ASSERT_EQ(worker_->wait(recv), Status::Ok);
    EXPECT_EQ(received, sent);
  }
}

TEST_F(DelayedSubmissionTest, CancelAndEarlyReleaseReachQueuedReceives) {
  for (int round = 0; round < 200; ++round) {
    int value = 0;
    Request* recv = nullptr;
    ASSERT_EQ(worker_->tag_recv_nb(&value, sizeof(value), 77, kTagMaskAll, recv), Status::InProgress);
    ASSERT_EQ(worker_->cancel(recv), Status::Ok);
    EXPECT_EQ(worker_->wait(recv), Status::Canceled);
  }
  // Released before its message came: the message still lands, and the
  // request goes back by itself.
  int target = 0;
  Request* recv = nullptr;
  ASSERT_EQ(worker_->tag_recv_nb(&target, sizeof(target), 78, kTagMaskAll, recv), Status::InProgress);
  worker_->release(recv);
  const int sent = 99;
  ASSERT_EQ(worker_->tag_send(ep_, &sent, sizeof(sent), 78), Status::Ok);
  int unexpected_value = 0;
  TagRecvInfo info;
  ASSERT_EQ(worker_->tag_probe(78, kTagMaskAll, info), Status::NotFound);
  // A cancelled receive matched nothing: a later message on its tag is unexpected.
  ASSERT_EQ(worker_->tag_send(ep_, &sent, sizeof(sent), 77), Status::Ok);
  ASSERT_EQ(worker_->tag_recv(&unexpected_value, sizeof(unexpected_value), 77, kTagMaskAll), Status::Ok);
  EXPECT_EQ(unexpected_value, 99);
}

// Each sender thread streams numbered messages to its own receiver thread in
// windows wider than the queue and the reserve, so calls also go the locked
// way; every message arrives, in order, with its size (eager and larger).
TEST_F(DelayedSubmissionTest, EachThreadsOrderHoldsThroughTheQueueAndItsFallback) {
  constexpr int kPairs = 3;
  constexpr int kMessages = 6000;
  constexpr int kWindow = 400;
  constexpr std::size_t kLarge = 64u << 10;
  auto size_of = [](int i) { return i % 97 == 0 ? kLarge : sizeof(uint64_t); };
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int pair = 0; pair < kPairs; ++pair) {
    const uint64_t tag = 500 + static_cast<uint64_t>(pair);
    threads.emplace_back([&, tag] {
      std::vector<std::vector<uint64_t>> buffers(kWindow, std::vector<uint64_t>(kLarge / sizeof(uint64_t)));
      std::vector<Request*> requests(kWindow);
      for (int first = 0; first < kMessages; first += kWindow) {
        for (int k = 0; k < kWindow; ++k) {
          buffers[k][0] = static_cast<uint64_t>(first + k);
          buffers[k].back() = static_cast<uint64_t>(first + k);
          Status s = worker_->tag_send_nb(ep_, buffers[k].data(), size_of(first + k), tag, requests[k]);
          if (s == Status::Ok) requests[k] = nullptr;
          else if (s != Status::InProgress) failed = true;
        }
        for (Request* request : requests) {
          if (request != nullptr && worker_->wait(request) != Status::Ok) failed = true;
        }
      }
    });
    threads.emplace_back([&, tag] {
      std::vector<std::vector<uint64_t>> buffers(kWindow, std::vector<uint64_t>(kLarge / sizeof(uint64_t)));
      std::vector<Request*> requests(kWindow);
      for (int first = 0; first < kMessages; first += kWindow) {
        for (int k = 0; k < kWindow; ++k) {
          Status s = worker_->tag_recv_nb(buffers[k].data(), kLarge, tag, kTagMaskAll, requests[k]);
          if (s != Status::InProgress && s != Status::Ok) failed = true;
          if (s == Status::Ok) requests[k] = nullptr;
        }
        for (int k = 0; k < kWindow; ++k) {
          const auto expected = static_cast<uint64_t>(first + k);
          if (requests[k] != nullptr) {
            while (worker_->test(requests[k]) == Status::InProgress) std::this_thread::yield();
            if (requests[k]->status() != Status::Ok || requests[k]->info().length != size_of(first + k)) failed = true;
            worker_->release(requests[k]);
          }
          if (buffers[k][0] != expected) failed = true;
          if (size_of(first + k) == kLarge && buffers[k].back() != expected) failed = true;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(failed.load());
}

}  // namespace
}  // namespace tern::engine
