// The choice between eager and rendezvous for mid-size messages: what it
// picks before it has figures, how the margin and the exploration work, and
// that one stretched sample cannot swing it.
#include "core/protocol_meter.hpp"

#include <gtest/gtest.h>

namespace tern::engine {
namespace {

constexpr std::size_t k128K = 128 * 1024;

// The choices of `n` consecutive calls.
int eager_choices(ProtocolMeter& meter, int n) {
  int eager = 0;
  for (int i = 0; i < n; ++i) eager += meter.prefer_eager() ? 1 : 0;
  return eager;
}

// ns for a 128 KiB message at `ns_per_kib`.
uint64_t at(uint64_t ns_per_kib) { return ns_per_kib * 128; }

TEST(ProtocolMeterTest, TriesEagerFirstThenRendezvousUntilBothAreMeasured) {
  ProtocolMeter meter;
  EXPECT_TRUE(meter.prefer_eager());
  meter.record_eager(k128K, at(20));
  EXPECT_FALSE(meter.prefer_eager());
  EXPECT_FALSE(meter.prefer_eager());
  meter.record_rendezvous(k128K, at(45));
  EXPECT_TRUE(meter.prefer_eager());
}

TEST(ProtocolMeterTest, EagerMustWinByTheMargin) {
  ProtocolMeter meter;
  meter.record_eager(k128K, at(60));
  meter.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(meter, 64), 2) << "rendezvous, but for one exploring choice in 32";

  ProtocolMeter close;  // eager 10% cheaper: inside the margin, still rendezvous
  close.record_eager(k128K, at(45));
  close.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(close, 64), 2);

  ProtocolMeter clear;  // eager at half the cost
  clear.record_eager(k128K, at(25));
  clear.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(clear, 64), 62) << "eager, but for one exploring choice in 32";
}

TEST(ProtocolMeterTest, FollowsAChangeOfCostWithinAFewSamples) {
  ProtocolMeter meter;
  meter.record_eager(k128K, at(20));
  meter.record_rendezvous(k128K, at(45));
  ASSERT_TRUE(meter.prefer_eager());
  // The processes moved apart: eager now costs 65 ns/KiB.
  for (int i = 0; i < 3; ++i) meter.record_eager(k128K, at(65));
  EXPECT_EQ(eager_choices(meter, 32), 1) << "rendezvous, but for one exploring choice";
}

TEST(ProtocolMeterTest, OneStretchedSampleCountsAsFourTimesTheAverageAtMost) {
  ProtocolMeter meter;
  meter.record_rendezvous(k128K, at(40));
  meter.record_rendezvous(k128K, at(40) * 1000);  // preempted for a while
  EXPECT_LE(meter.rendezvous_ns_per_kib(), 71u);  // (3 * 40 + 160) / 4, plus rounding
  EXPECT_GE(meter.rendezvous_ns_per_kib(), 70u);
}

TEST(ProtocolMeterTest, SamplesOnlyLargeEagerMessagesAndOnlySomeOfThem) {
  ProtocolMeter meter;
  int sampled = 0;
  for (int i = 0; i < 64; ++i) sampled += meter.sample_eager(16 * 1024) ? 1 : 0;
  EXPECT_EQ(sampled, 0);
  for (int i = 0; i < 64; ++i) sampled += meter.sample_eager(64 * 1024) ? 1 : 0;
  EXPECT_EQ(sampled, 64 / static_cast<int>(ProtocolMeter::kEagerSampleEvery));
}

}  // namespace
}  // namespace tern::engine
