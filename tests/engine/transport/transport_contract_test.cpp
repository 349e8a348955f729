// The transport contract (engine/transport/iface.hpp), checked against every
// built-in transport. For `self` both ends are one iface; for `shm` they are
// two ifaces of this process, each with its own segment.
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "transport_test_util.hpp"

namespace tern::engine::transport {
namespace {

using testing::check_pattern;
using testing::fill_pattern;
using testing::spin_until;
using testing::TrackedCompletion;

constexpr uint8_t kAmId = 3;
constexpr uint8_t kEchoId = 4;

struct Message {
  uint8_t id = 0;
  std::vector<std::byte> bytes;

  [[nodiscard]] uint64_t header() const {
    uint64_t value = 0;
    if (bytes.size() >= sizeof(value)) std::memcpy(&value, bytes.data(), sizeof(value));
    return value;
  }
};

class TransportTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { open(runtime::Config{}); }
  void TearDown() override { close(); }

  [[nodiscard]] bool is_self() const { return GetParam() == "self"; }

  void open(const runtime::Config& config) {
    close();
    IfaceParams params;
    params.job_id = testing::unique_job_id("c");
    params.worker_uuid = 0x1111;
    params.config = config;
    Status status = Status::InvalidParam;
    if (is_self()) {
      owned_sender_ = create_self_iface(params, status);
      ASSERT_EQ(status, Status::Ok);
      ASSERT_NE(owned_sender_, nullptr);
      sender_ = receiver_ = owned_sender_.get();
    } else {
      owned_sender_ = create_shm_iface(params, status);
      ASSERT_EQ(status, Status::Ok);
      ASSERT_NE(owned_sender_, nullptr);
      params.worker_uuid = 0x2222;
      owned_receiver_ = create_shm_iface(params, status);
      ASSERT_EQ(status, Status::Ok);
      ASSERT_NE(owned_receiver_, nullptr);
      sender_ = owned_sender_.get();
      receiver_ = owned_receiver_.get();
    }
    ep_ = sender_->create_ep(receiver_->address(), status);
    ASSERT_EQ(status, Status::Ok);
    ASSERT_NE(ep_, nullptr);
    receiver_->set_am_handler(kAmId, &TransportTest::record, this);
  }

  void close() {
    if (ep_ != nullptr) sender_->destroy_ep(ep_);
    ep_ = nullptr;
    owned_receiver_.reset();
    owned_sender_.reset();
    sender_ = receiver_ = nullptr;
  }

  void progress() {
    sender_->progress();
    if (receiver_ != sender_) receiver_->progress();
  }

  [[nodiscard]] bool progress_until_received(std::size_t count) {
    return spin_until([&] { progress(); }, [&] { return messages_.size() >= count; });
  }

  // Sends, making progress while the transport says WouldBlock.
  [[nodiscard]] Status send_short(uint64_t header, const void* payload, std::size_t length) {
    Status status = Status::WouldBlock;
    spin_until([&] { progress(); },
               [&] { return (status = ep_->am_short(kAmId, header, payload, length)) != Status::WouldBlock; });
    return status;
  }

  static bool record(void* arg, const void* data, std::size_t length) {
    auto* self = static_cast<TransportTest*>(arg);
    Message message;
    message.id = kAmId;
    message.bytes.assign(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + length);
    self->messages_.push_back(std::move(message));
    return true;
  }

