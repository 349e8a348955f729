// Callbacks routed to a Notifier: they run on the notifier's thread, in the
// order their operations ended, and one that blocks there does not hold up
// progress (these tests run in every progress mode).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "tern/engine/notifier.hpp"
#include "self_worker_test.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

// Runs a notifier's callbacks on a thread of its own until stopped.
class NotifierThread {
 public:
  explicit NotifierThread(Notifier& notifier) : notifier_(notifier), thread_([this] { run(); }) {}
  ~NotifierThread() {
    notifier_.stop();
    thread_.join();
  }
  [[nodiscard]] std::thread::id id() const { return thread_.get_id(); }

 private:
  void run() {
    while (notifier_.wait()) notifier_.run_pending();
    notifier_.run_pending();
  }
  Notifier& notifier_;
  std::thread thread_;
};

struct Log {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  [[nodiscard]] std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex);
    return order.size();
  }
};
struct Entry {
  Log* log;
  int index;
};
void log_entry(void* user_data, Status status, const TagRecvInfo&) {
  auto* entry = static_cast<Entry*>(user_data);
  EXPECT_EQ(status, Status::Ok);
  std::lock_guard<std::mutex> lock(entry->log->mutex);
  entry->log->order.push_back(entry->index);
  entry->log->threads.push_back(std::this_thread::get_id());
}

class NotifierTest : public SelfWorkerTest {
 protected:
  Notifier notifier_;  // outlives the worker (declared before it is reset in TearDown)
  void TearDown() override { worker_.reset(); }
};

// Receives on one wildcard match in posting order; their callbacks run in
// that order, on the notifier's thread when routed there, else in progress.
TEST_F(NotifierTest, CallbacksRunInCompletionOrderRoutedOrNot) {
  for (const bool routed : {false, true}) {
    SCOPED_TRACE(routed ? "routed to the notifier" : "run in progress");
    std::unique_ptr<NotifierThread> thread;
    if (routed) {
      thread = std::make_unique<NotifierThread>(notifier_);
      worker_->set_notifier(&notifier_);
    }
    constexpr int kCount = 500;
    Log log;
    std::vector<Entry> entries(kCount);
    std::vector<int> values(kCount, -1);
    for (int i = 0; i < kCount; ++i) {
      entries[i] = {&log, i};
      ASSERT_EQ(worker_->tag_recv_nb(&values[i], sizeof(int), 0x40, 0xf0, Callback{&log_entry, &entries[i]}),
                Status::InProgress);
    }
    for (int i = 0; i < kCount; ++i) {
      ASSERT_EQ(worker_->tag_send(ep_, &i, sizeof(i), 0x40 + static_cast<uint64_t>(i % 16)), Status::Ok);
    }
    progress_until([&] { return log.size() == kCount; });
    std::lock_guard<std::mutex> lock(log.mutex);
    for (int i = 0; i < kCount; ++i) {
      ASSERT_EQ(log.order[i], i);
      EXPECT_EQ(values[i], i);
      if (routed) {
        EXPECT_EQ(log.threads[i], thread->id());
      }
    }
  }
}

