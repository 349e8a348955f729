// The worker's recursive lock: the holder may take it again, another thread
// may not until the holder has let go as many times, and under contention
// from more threads than cores (which then sleep on the futex) every
// increment made under it survives.
#include "tern/runtime/recursive_lock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tern::runtime {
namespace {

TEST(RecursiveLock, TheHolderTakesItAgainAndOthersWaitForTheLastUnlock) {
  RecursiveLock lock;
  ASSERT_TRUE(lock.try_lock());
  ASSERT_TRUE(lock.try_lock()) << "the holder takes it again";
  lock.lock();
  bool other = true;
  std::thread([&] { other = lock.try_lock(); }).join();
  EXPECT_FALSE(other) << "another thread while it is held three times";
  lock.unlock();
  lock.unlock();
  std::thread([&] { other = lock.try_lock(); }).join();
  EXPECT_FALSE(other) << "another thread while it is still held once";
  lock.unlock();
  std::thread([&] {
    other = lock.try_lock();
    if (other) lock.unlock();
  }).join();
  EXPECT_TRUE(other) << "free once every hold is let go";
}

TEST(RecursiveLock, ASleeperIsWokenWhenTheHolderLetsGo) {
  RecursiveLock lock;
  lock.lock();
  std::atomic<bool> taken{false};
  std::thread waiter([&] {
    lock.lock();  // sleeps on the futex: the holder keeps it a while
    taken = true;
    lock.unlock();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(taken.load());
  lock.unlock();
  waiter.join();
  EXPECT_TRUE(taken.load());
}

TEST(RecursiveLock, ManyThreadsKeepEveryIncrement) {
  RecursiveLock lock;
  constexpr int kThreads = 8;
  constexpr int kRounds = 20000;
  long counter = 0;  // plain: only the lock protects it
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        if ((i + t) % 3 == 0) {
          lock.lock();
          lock.lock();  // nested, as a callback under the worker's lock does
          ++counter;
          lock.unlock();
          lock.unlock();
        } else if (lock.try_lock()) {
          ++counter;
          lock.unlock();
        } else {
          lock.lock();
          ++counter;
          lock.unlock();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter, static_cast<long>(kThreads) * kRounds);
}

}  // namespace
}  // namespace tern::runtime