  std::unique_ptr<Iface> owned_sender_;
  std::unique_ptr<Iface> owned_receiver_;
  Iface* sender_ = nullptr;
  Iface* receiver_ = nullptr;
  Ep* ep_ = nullptr;
  std::vector<Message> messages_;
};

TEST_P(TransportTest, AttributesDescribeTheCells) {
  const IfaceAttr& attr = sender_->attr();
  EXPECT_EQ(std::string(attr.name), GetParam());
  const uint32_t needed = kCapAmShort | kCapAmBcopy | kCapWakeup;
  EXPECT_EQ(attr.flags & needed, needed);
  EXPECT_EQ(attr.max_bcopy, runtime::Config{}.shm_cell_size - 8);
  EXPECT_EQ(attr.max_short, attr.max_bcopy - 8);
  EXPECT_GE(attr.max_short, 16384u);  // a 16 KiB message goes in one cell
  // Mapped memory (and self, where a get is a memcpy) switches to zero copy
  // as soon as a message needs more than one cell.
  EXPECT_EQ(attr.rndv_threshold_mapped, attr.max_short + 1);
  if (GetParam() == std::string("self")) {
    EXPECT_EQ(attr.rndv_threshold, attr.max_short + 1);
  } else {
    EXPECT_EQ(attr.rndv_threshold, 128u * 1024);
  }
  EXPECT_GT(attr.max_zcopy, 0u);

  runtime::Config config;
  config.shm_cell_size = 1024;
  config.rndv_threshold = 5000;
  open(config);
  EXPECT_EQ(sender_->attr().max_bcopy, 1024u - 8);
  EXPECT_EQ(sender_->attr().max_short, 1024u - 16);
  EXPECT_EQ(sender_->attr().rndv_threshold, 5000u);
}

TEST_P(TransportTest, RejectsUnsupportedGeometry) {
  IfaceParams params;
  params.job_id = testing::unique_job_id("g");
  params.config.shm_fifo_cells = 12;  // not a power of two
  Status status = Status::Ok;
  auto iface = is_self() ? create_self_iface(params, status) : create_shm_iface(params, status);
  EXPECT_EQ(iface, nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
}

TEST_P(TransportTest, AmShortOfEverySizeArrivesIntact) {
  const std::size_t max_short = sender_->attr().max_short;
  std::size_t next = 0;
  std::size_t bad = 0;
  struct Check {
    std::size_t* next;
    std::size_t* bad;
  } check{&next, &bad};
  receiver_->set_am_handler(
      kAmId,
      [](void* arg, const void* data, std::size_t length) -> bool {
        auto* c = static_cast<Check*>(arg);
        uint64_t header = 0;
        std::memcpy(&header, data, sizeof(header));
        const std::size_t expected = (*c->next)++;
        if (header != expected || length != 8 + expected ||
            !check_pattern(static_cast<const std::byte*>(data) + 8, expected, expected)) {
          ++*c->bad;
        }
        return true;
      },
      &check);
  std::vector<std::byte> payload(max_short);
  for (std::size_t length = 0; length <= max_short; ++length) {
    fill_pattern(payload.data(), length, length);
    ASSERT_EQ(send_short(length, payload.data(), length), Status::Ok) << length;
  }
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return next == max_short + 1; }));
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(ep_->am_short(kAmId, 0, payload.data(), max_short + 1), Status::MessageTooLong);
}

TEST_P(TransportTest, AmBcopyOfEverySizeArrivesIntact) {
  const std::size_t max_bcopy = sender_->attr().max_bcopy;
  std::size_t next = 1;
  std::size_t bad = 0;
  struct Check {
    std::size_t* next;
    std::size_t* bad;
  } check{&next, &bad};
  receiver_->set_am_handler(
      kAmId,
      [](void* arg, const void* data, std::size_t length) -> bool {
        auto* c = static_cast<Check*>(arg);
        const std::size_t expected = (*c->next)++;
        if (length != expected || !check_pattern(data, length, length)) ++*c->bad;
        return true;
      },
      &check);
  for (std::size_t length = 1; length <= max_bcopy; ++length) {
    ssize_t result = 0;
    ASSERT_TRUE(spin_until([&] { progress(); },
                           [&] {
                             result = ep_->am_bcopy(
                                 kAmId,
                                 [](void* dest, std::size_t capacity, void* arg) -> std::size_t {
                                   const std::size_t want = *static_cast<std::size_t*>(arg);
                                   if (want > capacity) return 0;
                                   fill_pattern(dest, want, want);
                                   return want;
                                 },
                                 &length);
                             return result != static_cast<ssize_t>(Status::WouldBlock);
                           }));
    ASSERT_EQ(result, static_cast<ssize_t>(length));
  }
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return next == max_bcopy + 1; }));
  EXPECT_EQ(bad, 0u);
}

