// The ring that keeps a verbs connection's operations in issue order.
#include <gtest/gtest.h>

#include "transport/verbs/verbs_ring_queue.hpp"

namespace tern::engine::transport::verbs {
namespace {

TEST(VerbsRingQueue, KeepsOrderAcrossWrapsAndGrowth) {
  RingQueue<int> queue;
  int next_in = 0;
  int next_out = 0;
  // Wrap around the first 16 slots many times, then grow while wrapped.
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < 10; ++i) queue.push_back(next_in++);
    for (int i = 0; i < 10; ++i) {
      ASSERT_EQ(queue.front(), next_out++);
      queue.pop_front();
    }
  }
  for (int i = 0; i < 5; ++i) queue.push_back(next_in++);
  for (int i = 0; i < 100; ++i) queue.push_back(next_in++);
  ASSERT_EQ(queue.size(), 105u);
  EXPECT_EQ(queue.back(), next_in - 1);
  queue.pop_back();
  --next_in;
  int seen = next_out;
  queue.for_each([&](int& value) { EXPECT_EQ(value, seen++); });
  EXPECT_EQ(seen, next_in);
  EXPECT_EQ(queue[3], next_out + 3);
  while (!queue.empty()) {
    ASSERT_EQ(queue.front(), next_out++);
    queue.pop_front();
  }
}

}  // namespace
}  // namespace tern::engine::transport::verbs
