// Engine RMA over tcp: two workers in one process, joined only by tcp on
// the loopback interface. The target worker is progressed by a thread of its
// own (it calls nothing per operation), the requester uses the blocking and
// non-blocking calls of rma.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "rma/rma_key.hpp"
#include "tern/engine/rma.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine::rma {
namespace {

constexpr std::size_t kTargetBytes = std::size_t{8} << 20;

std::unique_ptr<Worker> make_worker(const char* transports) {
  WorkerParams params;
  params.config.transports = transports;
  params.config.tcp_interfaces = "lo";
  std::unique_ptr<Worker> worker;
  EXPECT_EQ(Worker::create(params, worker), Status::Ok);
  return worker;
}

uint8_t pattern(std::size_t i, unsigned seed) { return static_cast<uint8_t>(i * 13 + seed * 101 + (i >> 9)); }

class RmaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    origin_ = make_worker("tcp");
    target_ = make_worker("tcp");
    ASSERT_TRUE(origin_ && target_);
    memory_.assign(kTargetBytes + 64, std::byte{0});
    ASSERT_EQ(Registration::create(*target_, memory_.data(), kTargetBytes, registration_), Status::Ok);
    ASSERT_EQ(RemoteRegion::unpack(registration_->packed_key(), region_), Status::Ok);
    ASSERT_EQ(origin_->connect(target_->address(), ep_), Status::Ok);
    ASSERT_STREQ(origin_->transport_of(ep_), "tcp");
    ASSERT_TRUE(supported(*origin_, ep_));
    base_ = reinterpret_cast<uint64_t>(memory_.data());
    serving_ = std::thread([this] {
      while (!stop_.load(std::memory_order_acquire)) target_->progress();
    });
  }

  void TearDown() override {
    stop_.store(true, std::memory_order_release);
    if (serving_.joinable()) serving_.join();
    RemoteRegion::destroy(region_);
    Registration::destroy(registration_);
  }

  std::unique_ptr<Worker> origin_, target_;
  std::vector<std::byte> memory_;
  Registration* registration_ = nullptr;
  RemoteRegion* region_ = nullptr;
  Endpoint* ep_ = nullptr;
  uint64_t base_ = 0;
  std::thread serving_;
  std::atomic<bool> stop_{false};
};

TEST_F(RmaTest, PutGetManySizes) {
  unsigned seed = 1;
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{4095},
                           std::size_t{65536}, std::size_t{1} << 20, kTargetBytes}) {
    std::vector<uint8_t> out(size), back(size, 0);
    for (std::size_t i = 0; i < size; ++i) out[i] = pattern(i, seed);
    const uint64_t at = base_ + (size == kTargetBytes ? 0 : 3);
    ASSERT_EQ(put(*origin_, ep_, out.data(), size, *region_, at), Status::Ok) << size;
    ASSERT_EQ(flush(*origin_, ep_), Status::Ok);
    // Not memcmp: an empty vector's data() may be null.
    ASSERT_TRUE(std::equal(out.begin(), out.end(), memory_.begin() + static_cast<std::ptrdiff_t>(at - base_),
                           [](uint8_t a, std::byte b) { return a == static_cast<uint8_t>(b); }))
        << size;
    ASSERT_EQ(get(*origin_, ep_, back.data(), size, *region_, at), Status::Ok) << size;
    ASSERT_EQ(back, out) << size;
    ++seed;
  }
}

TEST_F(RmaTest, NonBlockingPutsThenFlush) {
  // Many puts in flight, then one flush: after it every put has landed, in order.
  constexpr int kPuts = 200;
  std::vector<uint64_t> values(kPuts);
  std::vector<Request*> requests;
  for (int i = 0; i < kPuts; ++i) {
    values[i] = 1000 + static_cast<uint64_t>(i);
    Request* request = nullptr;
    const Status status = put_nb(*origin_, ep_, &values[i], sizeof(uint64_t), *region_, base_ + 8, request);
    ASSERT_TRUE(status == Status::Ok || status == Status::InProgress);
    if (request != nullptr) requests.push_back(request);
  }
  for (Request* request : requests) ASSERT_EQ(origin_->wait(request), Status::Ok);
  ASSERT_EQ(flush(*origin_, ep_), Status::Ok);
  uint64_t landed = 0;
  std::memcpy(&landed, memory_.data() + 8, sizeof(landed));
  EXPECT_EQ(landed, 1000u + kPuts - 1);  // the last one issued wins
}