TEST_P(TransportTest, BadArgumentsAreRefusedNotFatal) {
  EXPECT_EQ(ep_->am_short(kMaxAmId, 0, nullptr, 0), Status::InvalidParam);
  EXPECT_EQ(ep_->am_short(kAmId, 0, nullptr, 5), Status::InvalidParam);
  EXPECT_EQ(ep_->am_bcopy(kAmId, nullptr, nullptr), static_cast<ssize_t>(Status::InvalidParam));
  EXPECT_EQ(ep_->am_bcopy(kMaxAmId, [](void*, std::size_t, void*) -> std::size_t { return 0; }, nullptr),
            static_cast<ssize_t>(Status::InvalidParam));
  // A pack callback that claims more than it was given: refused, and the
  // stream goes on.
  EXPECT_EQ(ep_->am_bcopy(kAmId, [](void*, std::size_t capacity, void*) { return capacity + 1; }, nullptr),
            static_cast<ssize_t>(Status::InvalidParam));
  if (ep_->supports_zcopy()) {
    uint64_t word = 0;
    const RemoteMemory where{reinterpret_cast<uint64_t>(&word), 0};
    EXPECT_EQ(ep_->get_zcopy(nullptr, 8, where, nullptr), Status::InvalidParam);
    EXPECT_EQ(ep_->put_zcopy(nullptr, 8, where, nullptr), Status::InvalidParam);
    EXPECT_EQ(ep_->get_zcopy(&word, 8, RemoteMemory{0, 0}, nullptr), Status::InvalidParam);
    EXPECT_EQ(ep_->get_zcopy(nullptr, 0, RemoteMemory{0, 0}, nullptr), Status::Ok);
  }
  EXPECT_EQ(ep_->pending_add(nullptr), Status::InvalidParam);
  PendingEntry no_callback;
  EXPECT_EQ(ep_->pending_add(&no_callback), Status::InvalidParam);
  ep_->pending_remove(nullptr);
  sender_->destroy_ep(nullptr);
  sender_->set_am_handler(200, &TransportTest::record, this);

  // Null payload with length 0 is an empty message.
  EXPECT_EQ(ep_->am_short(kAmId, 77, nullptr, 0), Status::Ok);
  ASSERT_TRUE(progress_until_received(1));
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_EQ(messages_[0].bytes.size(), 8u);
  EXPECT_EQ(messages_[0].header(), 77u);
}

TEST_P(TransportTest, UnregisteredHandlerDropsMessages) {
  receiver_->set_am_handler(kAmId, nullptr, nullptr);
  ASSERT_EQ(ep_->am_short(kAmId, 1, nullptr, 0), Status::Ok);
  for (int i = 0; i < 10; ++i) progress();
  receiver_->set_am_handler(kAmId, &TransportTest::record, this);
  ASSERT_EQ(ep_->am_short(kAmId, 2, nullptr, 0), Status::Ok);
  ASSERT_TRUE(progress_until_received(1));
  EXPECT_EQ(messages_[0].header(), 2u);
}

TEST_P(TransportTest, ManyMessagesKeepTheirOrder) {
  constexpr uint64_t kCount = 50000;
  std::vector<std::byte> payload(300);
  for (uint64_t seq = 0; seq < kCount; ++seq) {
    const std::size_t length = seq % 257;
    if (seq % 3 == 0) {
      // bcopy: the sequence number in the first 8 bytes.
      struct Arg {
        uint64_t seq;
        std::size_t length;
      } arg{seq, length + 8};
      ssize_t result = 0;
      ASSERT_TRUE(spin_until([&] { progress(); },
                             [&] {
                               result = ep_->am_bcopy(
                                   kAmId,
                                   [](void* dest, std::size_t, void* a) -> std::size_t {
                                     auto* p = static_cast<Arg*>(a);
                                     std::memset(dest, 0xab, p->length);
                                     std::memcpy(dest, &p->seq, sizeof(p->seq));
                                     return p->length;
                                   },
                                   &arg);
                               return result != static_cast<ssize_t>(Status::WouldBlock);
                             }));
      ASSERT_EQ(result, static_cast<ssize_t>(length + 8));
    } else {
      ASSERT_EQ(send_short(seq, payload.data(), length), Status::Ok);
    }
    if (seq % 97 == 0) progress();
  }
  ASSERT_TRUE(progress_until_received(kCount));
  ASSERT_EQ(messages_.size(), kCount);
  for (uint64_t seq = 0; seq < kCount; ++seq) {
    ASSERT_EQ(messages_[seq].header(), seq);
    ASSERT_EQ(messages_[seq].bytes.size(), seq % 257 + 8);
  }
}

