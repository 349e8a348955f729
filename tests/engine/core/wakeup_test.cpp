// Wakeup on one worker: arm refuses while events are pending, signal() wakes
// a sleeper from another thread, wait_mem returns on a store.
#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

std::unique_ptr<Worker> make_worker() {
  WorkerParams params;
  params.config.transports = "self";
  // The contract as the caller sees it: a progress thread would take the
  // events (and signals) these tests look for before the test could.
  params.progress = runtime::ProgressMode::Caller;
  std::unique_ptr<Worker> worker;
  EXPECT_EQ(Worker::create(params, worker), Status::Ok);
  return worker;
}

void drain(Worker& worker) {
  while (worker.progress() != 0) {
  }
}

TEST(WakeupTest, ArmIsBusyWhileAMessageIsPending) {
  auto worker = make_worker();
  Endpoint* ep = nullptr;
  ASSERT_EQ(worker->connect(worker->address(), ep), Status::Ok);
  drain(*worker);
  EXPECT_EQ(worker->arm(), Status::Ok);
  int value = 3;
  ASSERT_EQ(worker->tag_send(ep, &value, sizeof(value), 1), Status::Ok);
  EXPECT_EQ(worker->arm(), Status::Busy);
  drain(*worker);
  EXPECT_EQ(worker->arm(), Status::Ok);
  int got = 0;
  ASSERT_EQ(worker->tag_recv(&got, sizeof(got), 1, kTagMaskAll), Status::Ok);
  EXPECT_EQ(got, 3);
}

TEST(WakeupTest, SignalWakesWaitEventFromAnotherThread) {
  auto worker = make_worker();
  drain(*worker);
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    EXPECT_EQ(worker->wait_event(), Status::Ok);
    woke = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(woke.load());
  ASSERT_EQ(worker->signal(), Status::Ok);
  sleeper.join();
  EXPECT_TRUE(woke.load());
}

TEST(WakeupTest, SignalBeforeWaitIsNotLost) {
  auto worker = make_worker();
  drain(*worker);
  ASSERT_EQ(worker->signal(), Status::Ok);
  EXPECT_EQ(worker->arm(), Status::Busy);
  ASSERT_EQ(worker->signal(), Status::Ok);
  EXPECT_EQ(worker->wait_event(), Status::Ok);  // returns at once
}

TEST(WakeupTest, EventFdBecomesReadableOnSignal) {
  auto worker = make_worker();
  drain(*worker);
  ASSERT_EQ(worker->arm(), Status::Ok);
  pollfd fd{worker->efd(), POLLIN, 0};
  EXPECT_EQ(poll(&fd, 1, 50), 0);
  ASSERT_EQ(worker->signal(), Status::Ok);
  EXPECT_EQ(poll(&fd, 1, 1000), 1);
}

TEST(WakeupTest, WaitMemReturnsOnStore) {
  auto worker = make_worker();
  drain(*worker);
  alignas(64) static uint64_t word = 0;
  __atomic_store_n(&word, 0, __ATOMIC_RELAXED);
  std::thread writer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    __atomic_store_n(&word, 7, __ATOMIC_RELEASE);
  });
  worker->wait_mem(&word, 0);
  EXPECT_EQ(__atomic_load_n(&word, __ATOMIC_ACQUIRE), 7u);
  writer.join();
}

}  // namespace
}  // namespace tern::engine