// A callback that blocks until released, on the notifier's thread.
struct Gate {
  std::atomic<bool> entered{false};
  std::atomic<bool> open{false};
};
void block_at_gate(void* user_data, Status, const TagRecvInfo&) {
  auto* gate = static_cast<Gate*>(user_data);
  gate->entered.store(true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!gate->open.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

TEST_F(NotifierTest, ABlockingCallbackDoesNotStallProgress) {
  NotifierThread thread(notifier_);
  Gate gate;
  int first = 0;
  ASSERT_EQ(worker_->tag_recv_nb(&first, sizeof(first), 1, kTagMaskAll, Callback{&block_at_gate, &gate, &notifier_}),
            Status::InProgress);
  const int one = 1;
  ASSERT_EQ(worker_->tag_send(ep_, &one, sizeof(one), 1), Status::Ok);
  progress_until([&] { return gate.entered.load(); });
  // The notifier's thread is stuck in the callback; the worker still
  // completes operations, and runs callbacks not routed to the notifier.
  Log log;
  Entry entry{&log, 7};
  int second = 0;
  ASSERT_EQ(worker_->tag_recv_nb(&second, sizeof(second), 2, kTagMaskAll, Callback{&log_entry, &entry}),
            Status::InProgress);
  const std::vector<char> large(1 << 20, 'z');
  std::vector<char> large_in(large.size());
  Request* large_recv = nullptr;
  ASSERT_EQ(worker_->tag_recv_nb(large_in.data(), large_in.size(), 3, kTagMaskAll, large_recv), Status::InProgress);
  const int two = 2;
  ASSERT_EQ(worker_->tag_send(ep_, &two, sizeof(two), 2), Status::Ok);
  ASSERT_EQ(worker_->tag_send(ep_, large.data(), large.size(), 3), Status::Ok);
  EXPECT_EQ(worker_->wait(large_recv), Status::Ok);
  progress_until([&] { return log.size() == 1; });
  EXPECT_EQ(second, 2);
  EXPECT_EQ(large_in, large);
  EXPECT_FALSE(gate.open.load()) << "all of the above happened while the notifier's callback blocked";
  gate.open.store(true);
}

TEST_F(NotifierTest, PerCallNotifierAndImmediateCompletions) {
  Notifier other;
  Log log;
  Entry routed{&log, 1};
  Entry immediate{&log, 2};
  worker_->set_notifier(&notifier_);
  int value = 0;
  ASSERT_EQ(worker_->tag_recv_nb(&value, sizeof(value), 5, kTagMaskAll, Callback{&log_entry, &routed, &other}),
            Status::InProgress);
  ASSERT_EQ(worker_->tag_send(ep_, &value, sizeof(value), 5), Status::Ok);
  progress_until([&] { return other.pending() == 1; });
  EXPECT_EQ(notifier_.pending(), 0u);
  EXPECT_EQ(log.size(), 0u) << "queued, not run, until the notifier's thread runs it";
  EXPECT_EQ(other.run_pending(), 1u);
  EXPECT_EQ(log.size(), 1u);

  // A message already arrived: the receive ends at once, nothing is queued;
  // with delayed submission the call cannot know, and the callback runs.
  ASSERT_EQ(worker_->tag_send(ep_, &value, sizeof(value), 6), Status::Ok);
  for (int i = 0; i < 10; ++i) worker_->progress();
  const bool delayed = worker_->delays_submissions();
  ASSERT_EQ(worker_->tag_recv_nb(&value, sizeof(value), 6, kTagMaskAll, Callback{&log_entry, &immediate}),
            delayed ? Status::InProgress : Status::Ok);
  if (delayed) {
    progress_until([&] { return notifier_.pending() == 1; });
    EXPECT_EQ(notifier_.run_pending(), 1u);
  }
  for (int i = 0; i < 10; ++i) worker_->progress();
  EXPECT_EQ(notifier_.pending(), 0u);

  // Routing off again: callbacks run in progress.
  worker_->set_notifier(nullptr);
  ASSERT_EQ(worker_->tag_recv_nb(&value, sizeof(value), 9, kTagMaskAll, Callback{&log_entry, &immediate}),
            Status::InProgress);
  ASSERT_EQ(worker_->tag_send(ep_, &value, sizeof(value), 9), Status::Ok);
  progress_until([&] { return log.size() == (delayed ? 3u : 2u); });
  EXPECT_EQ(notifier_.pending(), 0u);
}

TEST_F(NotifierTest, WaitTimesOutAndStopEndsIt) {
  EXPECT_FALSE(notifier_.wait(1));
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    EXPECT_FALSE(notifier_.wait());
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(returned.load());
  notifier_.stop();
  waiter.join();
  EXPECT_TRUE(returned.load());
  EXPECT_TRUE(notifier_.stopped());
  EXPECT_FALSE(notifier_.wait());
}

}  // namespace
}  // namespace tern::engine