// A pending entry that sends `count` messages numbered from `first`, and
// logs each of its calls.
struct SendingEntry {
  PendingEntry entry;
  Ep* ep = nullptr;
  uint64_t first = 0;
  unsigned count = 0;
  unsigned sent = 0;
  int name = 0;
  std::vector<int>* calls = nullptr;

  void init(Ep* endpoint, int id, uint64_t first_seq, unsigned messages, std::vector<int>* log) {
    entry.callback = &SendingEntry::run;
    ep = endpoint;
    name = id;
    first = first_seq;
    count = messages;
    calls = log;
  }
  static Status run(PendingEntry* self) {
    auto* e = reinterpret_cast<SendingEntry*>(self);
    e->calls->push_back(e->name);
    while (e->sent < e->count) {
      const Status status = e->ep->am_short(kAmId, e->first + e->sent, nullptr, 0);
      if (status == Status::WouldBlock) return Status::WouldBlock;
      if (status != Status::Ok) return status;
      ++e->sent;
    }
    return Status::Ok;
  }
};
static_assert(offsetof(SendingEntry, entry) == 0);

// Fills the FIFO; returns how many messages went in.
uint64_t fill(Ep* ep) {
  uint64_t sent = 0;
  while (sent < 100000 && ep->am_short(kAmId, sent, nullptr, 0) == Status::Ok) ++sent;
  return sent;
}

// Small messages would go to shm's ring instead, which holds hundreds.
runtime::Config small_fifo() {
  runtime::Config config;
  config.shm_fifo_cells = 8;
  config.shm_cell_size = 256;
  config.shm_rings = runtime::Switch::Off;
  return config;
}

TEST_P(TransportTest, PendingEntriesRunInOrderOnceCellsFree) {
  open(small_fifo());
  std::vector<int> calls;
  SendingEntry probe;
  probe.init(ep_, 0, 0, 0, &calls);
  EXPECT_EQ(ep_->pending_add(&probe.entry), Status::Busy) << "room now: retry at once";

  const uint64_t filled = fill(ep_);
  ASSERT_EQ(filled, 8u);
  SendingEntry a, b, c;
  a.init(ep_, 1, filled, 20, &calls);  // needs several dispatches
  b.init(ep_, 2, filled + 20, 3, &calls);
  c.init(ep_, 3, filled + 23, 1, &calls);
  ASSERT_EQ(ep_->pending_add(&a.entry), Status::Ok);
  ASSERT_EQ(ep_->pending_add(&b.entry), Status::Ok);
  ASSERT_EQ(ep_->pending_add(&c.entry), Status::Ok);
  EXPECT_EQ(ep_->pending_add(&b.entry), Status::InvalidParam) << "already queued";
  // Nothing may overtake the queued entries.
  EXPECT_EQ(ep_->am_short(kAmId, 999, nullptr, 0), Status::WouldBlock);
  EXPECT_EQ(sender_->arm(), Status::Busy);

  ASSERT_TRUE(progress_until_received(filled + 24));
  for (int i = 0; i < 20; ++i) progress();
  ASSERT_EQ(messages_.size(), filled + 24);
  for (uint64_t i = 0; i < messages_.size(); ++i) EXPECT_EQ(messages_[i].header(), i);
  // a first (perhaps several times), then b, then c, each once it is done.
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(calls.front(), 1);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), 2), 1);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), 3), 1);
  EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end()));
  EXPECT_EQ(calls.back(), 3);

  EXPECT_EQ(ep_->pending_add(&probe.entry), Status::Busy);
  EXPECT_EQ(ep_->am_short(kAmId, 1000, nullptr, 0), Status::Ok);
}

