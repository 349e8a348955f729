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
  for (int i = 0; i < n; ++i) eager += meter.prefer_eager(k128K, false) ? 1 : 0;
  return eager;
}

// The same, for a size whose busy protocol is eager or not.
int eager_choices_by_default(ProtocolMeter& meter, int n, bool eager_by_default) {
  int eager = 0;
  for (int i = 0; i < n; ++i) eager += meter.prefer_eager(k128K, eager_by_default) ? 1 : 0;
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
  EXPECT_EQ(meter.eager_ns_per_kib(k128K), 0u);
  meter.record_eager(k128K, at(20));
  EXPECT_NEAR(static_cast<double>(meter.eager_ns_per_kib(k128K)), 20.0, 1.0);
  meter.record_rendezvous(k128K, at(400));
  EXPECT_EQ(meter.rendezvous_ns_per_kib(k128K), 0u);
  meter.record_rendezvous(k128K, at(45));
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib(k128K)), 45.0, 1.0);
}

TEST(ProtocolMeterTest, TriesEagerFirstThenRendezvousUntilBothAreMeasured) {
  ProtocolMeter meter = warmed();
  EXPECT_TRUE(meter.prefer_eager(k128K, false));
  meter.record_eager(k128K, at(20));
  EXPECT_FALSE(meter.prefer_eager(k128K, false));
  EXPECT_FALSE(meter.prefer_eager(k128K, false));
  meter.record_rendezvous(k128K, at(45));
  EXPECT_TRUE(meter.prefer_eager(k128K, false));
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
  ASSERT_TRUE(meter.prefer_eager(k128K, false));
  // The processes moved apart: eager now costs 65 ns/KiB.
  for (unsigned i = 0; i + 1 < ProtocolMeter::kWindow; ++i) meter.record_eager(k128K, at(65));
  EXPECT_TRUE(meter.prefer_eager(k128K, false)) << "the 20 is still in the window";
  meter.record_eager(k128K, at(65));
  EXPECT_EQ(eager_choices(meter, 32), 0);
}

TEST(ProtocolMeterTest, AColdSampleDoesNotHideTheWarmOnes) {
  ProtocolMeter meter = warmed();
  meter.record_rendezvous(k128K, at(40));
  meter.record_rendezvous(k128K, at(40) * 8);  // tried after a long pause: cold
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib(k128K)), 40.0, 1.0);
  for (unsigned i = 0; i < ProtocolMeter::kWindow; ++i) meter.record_rendezvous(k128K, at(50));
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib(k128K)), 50.0, 1.0) << "the 40 has left the window";
}

TEST(ProtocolMeterTest, EachSizeClassHasItsOwnFigures) {
  constexpr std::size_t k48K = 48 * 1024;
  constexpr std::size_t k96K = 96 * 1024;
  ProtocolMeter meter;
  EXPECT_EQ(ProtocolMeter::class_of(k48K), 0u);
  EXPECT_EQ(ProtocolMeter::class_of(k96K), 1u);
  EXPECT_EQ(ProtocolMeter::class_of(k128K), 2u);
  EXPECT_EQ(ProtocolMeter::class_of(std::size_t{1} << 30), ProtocolMeter::kClasses - 1);
  // 128 KiB messages: rendezvous clearly cheaper per KiB (its fixed cost
  // spread over more bytes).
  for (int i = 0; i < 3; ++i) {
    meter.record_eager(k128K, at(60));
    meter.record_rendezvous(k128K, at(30));
  }
  // 48 KiB messages: eager clearly cheaper.
  for (int i = 0; i < 3; ++i) {
    meter.record_eager(k48K, 20 * 48);
    meter.record_rendezvous(k48K, 80 * 48);
  }
  EXPECT_NEAR(static_cast<double>(meter.eager_ns_per_kib(k48K)), 20.0, 1.0);
  EXPECT_NEAR(static_cast<double>(meter.rendezvous_ns_per_kib(k128K)), 30.0, 1.0);
  EXPECT_EQ(meter.eager_ns_per_kib(k96K), 0u) << "nothing measured at 64-128 KiB";
  int eager_48k = 0;
  int eager_128k = 0;
  for (int i = 0; i < 256; ++i) {
    eager_48k += meter.prefer_eager(k48K, true) ? 1 : 0;
    eager_128k += meter.prefer_eager(k128K, false) ? 1 : 0;
  }
  EXPECT_EQ(eager_48k, 254) << "eager, but for two exploring choices in 256";
  EXPECT_EQ(eager_128k, 2);
}

TEST(ProtocolMeterTest, WithoutARendezvousFigureASizeThatStreamsEagerTriesItOnlyNowAndThen) {
  ProtocolMeter meter = warmed();
  meter.record_eager(k128K, at(20));
  // A window of sends never yields a rendezvous figure (see the header):
  // such a size keeps to eager but for two tries in each period.
  EXPECT_EQ(eager_choices_by_default(meter, 64, true), 64 - 4);
  EXPECT_EQ(eager_choices_by_default(meter, 64, false), 0) << "above the rendezvous threshold: rendezvous";
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
