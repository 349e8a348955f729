// The FIFO on its own, in private memory: capacity, batching of the tail,
// the unread count, skipped cells and the 32-bit wrap of the sequence flag.
#include "transport/fifo.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "transport/fifo_inbox.hpp"
#include "transport_test_util.hpp"

namespace tern::engine::transport {
namespace {

struct Received {
  std::vector<uint64_t> headers;
  std::vector<std::size_t> lengths;
};

bool record(void* arg, const void* data, std::size_t length) {
  auto* received = static_cast<Received*>(arg);
  uint64_t header = 0;
  if (length >= sizeof(header)) std::memcpy(&header, data, sizeof(header));
  received->headers.push_back(header);
  received->lengths.push_back(length);
  return true;
}

class FifoTest : public ::testing::Test {
 protected:
  static constexpr FifoGeometry kGeometry{8, 128};

  void SetUp() override {
    cells_ = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, kGeometry.bytes()));
    ASSERT_NE(cells_, nullptr);
    fifo_init(&indices_, cells_, kGeometry);
  }
  void TearDown() override { std::free(cells_); }

  // Both views, started at `start` (as if that many messages had passed).
  void start_at(uint64_t start) {
    indices_.head.store(start, std::memory_order_relaxed);
    indices_.tail.store(start, std::memory_order_relaxed);
    sender_ = FifoSender(&indices_, cells_, kGeometry);
    inbox_.attach(&indices_, cells_, kGeometry);
    inbox_.set_handler(1, &record, &received_);
  }

  alignas(kCacheLine) FifoIndices indices_;
  std::byte* cells_ = nullptr;
  FifoSender sender_;
  FifoInbox inbox_;
  Received received_;
};

TEST_F(FifoTest, HoldsExactlyItsCellsThenRefuses) {
  start_at(0);
  for (uint64_t i = 0; i < kGeometry.cells; ++i) ASSERT_TRUE(sender_.send_short(1, i, nullptr, 0)) << i;
  EXPECT_FALSE(sender_.send_short(1, 99, nullptr, 0));
  EXPECT_FALSE(sender_.has_room());
  EXPECT_EQ(inbox_.poll(100), kGeometry.cells);
  EXPECT_TRUE(sender_.has_room());
  ASSERT_EQ(received_.headers.size(), kGeometry.cells);
  for (uint64_t i = 0; i < kGeometry.cells; ++i) EXPECT_EQ(received_.headers[i], i);
}

// Cells of any whole number of lines (the default is 20 KiB, not a power of
// two): full-length messages in every cell, over two laps, arrive intact,
// so no cell overlaps the next.
TEST(FifoCells, ThreeLineCellsKeepFullMessagesApart) {
  constexpr FifoGeometry geometry{4, 3 * kCacheLine};
  ASSERT_TRUE(geometry.valid());
  EXPECT_FALSE((FifoGeometry{4, 3 * kCacheLine + 8}.valid()));
  auto* cells = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, geometry.bytes()));
  ASSERT_NE(cells, nullptr);
  alignas(kCacheLine) FifoIndices indices;
  fifo_init(&indices, cells, geometry);
  FifoSender sender(&indices, cells, geometry);
  FifoInbox inbox;
  inbox.attach(&indices, cells, geometry);
  std::vector<std::vector<unsigned char>> received;
  inbox.set_handler(
      1,
      [](void* arg, const void* data, std::size_t length) -> bool {
        const auto* bytes = static_cast<const unsigned char*>(data);
        static_cast<std::vector<std::vector<unsigned char>>*>(arg)->emplace_back(bytes, bytes + length);
        return true;
      },
      &received);
  const std::size_t payload = geometry.max_message() - sizeof(uint64_t);
  for (uint64_t lap = 0; lap < 2; ++lap) {
    for (uint64_t i = 0; i < geometry.cells; ++i) {
      const std::vector<unsigned char> pattern(payload, static_cast<unsigned char>(0x10 * lap + i + 1));
      ASSERT_TRUE(sender.send_short(1, lap * geometry.cells + i, pattern.data(), pattern.size()));
    }
    EXPECT_FALSE(sender.has_room());
    EXPECT_EQ(inbox.poll(100), geometry.cells);
  }
  ASSERT_EQ(received.size(), 2u * geometry.cells);
  for (std::size_t m = 0; m < received.size(); ++m) {
    ASSERT_EQ(received[m].size(), sizeof(uint64_t) + payload);
    uint64_t header = 0;
    std::memcpy(&header, received[m].data(), sizeof(header));
    EXPECT_EQ(header, m);
    const auto expected = static_cast<unsigned char>(0x10 * (m / geometry.cells) + m % geometry.cells + 1);
    for (std::size_t b = sizeof(uint64_t); b < received[m].size(); ++b) {
      ASSERT_EQ(received[m][b], expected) << "message " << m << ", byte " << b;
    }
  }
  std::free(cells);
}