TEST_P(TransportTest, RemovedPendingEntryIsNotCalled) {
  open(small_fifo());
  std::vector<int> calls;
  const uint64_t filled = fill(ep_);
  SendingEntry a, b;
  a.init(ep_, 1, 500, 1, &calls);
  b.init(ep_, 2, filled, 1, &calls);
  ASSERT_EQ(ep_->pending_add(&a.entry), Status::Ok);
  ASSERT_EQ(ep_->pending_add(&b.entry), Status::Ok);
  ep_->pending_remove(&a.entry);
  ASSERT_TRUE(progress_until_received(filled + 1));
  EXPECT_EQ(calls, std::vector<int>{2});
  EXPECT_EQ(messages_.back().header(), filled);
  // The last entry gone, sends go straight through again.
  ep_->pending_remove(&a.entry);
  EXPECT_EQ(ep_->am_short(kAmId, 1, nullptr, 0), Status::Ok);
}

TEST_P(TransportTest, PendingEntryRemovedWhileQueueFullLetsSendsThrough) {
  open(small_fifo());
  std::vector<int> calls;
  fill(ep_);
  SendingEntry a;
  a.init(ep_, 1, 0, 1, &calls);
  ASSERT_EQ(ep_->pending_add(&a.entry), Status::Ok);
  ep_->pending_remove(&a.entry);
  for (int i = 0; i < 10; ++i) progress();
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(ep_->am_short(kAmId, 1, nullptr, 0), Status::Ok);
}

TEST_P(TransportTest, HandlerMaySendWithoutBeingReentered) {
  struct Echo {
    Ep* ep;
    int depth = 0;
    int max_depth = 0;
    int received = 0;
  } echo{ep_};
  receiver_->set_am_handler(
      kEchoId,
      [](void* arg, const void*, std::size_t) -> bool {
        auto* e = static_cast<Echo*>(arg);
        e->max_depth = std::max(e->max_depth, ++e->depth);
        if (++e->received < 10) {
          // The engine sends from handlers; the transport must not call
          // this handler again from inside the send.
          EXPECT_EQ(e->ep->am_short(kEchoId, 0, nullptr, 0), Status::Ok);
        }
        --e->depth;
        return true;
      },
      &echo);
  ASSERT_EQ(ep_->am_short(kEchoId, 0, nullptr, 0), Status::Ok);
  EXPECT_EQ(echo.received, 0) << "delivered from inside am_short";
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return echo.received == 10; }));
  EXPECT_EQ(echo.max_depth, 1);
}

TEST_P(TransportTest, ZcopyOfManySizesCompletesInIssueOrder) {
  runtime::Config config;
  config.cma_chunk = 64 * 1024;
  open(config);
  if (!ep_->supports_zcopy()) GTEST_SKIP() << "the kernel refuses CMA here";
  const std::size_t sizes[] = {0, 1, 7, 4096, 65535, 65536, 65537, 300000, (std::size_t{1} << 20) + 3, 100};
  constexpr std::size_t kOps = 2 * std::size(sizes);
  std::vector<std::vector<std::byte>> local(kOps), remote(kOps);
  std::vector<TrackedCompletion> comps(kOps);
  std::vector<int> order;
  std::vector<int> expected_order;
  bool queued = false;
  for (std::size_t i = 0; i < kOps; ++i) {
    const std::size_t size = sizes[i / 2];
    const bool get = i % 2 == 0;
    local[i].assign(size + 1, std::byte{0});
    remote[i].assign(size + 1, std::byte{0});
    // Gets read remote into local, puts write local into remote.
    fill_pattern(get ? remote[i].data() : local[i].data(), size, i);
    comps[i].arm(&order, static_cast<int>(i));
    const RemoteMemory where{reinterpret_cast<uint64_t>(remote[i].data()), 0};
    const Status status = get ? ep_->get_zcopy(local[i].data(), size, where, &comps[i].comp)
                              : ep_->put_zcopy(local[i].data(), size, where, &comps[i].comp);
    if (status == Status::InProgress) {
      expected_order.push_back(static_cast<int>(i));
      queued = true;
    } else {
      ASSERT_EQ(status, Status::Ok) << "op " << i;
      EXPECT_FALSE(queued) << "op " << i << " completed before an earlier one";
      EXPECT_FALSE(comps[i].fired);
    }
    if (!is_self() && size > config.cma_chunk) {
      EXPECT_EQ(status, Status::InProgress) << "op " << i;
    }
  }
  if (is_self()) {
    EXPECT_TRUE(expected_order.empty());
  }
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return order.size() == expected_order.size(); }));
  EXPECT_EQ(order, expected_order);
  for (std::size_t i = 0; i < kOps; ++i) {
    const std::size_t size = sizes[i / 2];
    const bool get = i % 2 == 0;
    EXPECT_TRUE(check_pattern(get ? local[i].data() : remote[i].data(), size, i)) << "op " << i;
    // Not a byte beyond the requested length.
    EXPECT_EQ(get ? local[i][size] : remote[i][size], std::byte{0}) << "op " << i;
    if (comps[i].fired) {
      EXPECT_EQ(comps[i].result, Status::Ok);
    }
  }
}

