// The small-message ring on its own, in private memory: packing, capacity,
// draining, laps over stale data, bounds against a confused sender, and the
// inbox that polls rings beside the FIFO.
#include "transport/ring.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "transport/fifo_inbox.hpp"

namespace tern::engine::transport {
namespace {

constexpr std::size_t kBytes = 1024;

class RingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    memory_ = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, sizeof(RingControl) + kBytes));
    ASSERT_NE(memory_, nullptr);
    ring_init(control(), data(), kBytes);
    sender_ = RingSender(control(), data(), kBytes);
    receiver_ = RingReceiver(control(), data(), kBytes);
  }
  void TearDown() override { std::free(memory_); }

  RingControl* control() { return reinterpret_cast<RingControl*>(memory_); }
  std::byte* data() { return memory_ + sizeof(RingControl); }

  bool send(uint64_t header, std::size_t length) {
    std::vector<unsigned char> payload(length);
    for (std::size_t i = 0; i < length; ++i) payload[i] = static_cast<unsigned char>(header + i);
    return sender_.send_short<std::memory_order_release>(7, header, payload.data(), length);
  }
  // Reads one message and checks it is `header` with `length` bytes after it.
  void expect_next(uint64_t header, std::size_t length) {
    const RingRecordHeader* record = receiver_.peek();
    ASSERT_NE(record, nullptr) << "message " << header;
    EXPECT_EQ(record->am_id, 7);
    ASSERT_EQ(receiver_.length(record), sizeof(uint64_t) + length) << "message " << header;
    uint64_t got = 0;
    std::memcpy(&got, RingReceiver::data(record), sizeof(got));
    EXPECT_EQ(got, header);
    const auto* bytes = reinterpret_cast<const unsigned char*>(RingReceiver::data(record)) + sizeof(uint64_t);
    for (std::size_t i = 0; i < length; ++i) ASSERT_EQ(bytes[i], static_cast<unsigned char>(header + i));
    receiver_.pop();
  }

  std::byte* memory_ = nullptr;
  RingSender sender_;
  RingReceiver receiver_;
};

TEST_F(RingTest, EmptyRingHasNothingToRead) {
  EXPECT_EQ(receiver_.peek(), nullptr);
  EXPECT_TRUE(sender_.drained());
}

TEST_F(RingTest, OnlySmallMessagesFit) {
  EXPECT_TRUE(RingSender::fits(0));
  EXPECT_TRUE(RingSender::fits(16));
  EXPECT_FALSE(RingSender::fits(17));
  EXPECT_FALSE(RingSender::fits(~std::size_t{0}));  // a length that would wrap the sum
}

TEST_F(RingTest, TwoMessagesShareACacheLine) {
  ASSERT_TRUE(send(1, 8));
  ASSERT_TRUE(send(2, 16));
  const RingRecordHeader* first = receiver_.peek();
  ASSERT_NE(first, nullptr);
  receiver_.pop();
  const RingRecordHeader* second = receiver_.peek();
  ASSERT_NE(second, nullptr);
  const auto line = [](const void* p) { return reinterpret_cast<uintptr_t>(p) / kCacheLine; };
  EXPECT_EQ(line(first), line(second));
}

TEST_F(RingTest, FullRingRefusesUntilTheReceiverPublishes) {
  uint64_t sent = 0;
  while (send(sent, 8)) ++sent;
  // Every slot but those kept zeroed ahead of the head.
  EXPECT_EQ(sent, kBytes / kRingSlot - RingSender::kZeroAhead);
  EXPECT_FALSE(sender_.drained());
  EXPECT_FALSE(sender_.has_room());
  for (uint64_t i = 0; i < sent; ++i) expect_next(i, 8);
  EXPECT_EQ(receiver_.peek(), nullptr);
  EXPECT_FALSE(send(sent, 8)) << "room only once the receiver publishes its position";
  receiver_.publish_tail();
  EXPECT_TRUE(sender_.drained());
  EXPECT_TRUE(sender_.has_room());
  EXPECT_TRUE(send(sent, 8));
  expect_next(sent, 8);
}

