// The bounded lock-free queue of delayed submission: full and empty are
// reported, items keep their order for one producer, and under contention
// from several producers and consumers every item comes out exactly once.
#include "tern/runtime/mpmc_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace tern::runtime {
namespace {

TEST(MpmcRing, CapacityIsAPowerOfTwoAndFullAndEmptyAreReported) {
  MpmcRing<int> ring(5);
  EXPECT_EQ(ring.capacity(), 8u);
  int out = 0;
  EXPECT_FALSE(ring.try_pop(out));
  EXPECT_FALSE(ring.maybe_nonempty());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(ring.try_push(i));
  EXPECT_FALSE(ring.try_push(8)) << "a full ring refuses";
  EXPECT_EQ(ring.approximate_size(), 8u);
  EXPECT_TRUE(ring.maybe_nonempty());
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(ring.try_pop(out));
    EXPECT_EQ(out, i);
  }
  EXPECT_FALSE(ring.try_pop(out));
}

TEST(MpmcRing, WrapsAroundManyLaps) {
  MpmcRing<uint64_t> ring(4);
  uint64_t next_out = 0;
  for (uint64_t i = 0; i < 10000; ++i) {
    ASSERT_TRUE(ring.try_push(i));
    if (i % 3 == 2) {
      // Drain all but one, so that the ring's positions move past its size.
      while (ring.approximate_size() > 1) {
        uint64_t out = 0;
        ASSERT_TRUE(ring.try_pop(out));
        ASSERT_EQ(out, next_out++);
      }
    }
  }
}

// Each producer's items carry its id and a sequence number: every item comes
// out once, and each consumer sees any one producer's items in order.
TEST(MpmcRing, ProducersAndConsumersLoseAndDuplicateNothing) {
  constexpr int kProducers = 4;
  constexpr int kConsumers = 3;
  constexpr uint64_t kPerProducer = 200000;
  MpmcRing<uint64_t> ring(64);
  std::vector<std::vector<uint8_t>> seen(kProducers, std::vector<uint8_t>(kPerProducer, 0));
  std::atomic<uint64_t> taken{0};
  std::atomic<bool> order_broken{false};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (uint64_t i = 0; i < kPerProducer; ++i) {
        const uint64_t item = (static_cast<uint64_t>(p) << 32) | i;
        while (!ring.try_push(item)) std::this_thread::yield();
      }
    });
  }
  std::vector<std::vector<std::vector<uint64_t>>> per_consumer(kConsumers,
                                                               std::vector<std::vector<uint64_t>>(kProducers));
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      std::vector<int64_t> last(kProducers, -1);
      while (taken.load(std::memory_order_relaxed) < kProducers * kPerProducer) {
        uint64_t item = 0;
        if (!ring.try_pop(item)) {
          std::this_thread::yield();
          continue;
        }
        taken.fetch_add(1, std::memory_order_relaxed);
        const auto producer = static_cast<int>(item >> 32);
        const auto sequence = static_cast<int64_t>(item & 0xffffffffu);
        if (sequence <= last[producer]) order_broken = true;
        last[producer] = sequence;
        per_consumer[c][producer].push_back(static_cast<uint64_t>(sequence));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(order_broken.load()) << "a consumer saw a producer's items out of order";
  for (int c = 0; c < kConsumers; ++c) {
    for (int p = 0; p < kProducers; ++p) {
      for (uint64_t sequence : per_consumer[c][p]) ++seen[p][sequence];
    }
  }
  for (int p = 0; p < kProducers; ++p) {
    for (uint64_t i = 0; i < kPerProducer; ++i) ASSERT_EQ(seen[p][i], 1) << "producer " << p << " item " << i;
  }
}

}  // namespace
}  // namespace tern::runtime