TEST_P(TransportTest, ZcopyLargerThanTheDefaultChunk) {
  if (!ep_->supports_zcopy()) GTEST_SKIP() << "the kernel refuses CMA here";
  const std::size_t size = (std::size_t{9} << 20) + 11;  // > the default 4 MiB chunk
  std::vector<std::byte> source(size), dest(size);
  fill_pattern(source.data(), size, 5);
  std::vector<int> order;
  TrackedCompletion comp;
  comp.arm(&order, 1);
  const Status status =
      ep_->get_zcopy(dest.data(), size, RemoteMemory{reinterpret_cast<uint64_t>(source.data()), 0}, &comp.comp);
  if (is_self()) {
    EXPECT_EQ(status, Status::Ok);
  } else {
    ASSERT_EQ(status, Status::InProgress);
    ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return comp.fired; }));
    EXPECT_EQ(comp.result, Status::Ok);
  }
  EXPECT_TRUE(check_pattern(dest.data(), size, 5));
}

TEST_P(TransportTest, FlushWaitsForOutstandingZcopy) {
  std::vector<int> order;
  TrackedCompletion idle;
  idle.arm(&order, 0);
  EXPECT_EQ(ep_->flush(nullptr), Status::Ok);
  EXPECT_EQ(ep_->flush(&idle.comp), Status::Ok);
  EXPECT_FALSE(idle.fired);
  EXPECT_EQ(ep_->fence(), Status::Ok);

  runtime::Config config;
  config.cma_chunk = 64 * 1024;
  open(config);
  if (!ep_->supports_zcopy()) GTEST_SKIP() << "the kernel refuses CMA here";
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> source(size), dest(size);
  fill_pattern(source.data(), size, 9);
  TrackedCompletion put, flush;
  put.arm(&order, 1);
  flush.arm(&order, 2);
  const Status status =
      ep_->put_zcopy(source.data(), size, RemoteMemory{reinterpret_cast<uint64_t>(dest.data()), 0}, &put.comp);
  if (is_self()) {
    EXPECT_EQ(status, Status::Ok);
    EXPECT_EQ(ep_->flush(&flush.comp), Status::Ok);
    EXPECT_TRUE(check_pattern(dest.data(), size, 9));
    return;
  }
  ASSERT_EQ(status, Status::InProgress);
  EXPECT_EQ(ep_->fence(), Status::Ok);
  EXPECT_EQ(ep_->flush(&flush.comp), Status::InProgress);
  EXPECT_EQ(ep_->flush(nullptr), Status::InProgress);
  EXPECT_EQ(sender_->arm(), Status::Busy) << "queued copies need progress";
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return flush.fired; }));
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_TRUE(check_pattern(dest.data(), size, 9));
  EXPECT_EQ(ep_->flush(nullptr), Status::Ok);
}

TEST_P(TransportTest, DestroyingAnEndpointCancelsItsCopies) {
  runtime::Config config;
  config.cma_chunk = 64 * 1024;
  open(config);
  if (is_self() || !ep_->supports_zcopy()) GTEST_SKIP() << "no queued copies on this transport";
  const std::size_t size = std::size_t{1} << 20;
  std::vector<std::byte> source(size), dest(size);
  std::vector<int> order;
  TrackedCompletion put;
  put.arm(&order, 1);
  ASSERT_EQ(ep_->put_zcopy(source.data(), size, RemoteMemory{reinterpret_cast<uint64_t>(dest.data()), 0}, &put.comp),
            Status::InProgress);
  sender_->destroy_ep(ep_);
  ep_ = nullptr;
  EXPECT_TRUE(put.fired);
  EXPECT_EQ(put.result, Status::Canceled);
  progress();
}