TEST_F(FifoTest, PollStopsAtItsLimitAndReleasesWhatItDelivered) {
  start_at(0);
  for (uint64_t i = 0; i < kGeometry.cells; ++i) ASSERT_TRUE(sender_.send_short(1, i, nullptr, 0));
  EXPECT_EQ(inbox_.poll(3), 3u);
  // The three cells were released at the end of poll.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sender_.send_short(1, 100 + i, nullptr, 0));
  EXPECT_FALSE(sender_.send_short(1, 200, nullptr, 0));
  EXPECT_EQ(inbox_.poll(100), kGeometry.cells);
  EXPECT_EQ(received_.headers.back(), 102u);
}

TEST_F(FifoTest, UnreadCountsEverySendersMessagesUntilTheReceiverReleasesThem) {
  start_at(0);
  EXPECT_EQ(sender_.unread(), 0u);
  FifoSender other(&indices_, cells_, kGeometry);  // a second sender's messages count too
  ASSERT_TRUE(other.send_short(1, 1, nullptr, 0));
  EXPECT_EQ(sender_.unread(), 1u);
  ASSERT_TRUE(sender_.send_short(1, 2, nullptr, 0));
  EXPECT_EQ(inbox_.poll(1), 1u);
  EXPECT_EQ(sender_.unread(), 1u) << "one message is still unread";
  EXPECT_EQ(inbox_.poll(100), 1u);
  EXPECT_EQ(sender_.unread(), 0u);
  EXPECT_EQ(other.unread(), 0u);
}

TEST_F(FifoTest, SequenceFlagSurvivesThe32BitWrap) {
  const uint64_t start = (uint64_t{1} << 32) - 5;
  start_at(start);
  uint64_t next = 0;
  for (int round = 0; round < 6; ++round) {
    for (unsigned i = 0; i < kGeometry.cells; ++i) ASSERT_TRUE(sender_.send_short(1, next++, nullptr, 0));
    EXPECT_EQ(inbox_.poll(100), kGeometry.cells);
    EXPECT_EQ(inbox_.poll(100), 0u) << "a stale cell looked ready in round " << round;
  }
  ASSERT_EQ(received_.headers.size(), next);
  for (uint64_t i = 0; i < next; ++i) ASSERT_EQ(received_.headers[i], i);
}

TEST_F(FifoTest, OverflowingPackPublishesASkippedCell) {
  start_at(0);
  auto liar = [](void*, std::size_t capacity, void*) -> std::size_t { return capacity + 1; };
  auto honest = [](void* dest, std::size_t, void*) -> std::size_t {
    const uint64_t header = 7;
    std::memcpy(dest, &header, sizeof(header));
    return 16;
  };
  EXPECT_EQ(sender_.send_bcopy(1, liar, nullptr, kGeometry.max_message()), static_cast<ssize_t>(Status::InvalidParam));
  EXPECT_EQ(sender_.send_bcopy(1, honest, nullptr, kGeometry.max_message()), 16);
  EXPECT_EQ(inbox_.poll(100), 2u);  // both cells consumed...
  ASSERT_EQ(received_.headers.size(), 1u);  // ...only the honest one delivered
  EXPECT_EQ(received_.headers[0], 7u);
  EXPECT_EQ(received_.lengths[0], 16u);
}

TEST_F(FifoTest, UnknownAmIdIsDropped) {
  start_at(0);
  ASSERT_TRUE(sender_.send_short(200, 1, nullptr, 0));
  ASSERT_TRUE(sender_.send_short(1, 2, nullptr, 0));
  EXPECT_EQ(inbox_.poll(100), 2u);
  ASSERT_EQ(received_.headers.size(), 1u);
  EXPECT_EQ(received_.headers[0], 2u);
}

}  // namespace
}  // namespace tern::engine::transport
