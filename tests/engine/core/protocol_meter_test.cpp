// The choice between eager and rendezvous for mid-size messages: what it
// picks before it has figures, how the margin and the exploration work, and
// that cold samples cannot swing it.
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

// A meter past the first (dropped) sample of each protocol, still without figures.
ProtocolMeter warmed() {
  ProtocolMeter meter;
  meter.record_eager(k128K, at(900));
  meter.record_rendezvous(k128K, at(900));
  return meter;
}

TEST(ProtocolMeterTest, TheFirstSampleOfEachProtocolIsDropped) {
  ProtocolMeter meter;
  meter.record_eager(k128K, at(700));  // cold: first touches of the FIFO's pages
  EXPECT_EQ(meter.eager_ns_per_kib(), 0u);
  meter.record_eager(k128K, at(20));
  EXPECT_NEAR(static_cast<double>(meter.eager_ns_per_kib()), 20.0, 1.0);
  meter.record_rendezvous(k128K, at(400));
  EXPECT_EQ(meter.rendezvous_ns_per_kib(), 0u);
  meter.record_rendezvous(k128K, at(45));
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib()), 45.0, 1.0);
}

TEST(ProtocolMeterTest, TriesEagerFirstThenRendezvousUntilBothAreMeasured) {
  ProtocolMeter meter = warmed();
  EXPECT_TRUE(meter.prefer_eager());
  meter.record_eager(k128K, at(20));
  EXPECT_FALSE(meter.prefer_eager());
  EXPECT_FALSE(meter.prefer_eager());
  meter.record_rendezvous(k128K, at(45));
  EXPECT_TRUE(meter.prefer_eager());
}

TEST(ProtocolMeterTest, EagerMustWinByTheMargin) {
  ProtocolMeter meter = warmed();
  meter.record_eager(k128K, at(55));
  meter.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(meter, 64), 4) << "rendezvous, but for two exploring choices in 32";

  ProtocolMeter close = warmed();  // eager 10% cheaper: inside the margin, still rendezvous
  close.record_eager(k128K, at(45));
  close.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(close, 64), 4);

  ProtocolMeter clear = warmed();  // eager 30% cheaper
  clear.record_eager(k128K, at(35));
  clear.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(clear, 64), 60) << "eager, but for two exploring choices in 32";
}

TEST(ProtocolMeterTest, ALoserFarBehindIsTriedRarely) {
  ProtocolMeter eager_far_ahead = warmed();  // eager at half the cost
  eager_far_ahead.record_eager(k128K, at(25));
  eager_far_ahead.record_rendezvous(k128K, at(50));
  EXPECT_EQ(eager_choices(eager_far_ahead, 512), 508) << "two exploring choices in 256";

  ProtocolMeter rendezvous_far_ahead = warmed();  // eager 60% dearer (after the margin: 2x)
  rendezvous_far_ahead.record_eager(k128K, at(64));
  rendezvous_far_ahead.record_rendezvous(k128K, at(40));
  EXPECT_EQ(eager_choices(rendezvous_far_ahead, 512), 4);
}

TEST(ProtocolMeterTest, FollowsAChangeOfCostOnceTheWindowHasTurnedOver) {
  ProtocolMeter meter = warmed();
  meter.record_eager(k128K, at(20));
  meter.record_rendezvous(k128K, at(45));
  ASSERT_TRUE(meter.prefer_eager());
  // The processes moved apart: eager now costs 65 ns/KiB.
  for (unsigned i = 0; i + 1 < ProtocolMeter::kWindow; ++i) meter.record_eager(k128K, at(65));
  EXPECT_TRUE(meter.prefer_eager()) << "the 20 is still in the window";
  meter.record_eager(k128K, at(65));
  EXPECT_EQ(eager_choices(meter, 32), 0);
}

TEST(ProtocolMeterTest, AColdSampleDoesNotHideTheWarmOnes) {
  ProtocolMeter meter = warmed();
  meter.record_rendezvous(k128K, at(40));
  meter.record_rendezvous(k128K, at(40) * 8);  // tried after a long pause: cold
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib()), 40.0, 1.0);
  for (unsigned i = 0; i < ProtocolMeter::kWindow; ++i) meter.record_rendezvous(k128K, at(50));
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib()), 50.0, 1.0) << "the 40 has left the window";
}

TEST(ProtocolMeterTest, SamplesOnlyLargeEagerMessagesAndOnlySomeOfThem) {
  ProtocolMeter meter;
  int sampled = 0;
  for (int i = 0; i < 64; ++i) sampled += meter.sample_eager(16 * 1024) ? 1 : 0;
  EXPECT_EQ(sampled, 0);
  for (int i = 0; i < 64; ++i) sampled += meter.sample_eager(48 * 1024) ? 1 : 0;
  EXPECT_EQ(sampled, 64 / static_cast<int>(ProtocolMeter::kEagerSampleEvery));
  sampled = 0;
  for (int i = 0; i < 64; ++i) sampled += meter.sample_eager(ProtocolMeter::kAlwaysSampled) ? 1 : 0;
  EXPECT_EQ(sampled, 64);
}

}  // namespace
}  // namespace tern::engine