TEST_P(TransportTest, ArmIsBusyWhileMessagesWait) {
  ASSERT_GE(receiver_->event_fd(), 0);
  EXPECT_EQ(receiver_->arm(), Status::Ok);
  receiver_->disarm();
  ASSERT_EQ(ep_->am_short(kAmId, 1, nullptr, 0), Status::Ok);
  EXPECT_EQ(receiver_->arm(), Status::Busy);
  ASSERT_TRUE(progress_until_received(1));
  EXPECT_EQ(receiver_->arm(), Status::Ok);
  receiver_->disarm();
}

TEST_P(TransportTest, SendToArmedIfaceWakesItsFd) {
  const int fd = receiver_->event_fd();
  ASSERT_GE(fd, 0);
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(receiver_->arm(), Status::Ok);
    pollfd waiter{fd, POLLIN, 0};
    EXPECT_EQ(poll(&waiter, 1, 0), 0) << "readable before anything was sent";
    ASSERT_EQ(ep_->am_short(kAmId, round, nullptr, 0), Status::Ok);
    waiter.revents = 0;
    ASSERT_EQ(poll(&waiter, 1, 5000), 1);
    EXPECT_TRUE(waiter.revents & POLLIN);
    receiver_->disarm();
    waiter.revents = 0;
    EXPECT_EQ(poll(&waiter, 1, 0), 0) << "disarm left the fd readable";
    ASSERT_TRUE(progress_until_received(round + 1));
    EXPECT_EQ(messages_.back().header(), static_cast<uint64_t>(round));
  }
  // Sends to an iface that is not armed do not touch its fd.
  ASSERT_EQ(ep_->am_short(kAmId, 9, nullptr, 0), Status::Ok);
  pollfd waiter{fd, POLLIN, 0};
  EXPECT_EQ(poll(&waiter, 1, 0), 0);
}

TEST_P(TransportTest, AddressesAndReachability) {
  const std::vector<std::byte> address = receiver_->address();
  ASSERT_FALSE(address.empty());
  EXPECT_TRUE(sender_->is_reachable(address));
  if (!is_self()) {
    EXPECT_FALSE(receiver_->is_reachable(address)) << "an iface does not reach itself over shm";
  }

  Status status = Status::Ok;
  const std::byte junk[] = {std::byte{1}, std::byte{2}, std::byte{3}};
  EXPECT_EQ(sender_->create_ep(junk, status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
  EXPECT_FALSE(sender_->is_reachable(junk));
  status = Status::Ok;
  EXPECT_EQ(sender_->create_ep(std::span<const std::byte>(), status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
  status = Status::Ok;
  EXPECT_EQ(sender_->create_ep(std::span(address).first(address.size() - 1), status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
  std::vector<std::byte> longer = address;
  longer.push_back(std::byte{0});
  status = Status::Ok;
  EXPECT_EQ(sender_->create_ep(longer, status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);

  // Another transport's address is malformed here.
  IfaceParams params;
  params.job_id = testing::unique_job_id("o");
  params.worker_uuid = 0x9999;
  auto other = is_self() ? create_shm_iface(params, status) : create_self_iface(params, status);
  ASSERT_NE(other, nullptr);
  EXPECT_FALSE(sender_->is_reachable(other->address()));
  EXPECT_EQ(sender_->create_ep(other->address(), status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);

  // A second endpoint to the same peer works side by side.
  Ep* second = sender_->create_ep(address, status);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->am_short(kAmId, 5, nullptr, 0), Status::Ok);
  ASSERT_TRUE(progress_until_received(1));
  sender_->destroy_ep(second);
}

TEST(SelfTransport, ReachesOnlyItsOwnWorker) {
  IfaceParams params;
  params.worker_uuid = 1;
  Status status = Status::Ok;
  auto one = create_self_iface(params, status);
  params.worker_uuid = 2;
  auto two = create_self_iface(params, status);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_TRUE(one->is_reachable(one->address()));
  EXPECT_FALSE(one->is_reachable(two->address()));
  EXPECT_EQ(one->create_ep(two->address(), status), nullptr);
  EXPECT_EQ(status, Status::Unreachable);
}

INSTANTIATE_TEST_SUITE_P(Transports, TransportTest, ::testing::Values("self", "shm"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tern::engine::transport