TEST_F(RingTest, ManyLapsOfMixedSizesArriveInOrder) {
  // Lap after lap over stale records and payload bytes that look like
  // published headers: the receiver must still stop exactly where the
  // sender has not written.
  std::mt19937 random(12345);
  uint64_t sent = 0, read = 0;
  for (int step = 0; step < 200000; ++step) {
    if (random() % 3 != 0) {
      const std::size_t length = sent % 17;
      if (send(sent, length)) ++sent;
    } else {
      for (unsigned n = random() % 6; n > 0 && receiver_.peek() != nullptr; --n) {
        expect_next(read, read % 17);
        if (HasFatalFailure()) return;
        ++read;
      }
      if (random() % 2 == 0) receiver_.publish_tail();
    }
  }
  while (receiver_.peek() != nullptr) {
    expect_next(read, read % 17);
    if (HasFatalFailure()) return;
    ++read;
  }
  EXPECT_EQ(read, sent);
  EXPECT_GT(sent, 100000u);
}

TEST_F(RingTest, AConfusedLengthStaysInsideTheRing) {
  ASSERT_TRUE(send(1, 8));
  auto* record = reinterpret_cast<RingRecordHeader*>(data());
  record->length = 60000;  // as a sender in another process might write
  const RingRecordHeader* seen = receiver_.peek();
  ASSERT_EQ(seen, record);
  EXPECT_LE(receiver_.length(seen) + kRingHeaderSize, kBytes);
}

struct Log {
  std::vector<uint64_t> headers;
};

bool log_message(void* arg, const void* data, std::size_t) {
  uint64_t header = 0;
  std::memcpy(&header, data, sizeof(header));
  static_cast<Log*>(arg)->headers.push_back(header);
  return true;
}

TEST(RingInbox, PollsTheRingsSendersClaimed) {
  constexpr uint32_t kSlots = 2;
  constexpr std::size_t kStride = sizeof(RingControl) + kBytes;
  auto* rings = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, kSlots * kStride));
  ASSERT_NE(rings, nullptr);
  constexpr FifoGeometry kGeometry{8, 128};
  auto* cells = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, kGeometry.bytes()));
  ASSERT_NE(cells, nullptr);
  FifoIndices indices;
  fifo_init(&indices, cells, kGeometry);
  for (uint32_t i = 0; i < kSlots; ++i) {
    ring_init(reinterpret_cast<RingControl*>(rings + i * kStride), rings + i * kStride + sizeof(RingControl), kBytes);
  }
  std::atomic<uint32_t> claimed{0};
  FifoInbox inbox;
  inbox.attach(&indices, cells, kGeometry);
  inbox.attach_rings(&claimed, kSlots, rings, kStride, kBytes);
  Log log;
  inbox.set_handler(3, &log_message, &log);

  RingSender second(reinterpret_cast<RingControl*>(rings + kStride), rings + kStride + sizeof(RingControl), kBytes);
  ASSERT_TRUE(second.send_short<std::memory_order_release>(3, 42, nullptr, 0));
  EXPECT_EQ(inbox.poll(8), 0u) << "a ring nobody has claimed yet is not polled";
  claimed.store(3);  // one sender more than there are slots: it has none
  EXPECT_TRUE(inbox.ready());
  EXPECT_EQ(inbox.poll(8), 1u);
  ASSERT_EQ(log.headers.size(), 1u);
  EXPECT_EQ(log.headers[0], 42u);
  EXPECT_TRUE(second.drained()) << "the outermost poll publishes the ring's position";
  EXPECT_FALSE(inbox.ready_seq_cst());
  std::free(cells);
  std::free(rings);
}

}  // namespace
}  // namespace tern::engine::transport