// RMA requests share the request path: a get handed to set_callback ends
// through its callback, run from the origin's progress.
TEST_F(RmaTest, GetCompletesThroughACallback) {
  constexpr std::size_t kSize = std::size_t{1} << 20;
  for (std::size_t i = 0; i < kSize; ++i) memory_[i] = static_cast<std::byte>(pattern(i, 9));
  std::vector<uint8_t> back(kSize, 0);
  Request* request = nullptr;
  const Status status = get_nb(*origin_, ep_, back.data(), kSize, *region_, base_, request);
  ASSERT_EQ(status, Status::InProgress) << "a 1 MiB get over tcp needs the target's answer";
  struct Seen {
    std::atomic<bool> ran{false};
    Status status = Status::InProgress;
  } seen;
  const auto record = [](void* user_data, Status result, const TagRecvInfo&) {
    auto* s = static_cast<Seen*>(user_data);
    s->status = result;
    s->ran.store(true, std::memory_order_release);
  };
  ASSERT_EQ(origin_->set_callback(request, Callback{record, &seen}), Status::Ok);
  while (!seen.ran.load(std::memory_order_acquire)) origin_->progress();
  EXPECT_EQ(seen.status, Status::Ok);
  for (std::size_t i = 0; i < kSize; ++i) ASSERT_EQ(back[i], pattern(i, 9)) << i;
}

TEST_F(RmaTest, FlushOrdersPutBeforeAtomic) {
  // A put, then a fetch-add on the same word: the add sees the put's value.
  const uint64_t value = 41;
  ASSERT_EQ(put(*origin_, ep_, &value, sizeof(value), *region_, base_ + 64), Status::Ok);
  ASSERT_EQ(fence(*origin_, ep_), Status::Ok);
  uint64_t old = 0;
  ASSERT_EQ(atomic(*origin_, ep_, AtomicOp::FetchAdd, 8, 1, 0, *region_, base_ + 64, &old), Status::Ok);
  EXPECT_EQ(old, 41u);
  ASSERT_EQ(flush(*origin_, ep_), Status::Ok);
  uint64_t now = 0;
  std::memcpy(&now, memory_.data() + 64, sizeof(now));
  EXPECT_EQ(now, 42u);
}

template <typename T>
void check_atomics(Worker& origin, Endpoint* ep, const RemoteRegion& region, uint64_t address, T* word) {
  constexpr unsigned kSize = sizeof(T);
  const T start = static_cast<T>(0x0f0f0f0f0f0f0f0fULL);
  struct Case {
    AtomicOp op;
    T operand;
    T compare;
    T expect;  // the word afterwards
  };
  const Case cases[] = {
      {AtomicOp::Add, 5, 0, static_cast<T>(start + 5)},
      {AtomicOp::FetchAdd, static_cast<T>(-1), 0, static_cast<T>(start - 1)},
      {AtomicOp::Swap, static_cast<T>(0x1234), 0, static_cast<T>(0x1234)},
      {AtomicOp::CompareSwap, static_cast<T>(77), start, static_cast<T>(77)},
      {AtomicOp::CompareSwap, static_cast<T>(78), static_cast<T>(start + 1), start},  // no match: unchanged
      {AtomicOp::And, static_cast<T>(0xff00ff00ff00ff00ULL), 0, static_cast<T>(start & static_cast<T>(0xff00ff00ff00ff00ULL))},
      {AtomicOp::Or, static_cast<T>(0xf0), 0, static_cast<T>(start | 0xf0)},
      {AtomicOp::Xor, static_cast<T>(~T{0}), 0, static_cast<T>(~start)},
      {AtomicOp::FetchAnd, static_cast<T>(0x3), 0, static_cast<T>(start & 3)},
      {AtomicOp::FetchOr, static_cast<T>(0x100), 0, static_cast<T>(start | 0x100)},
      {AtomicOp::FetchXor, static_cast<T>(0xff), 0, static_cast<T>(start ^ 0xff)},
  };
  for (const Case& c : cases) {
    __atomic_store_n(word, start, __ATOMIC_SEQ_CST);
    uint64_t old = 0xdeadbeef;
    ASSERT_EQ(atomic(origin, ep, c.op, kSize, static_cast<uint64_t>(c.operand), static_cast<uint64_t>(c.compare),
                     region, address, &old),
              Status::Ok)
        << static_cast<int>(c.op);
    EXPECT_EQ(old, static_cast<uint64_t>(start)) << "op " << static_cast<int>(c.op) << " size " << kSize;
    EXPECT_EQ(__atomic_load_n(word, __ATOMIC_SEQ_CST), c.expect) << "op " << static_cast<int>(c.op) << " size " << kSize;
  }
}

