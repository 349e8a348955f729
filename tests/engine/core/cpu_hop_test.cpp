// CpuHop: a waiter whose waits keep ending only after it yielded the CPU
// moves itself to another CPU it may run on; one bound to a single CPU, or
// whose waits end while it spins, stays where it is.
#include <gtest/gtest.h>
#include <sched.h>

#include "core/cpu_hop.hpp"

namespace tern::engine {
namespace {

// Runs the test body with this thread allowed on CPUs `first` and `second`
// and started on `first`; puts the original mask back afterwards.
class CpuHopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sched_getaffinity(0, sizeof(original_), &original_), 0);
    first_ = second_ = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &original_)) continue;
      if (first_ < 0) {
        first_ = cpu;
      } else if (second_ < 0) {
        second_ = cpu;
      }
    }
    if (second_ < 0) GTEST_SKIP() << "this process may run on one CPU only";
  }
  void TearDown() override { sched_setaffinity(0, sizeof(original_), &original_); }

  void allow(bool both) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(first_, &set);
    ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);  // moves us to `first`
    ASSERT_EQ(sched_getcpu(), first_);
    if (both) {
      CPU_SET(second_, &set);
      ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
    }
  }

  cpu_set_t original_{};
  int first_ = -1;
  int second_ = -1;
};

TEST_F(CpuHopTest, WaitsThatEndOnlyAfterYieldingMoveTheWaiter) {
  allow(true);
  CpuHop hop;
  hop.init(42);
  // Each streak of 64 moves with probability 1/2: 40 streaks all failing is
  // a 2^-40 chance.
  for (int wait = 0; wait < 64 * 40 && hop.moves() == 0; ++wait) hop.on_wait_done(true);
  EXPECT_EQ(hop.moves(), 1u);
  // The only other CPU it may use. (Where it runs now is the kernel's
  // choice again, and other tests may be running beside this one.)
  EXPECT_EQ(hop.last_move_to(), second_);
  cpu_set_t now;
  ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
  EXPECT_EQ(CPU_COUNT(&now), 2) << "the full mask is given back after the move";
}

TEST_F(CpuHopTest, WaitsThatEndWhileSpinningKeepTheWaiterInPlace) {
  allow(true);
  CpuHop hop;
  hop.init(42);
  for (int round = 0; round < 200; ++round) {
    for (int wait = 0; wait < 63; ++wait) hop.on_wait_done(true);
    hop.on_wait_done(false);  // one wait in each streak ended without a yield
  }
  EXPECT_EQ(hop.moves(), 0u);
}

TEST_F(CpuHopTest, AWaiterBoundToOneCpuNeverMoves) {
  allow(false);
  CpuHop hop;
  hop.init(42);
  for (int wait = 0; wait < 64 * 40; ++wait) hop.on_wait_done(true);
  EXPECT_EQ(hop.moves(), 0u);
  EXPECT_EQ(sched_getcpu(), first_);
  cpu_set_t now;
  ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
  EXPECT_EQ(CPU_COUNT(&now), 1) << "a bound waiter's mask is left alone";
}

}  // namespace
}  // namespace tern::engine