TEST_F(RmaTest, EveryAtomicAtBothWidths) {
  check_atomics<uint32_t>(*origin_, ep_, *region_, base_ + 128, reinterpret_cast<uint32_t*>(memory_.data() + 128));
  check_atomics<uint64_t>(*origin_, ep_, *region_, base_ + 256, reinterpret_cast<uint64_t*>(memory_.data() + 256));
}

TEST_F(RmaTest, ManyNonBlockingAtomics) {
  constexpr int kOps = 1000;
  std::vector<uint64_t> olds(kOps);
  std::vector<Request*> requests;
  for (int i = 0; i < kOps; ++i) {
    Request* request = nullptr;
    const Status status =
        atomic_nb(*origin_, ep_, AtomicOp::FetchAdd, 8, 1, 0, *region_, base_ + 512, &olds[i], request);
    ASSERT_EQ(status, Status::InProgress);
    requests.push_back(request);
  }
  for (Request* request : requests) ASSERT_EQ(origin_->wait(request), Status::Ok);
  for (int i = 0; i < kOps; ++i) EXPECT_EQ(olds[i], static_cast<uint64_t>(i));  // applied in issue order
}

TEST_F(RmaTest, OutOfRangeIsRefused) {
  uint64_t word = 0;
  EXPECT_EQ(put(*origin_, ep_, &word, 8, *region_, base_ + kTargetBytes - 4), Status::InvalidParam);
  EXPECT_EQ(get(*origin_, ep_, &word, 8, *region_, base_ - 8), Status::InvalidParam);
  EXPECT_EQ(atomic(*origin_, ep_, AtomicOp::Add, 8, 1, 0, *region_, base_ + kTargetBytes, &word), Status::InvalidParam);
  EXPECT_EQ(atomic(*origin_, ep_, AtomicOp::Add, 8, 1, 0, *region_, base_ + 4, &word), Status::InvalidParam);
  EXPECT_EQ(atomic(*origin_, ep_, AtomicOp::Add, 2, 1, 0, *region_, base_, &word), Status::InvalidParam);
  EXPECT_EQ(atomic(*origin_, ep_, static_cast<AtomicOp>(99), 8, 1, 0, *region_, base_, &word), Status::InvalidParam);

  // A forged key claiming more than the target registered: our check passes,
  // the target's refuses, and the error comes back instead of a crash.
  PackedRmaKey forged{};
  std::memcpy(&forged, registration_->packed_key().data(), sizeof(forged));
  forged.length = kTargetBytes * 4;
  RemoteRegion* wide = nullptr;
  ASSERT_EQ(RemoteRegion::unpack(std::as_bytes(std::span(&forged, 1)), wide), Status::Ok);
  std::vector<std::byte> sink(64);
  EXPECT_EQ(get(*origin_, ep_, sink.data(), sink.size(), *wide, base_ + kTargetBytes), Status::InvalidParam);
  EXPECT_EQ(atomic(*origin_, ep_, AtomicOp::FetchAdd, 8, 1, 0, *wide, base_ + kTargetBytes + 8, &word),
            Status::InvalidParam);
  RemoteRegion::destroy(wide);
  // The connection survives the refusals.
  const uint64_t value = 99;
  ASSERT_EQ(put(*origin_, ep_, &value, sizeof(value), *region_, base_), Status::Ok);
  ASSERT_EQ(get(*origin_, ep_, &word, sizeof(word), *region_, base_), Status::Ok);
  EXPECT_EQ(word, 99u);
}

TEST_F(RmaTest, MalformedKeysAreRefused) {
  const std::vector<std::byte>& good = registration_->packed_key();
  RemoteRegion* region = nullptr;
  EXPECT_EQ(RemoteRegion::unpack({}, region), Status::InvalidParam);
  EXPECT_EQ(RemoteRegion::unpack(std::span(good).first(good.size() - 1), region), Status::InvalidParam);
  auto with = [&](auto change) {
    PackedRmaKey key{};
    std::memcpy(&key, good.data(), sizeof(key));
    change(key);
    return RemoteRegion::unpack(std::as_bytes(std::span(&key, 1)), region);
  };
  EXPECT_EQ(with([](PackedRmaKey& k) { k.magic ^= 1; }), Status::InvalidParam);
  EXPECT_EQ(with([](PackedRmaKey& k) { k.version = kRmaKeyVersion + 1; }), Status::InvalidParam);
  EXPECT_EQ(with([](PackedRmaKey& k) { k.length = 0; }), Status::InvalidParam);
  EXPECT_EQ(with([](PackedRmaKey& k) { k.base = UINT64_MAX - 4; }), Status::InvalidParam);
  EXPECT_EQ(region, nullptr);
  Registration* bad = nullptr;
  EXPECT_EQ(Registration::create(*target_, nullptr, 8, bad), Status::InvalidParam);
  EXPECT_EQ(Registration::create(*target_, memory_.data(), 0, bad), Status::InvalidParam);
}

TEST_F(RmaTest, KeyOfAnotherWorkerIsRefused) {
  // The origin's own registration, used on the endpoint to the target.
  uint64_t mine = 0;
  Registration* own = nullptr;
  ASSERT_EQ(Registration::create(*origin_, &mine, sizeof(mine), own), Status::Ok);
  RemoteRegion* region = nullptr;
  ASSERT_EQ(RemoteRegion::unpack(own->packed_key(), region), Status::Ok);
  uint64_t value = 1;
  EXPECT_EQ(put(*origin_, ep_, &value, sizeof(value), *region, reinterpret_cast<uint64_t>(&mine)),
            Status::InvalidParam);
  RemoteRegion::destroy(region);
  Registration::destroy(own);
}

TEST(RmaLanes, SelfLaneIsUnsupported) {
  std::unique_ptr<Worker> worker = make_worker("self");
  ASSERT_TRUE(worker);
  uint64_t word = 0;
  Registration* registration = nullptr;
  ASSERT_EQ(Registration::create(*worker, &word, sizeof(word), registration), Status::Ok);
  RemoteRegion* region = nullptr;
  ASSERT_EQ(RemoteRegion::unpack(registration->packed_key(), region), Status::Ok);
  Endpoint* self = nullptr;
  ASSERT_EQ(worker->connect(worker->address(), self), Status::Ok);
  EXPECT_FALSE(supported(*worker, self));
  uint64_t value = 5, old = 0;
  const auto address = reinterpret_cast<uint64_t>(&word);
  EXPECT_EQ(put(*worker, self, &value, 8, *region, address), Status::Unsupported);
  EXPECT_EQ(get(*worker, self, &value, 8, *region, address), Status::Unsupported);
  EXPECT_EQ(atomic(*worker, self, AtomicOp::FetchAdd, 8, 1, 0, *region, address, &old), Status::Unsupported);
  EXPECT_EQ(flush(*worker, self), Status::Unsupported);
  EXPECT_EQ(fence(*worker, self), Status::Unsupported);
  EXPECT_EQ(put(*worker, nullptr, &value, 8, *region, address), Status::InvalidParam);
  EXPECT_EQ(word, 0u);
  RemoteRegion::destroy(region);
  Registration::destroy(registration);
}

}  // namespace
}  // namespace tern::engine::rma
