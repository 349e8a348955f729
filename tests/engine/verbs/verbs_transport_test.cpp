// The verbs transport over the emulated provider: the transport contract
// (engine/transport/iface.hpp) and what is particular to verbs (wire-up
// through the connection service, registration cache, failures).
#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../transport/transport_test_util.hpp"
#include "transport/verbs/verbs_emulated.hpp"
#include "transport/verbs/verbs_iface.hpp"
#include "verbs_test_env.hpp"

namespace tern::engine::transport::verbs {
namespace {

using transport::testing::check_pattern;
using transport::testing::fill_pattern;
using transport::testing::spin_until;
using Done = transport::testing::TrackedCompletion;

constexpr uint8_t kAmId = 3;
constexpr uint8_t kEchoId = 4;

struct Received {
  uint8_t id = 0;
  std::vector<std::byte> bytes;
};


class VerbsTransport : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::on_hardware()) {
      std::string why;
      if (make_ibv_provider()->list_devices(why).empty()) GTEST_FAIL() << "TERN_TEST_VERBS=1, but " << why;
    }
    fabric_ = make_emulated_fabric({});
    a_ = open(0xaaaa);
    b_ = open(0xbbbb);
    ASSERT_NE(a_, nullptr);
    ASSERT_NE(b_, nullptr);
    b_->set_am_handler(kAmId, &VerbsTransport::record, &at_b_);
    a_->set_am_handler(kAmId, &VerbsTransport::record, &at_a_);
  }

  std::unique_ptr<VerbsIface> open(uint64_t uuid, VerbsLimits limits = {}) {
    IfaceParams params;
    params.job_id = transport::testing::unique_job_id("v");
    params.worker_uuid = uuid;
    params.on_failure = &VerbsTransport::failed;
    params.failure_arg = this;
    Status status = Status::InvalidParam;
    auto provider = testing::on_hardware() ? make_ibv_provider() : make_emulated_provider(fabric_);
    auto iface = VerbsIface::create(params, std::move(provider), limits, status);
    EXPECT_EQ(status, Status::Ok);
    return iface;
  }

  void progress() {
    a_->progress();
    b_->progress();
  }

  // An endpoint from a_ to b_ whose connection is open.
  Ep* connect() {
    Status status = Status::InvalidParam;
    Ep* ep = a_->create_ep(b_->address(), status);
    EXPECT_EQ(status, Status::Ok);
    const uint64_t probe = 0;
    Status sent = Status::WouldBlock;
    EXPECT_TRUE(spin_until([&] { progress(); },
                           [&] { return (sent = ep->am_short(kEchoId, probe, nullptr, 0)) != Status::WouldBlock; }));
    EXPECT_EQ(sent, Status::Ok);
    return ep;
  }

  Status send_short(Ep* ep, uint64_t header, const void* payload, std::size_t length) {
    Status status = Status::WouldBlock;
    spin_until([&] { progress(); },
               [&] { return (status = ep->am_short(kAmId, header, payload, length)) != Status::WouldBlock; });
    return status;
  }

  static bool record(void* arg, const void* data, std::size_t length) {
    auto* log = static_cast<std::vector<Received>*>(arg);
    Received message;
    message.id = kAmId;
    message.bytes.assign(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + length);
    log->push_back(std::move(message));
    return true;
  }

  static void failed(void* arg, Iface*, Ep* lane, const char* why) {
    auto* self = static_cast<VerbsTransport*>(arg);
    self->failures_.push_back({lane, why});
  }

  std::shared_ptr<EmulatedFabric> fabric_;
  std::unique_ptr<VerbsIface> a_;
  std::unique_ptr<VerbsIface> b_;
  std::vector<Received> at_a_;
  std::vector<Received> at_b_;
  std::vector<std::pair<Ep*, std::string>> failures_;
};

TEST_F(VerbsTransport, AttributesAndAddresses) {
  const IfaceAttr& attr = a_->attr();
  EXPECT_STREQ(attr.name, "verbs");
  const uint32_t needed = kCapAmShort | kCapAmBcopy | kCapGetZcopy | kCapPutZcopy | kCapWakeup | kCapRma;
  EXPECT_EQ(attr.flags & needed, needed);
  EXPECT_EQ(attr.max_short, attr.max_bcopy - 8);
  EXPECT_TRUE(a_->is_reachable(b_->address()));
  std::vector<std::byte> address = b_->address();
  EXPECT_FALSE(a_->is_reachable(std::span(address).first(address.size() - 1)));
  address[0] ^= std::byte{1};
  EXPECT_FALSE(a_->is_reachable(address));
  Status status = Status::Ok;
  EXPECT_EQ(a_->create_ep(address, status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
  EXPECT_FALSE(a_->is_reachable(std::vector<std::byte>(8)));
}

TEST_F(VerbsTransport, SendsWaitForTheConnectionThenArriveInOrder) {
  Status status = Status::InvalidParam;
  Ep* ep = a_->create_ep(b_->address(), status);
  ASSERT_EQ(status, Status::Ok);
  const uint64_t payload = 7;
  EXPECT_EQ(ep->am_short(kAmId, 1, &payload, sizeof(payload)), Status::WouldBlock);  // not open yet
  for (uint64_t i = 1; i <= 5; ++i) ASSERT_EQ(send_short(ep, i, &payload, sizeof(payload)), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_b_.size() == 5; }));
  for (uint64_t i = 0; i < 5; ++i) {
    uint64_t header = 0;
    ASSERT_EQ(at_b_[i].bytes.size(), 16u);
    std::memcpy(&header, at_b_[i].bytes.data(), 8);
    EXPECT_EQ(header, i + 1);
  }
  EXPECT_EQ(a_->connections(), 1u);
  EXPECT_EQ(b_->connections(), 1u);
}

TEST_F(VerbsTransport, AmShortAndBcopyOfEverySizeArriveIntact) {
  Ep* ep = connect();
  const std::size_t max = a_->attr().max_short;
  std::vector<std::size_t> sizes = {0, 1, 7, 8, 100, 119, 120, 121, 1000, 4096, max - 1, max};
  std::vector<std::byte> payload(max);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    fill_pattern(payload.data(), sizes[i], i);
    ASSERT_EQ(send_short(ep, i, payload.data(), sizes[i]), Status::Ok);
  }
  EXPECT_EQ(ep->am_short(kAmId, 0, payload.data(), max + 1), Status::MessageTooLong);
  struct Pack {
    std::size_t size;
    std::size_t key;
  };
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Pack pack{sizes[i] + 8, 100 + i};
    ssize_t packed = -1;
    spin_until([&] { progress(); },
               [&] {
                 packed = ep->am_bcopy(
                     kAmId,
                     [](void* dest, std::size_t, void* arg) {
                       auto* p = static_cast<Pack*>(arg);
                       fill_pattern(dest, p->size, p->key);
                       return p->size;
                     },
                     &pack);
                 return packed != static_cast<ssize_t>(Status::WouldBlock);
               });
    ASSERT_EQ(packed, static_cast<ssize_t>(sizes[i] + 8));
  }
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_b_.size() == 2 * sizes.size(); }));
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ASSERT_EQ(at_b_[i].bytes.size(), sizes[i] + 8);
    EXPECT_TRUE(check_pattern(at_b_[i].bytes.data() + 8, sizes[i], i)) << sizes[i];
    const Received& bcopy = at_b_[sizes.size() + i];
    ASSERT_EQ(bcopy.bytes.size(), sizes[i] + 8);
    EXPECT_TRUE(check_pattern(bcopy.bytes.data(), sizes[i] + 8, 100 + i));
  }
}

TEST_F(VerbsTransport, ManyMessagesKeepTheirOrderThroughRnrAndFullQueues) {
  Ep* ep = connect();
  // Far more than the SRQ holds: the receiver reposts as it delivers, and
  // the sender's queue fills (WouldBlock) while the receiver is not polled.
  constexpr uint64_t kCount = 3000;
  uint64_t sent = 0;
  unsigned would_block = 0;
  while (sent < kCount) {
    const Status status = ep->am_short(kAmId, sent, &sent, sizeof(sent));
    if (status == Status::WouldBlock) {
      ++would_block;
      a_->progress();
      if (would_block % 3 == 0) b_->progress();
      continue;
    }
    ASSERT_EQ(status, Status::Ok);
    ++sent;
  }
  EXPECT_GT(would_block, 0u);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_b_.size() == kCount; }));
  for (uint64_t i = 0; i < kCount; ++i) {
    uint64_t header = 0;
    std::memcpy(&header, at_b_[i].bytes.data(), 8);
    ASSERT_EQ(header, i);
  }
}

TEST_F(VerbsTransport, PendingEntriesRunInOrderOnceSlotsFree) {
  Ep* ep = connect();
  uint64_t n = 0;
  while (ep->am_short(kAmId, n, nullptr, 0) == Status::Ok) ++n;  // fill the send queue
  struct Entry {
    PendingEntry entry;
    Ep* ep;
    std::vector<int>* order;
    int index;
  };
  std::vector<int> order;
  std::vector<Entry> entries(3);
  for (int i = 0; i < 3; ++i) {
    entries[i] = {{}, ep, &order, i};
    entries[i].entry.callback = [](PendingEntry* self) {
      auto* e = reinterpret_cast<Entry*>(self);
      const Status status = e->ep->am_short(kAmId, 1000 + e->index, nullptr, 0);
      if (status == Status::Ok) e->order->push_back(e->index);
      return status;
    };
    ASSERT_EQ(ep->pending_add(&entries[i].entry), Status::Ok);
  }
  EXPECT_EQ(ep->am_short(kAmId, 0, nullptr, 0), Status::WouldBlock);  // queued entries go first
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return order.size() == 3; }));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_b_.size() == n + 3; }));
  EXPECT_EQ(ep->pending_add(&entries[0].entry), Status::Busy);
}

TEST_F(VerbsTransport, HandlerMaySendAndUnregisteredIdsAreDropped) {
  Ep* ep = connect();
  struct Echo {
    VerbsTransport* test;
    Ep* back = nullptr;
  } echo{this};
  Status status = Status::InvalidParam;
  echo.back = b_->create_ep(a_->address(), status);
  ASSERT_EQ(status, Status::Ok);
  EXPECT_EQ(b_->connections(), 1u);  // the connection a_ made is reused
  b_->set_am_handler(kAmId, [](void* arg, const void* data, std::size_t length) {
    auto* e = static_cast<Echo*>(arg);
    uint64_t header = 0;
    std::memcpy(&header, data, 8);
    (void)length;
    return e->back->am_short(kAmId, header + 1, nullptr, 0) == Status::Ok;
  }, &echo);
  ASSERT_EQ(send_short(ep, 41, nullptr, 0), Status::Ok);
  ASSERT_EQ(ep->am_short(9, 0, nullptr, 0), Status::Ok);  // nobody handles 9
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_a_.size() == 1; }));
  uint64_t header = 0;
  std::memcpy(&header, at_a_[0].bytes.data(), 8);
  EXPECT_EQ(header, 42u);
  EXPECT_TRUE(failures_.empty());
  EXPECT_EQ(ep->am_short(kMaxAmId, 0, nullptr, 0), Status::InvalidParam);
  EXPECT_EQ(ep->am_short(kAmId, 0, nullptr, 4), Status::InvalidParam);
  EXPECT_EQ(ep->am_bcopy(kAmId, nullptr, nullptr), static_cast<ssize_t>(Status::InvalidParam));
}

TEST_F(VerbsTransport, ZcopyCompletesInIssueOrderAndRegistersOnce) {
  Ep* ep = connect();
  const std::vector<std::size_t> sizes = {1, 64, 4096, 65536, 1 << 20};
  std::vector<std::vector<std::byte>> sources, targets, readback;
  std::vector<Done> done(2 * sizes.size());
  std::vector<int> order;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    sources.emplace_back(sizes[i]);
    targets.emplace_back(sizes[i]);
    readback.emplace_back(sizes[i]);
    fill_pattern(sources[i].data(), sizes[i], i);
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const uint64_t key = b_->mem_register(targets[i].data(), sizes[i]);
    ASSERT_NE(key, 0u);
    const RemoteMemory remote{reinterpret_cast<uint64_t>(targets[i].data()), key};
    done[2 * i].arm(&order, static_cast<int>(2 * i));
    done[2 * i + 1].arm(&order, static_cast<int>(2 * i + 1));
    ASSERT_EQ(ep->put_zcopy(sources[i].data(), sizes[i], remote, &done[2 * i].comp), Status::InProgress);
    ASSERT_EQ(ep->get_zcopy(readback[i].data(), sizes[i], remote, &done[2 * i + 1].comp), Status::InProgress);
  }
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return order.size() == done.size(); }));
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], static_cast<int>(i));
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(done[2 * i].result, Status::Ok);
    EXPECT_TRUE(check_pattern(targets[i].data(), sizes[i], i));
    EXPECT_TRUE(check_pattern(readback[i].data(), sizes[i], i));
  }
  // Again from the same buffers: no new registration.
  const uint64_t before = a_->mr_cache().registrations();
  Done again;
  again.arm(nullptr, 0);
  const RemoteMemory remote{reinterpret_cast<uint64_t>(targets[4].data()), b_->mem_register(targets[4].data(), 1)};
  ASSERT_EQ(ep->put_zcopy(sources[4].data() + 100, 1000, remote, &again.comp), Status::InProgress);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return again.fired; }));
  EXPECT_EQ(a_->mr_cache().registrations(), before);
}

TEST_F(VerbsTransport, FlushWaitsForOutstandingOperations) {
  Ep* ep = connect();
  Done flush;
  flush.arm(nullptr, 0);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return ep->flush(&flush.comp) == Status::Ok; }));
  std::vector<std::byte> source(4096), target(4096);
  const uint64_t key = b_->mem_register(target.data(), target.size());
  Done put;
  put.arm(nullptr, 0);
  ASSERT_EQ(ep->put_zcopy(source.data(), source.size(), {reinterpret_cast<uint64_t>(target.data()), key}, &put.comp),
            Status::InProgress);
  flush.arm(nullptr, 0);
  ASSERT_EQ(ep->flush(&flush.comp), Status::InProgress);
  EXPECT_FALSE(flush.fired);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return flush.fired; }));
  EXPECT_TRUE(put.fired);
  EXPECT_EQ(flush.result, Status::Ok);
}

TEST_F(VerbsTransport, AtomicsOnRegisteredMemory) {
  Ep* ep = connect();
  alignas(8) uint64_t word = 40;
  const uint64_t key = b_->mem_register(&word, sizeof(word));
  const RemoteMemory remote{reinterpret_cast<uint64_t>(&word), key};
  uint64_t old = 0;
  Done done;
  done.arm(nullptr, 0);
  AtomicArgs args;
  args.op = AtomicOp::FetchAdd;
  args.operand = 2;
  args.result = &old;
  ASSERT_EQ(ep->atomic(args, remote, &done.comp), Status::InProgress);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return done.fired; }));
  EXPECT_EQ(old, 40u);
  args.op = AtomicOp::CompareSwap;
  args.compare = 42;
  args.operand = 7;
  done.arm(nullptr, 0);
  ASSERT_EQ(ep->atomic(args, remote, &done.comp), Status::InProgress);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return done.fired; }));
  EXPECT_EQ(old, 42u);
  EXPECT_EQ(word, 7u);
  args.op = AtomicOp::Xor;
  EXPECT_EQ(ep->atomic(args, remote, &done.comp), Status::Unsupported);
}

TEST_F(VerbsTransport, BadKeyFailsTheConnectionAndTellsTheOwner) {
  Ep* ep = connect();
  std::vector<std::byte> local(64), remote(64);
  const uint64_t key = b_->mem_register(remote.data(), remote.size());
  Done get;
  get.arm(nullptr, 0);
  // Past the registered range: a remote access error.
  const RemoteMemory beyond{reinterpret_cast<uint64_t>(remote.data()) + 8192, key};
  ASSERT_EQ(ep->get_zcopy(local.data(), local.size(), beyond, &get.comp), Status::InProgress);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return get.fired; }));
  EXPECT_EQ(get.result, Status::IoError);
  ASSERT_EQ(failures_.size(), 1u);
  EXPECT_EQ(failures_[0].first, ep);
  EXPECT_EQ(ep->am_short(kAmId, 0, nullptr, 0), Status::IoError);
  EXPECT_EQ(ep->get_zcopy(local.data(), 8, {reinterpret_cast<uint64_t>(remote.data()), 12345}, &get.comp),
            Status::InvalidParam);  // not a verbs key at all
}

TEST_F(VerbsTransport, MalformedMessageFailsTheConnection) {
  Ep* ep = connect();
  b_->set_am_handler(kAmId, [](void*, const void*, std::size_t) { return false; }, nullptr);
  Status status = Status::InvalidParam;
  Ep* back = b_->create_ep(a_->address(), status);
  ASSERT_EQ(send_short(ep, 1, nullptr, 0), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return !failures_.empty(); }));
  EXPECT_EQ(failures_[0].first, back);
  EXPECT_NE(failures_[0].second.find("malformed"), std::string::npos);
  EXPECT_EQ(back->am_short(kAmId, 0, nullptr, 0), Status::IoError);
  EXPECT_EQ(back->route().rfind("on ", 0), 0u);
}

TEST_F(VerbsTransport, DestroyingAnEndpointCancelsItsTransfers) {
  Ep* ep = connect();
  std::vector<std::byte> source(1 << 16), target(1 << 16);
  const uint64_t key = b_->mem_register(target.data(), target.size());
  Done put;
  put.arm(nullptr, 0);
  ASSERT_EQ(ep->put_zcopy(source.data(), source.size(), {reinterpret_cast<uint64_t>(target.data()), key}, &put.comp),
            Status::InProgress);
  a_->destroy_ep(ep);
  EXPECT_TRUE(put.fired);
  EXPECT_EQ(put.result, Status::Canceled);
  progress();
}

TEST_F(VerbsTransport, QueuedSendsStillLeaveWhenTheIfaceIsDestroyed) {
  if (testing::on_hardware()) GTEST_SKIP() << "two ifaces of one process and a thread: emulated only";
  Ep* ep = connect();
  // b_ does not progress: its receive queue fills, and a_'s sends wait in
  // a_'s queues (RNR, then the full send queue).
  uint64_t sent = 0;
  for (int tries = 0; tries < 100000 && sent < 300; ++tries) {
    if (ep->am_short(kAmId, sent, nullptr, 0) == Status::Ok) {
      ++sent;
    } else {
      a_->progress();
    }
  }
  ASSERT_GT(sent, VerbsLimits{}.rx_buffers);
  std::thread serving([&] {
    // Late, so that a_ is inside its destructor when room comes.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    spin_until([&] { b_->progress(); }, [&] { return at_b_.size() >= sent; }, 10.0);
  });
  a_.reset();  // drains before its QP goes
  serving.join();
  ASSERT_EQ(at_b_.size(), sent);
  for (uint64_t i = 0; i < sent; ++i) {
    uint64_t header = 0;
    std::memcpy(&header, at_b_[i].bytes.data(), 8);
    ASSERT_EQ(header, i);
  }
}

TEST_F(VerbsTransport, SimultaneousConnectsMakeOneConnection) {
  Status status = Status::InvalidParam;
  Ep* ab = a_->create_ep(b_->address(), status);
  Ep* ba = b_->create_ep(a_->address(), status);
  ASSERT_NE(ab, nullptr);
  ASSERT_NE(ba, nullptr);
  ASSERT_EQ(send_short(ab, 1, nullptr, 0), Status::Ok);
  Status back = Status::WouldBlock;
  ASSERT_TRUE(spin_until([&] { progress(); },
                         [&] { return (back = ba->am_short(kAmId, 2, nullptr, 0)) != Status::WouldBlock; }));
  ASSERT_EQ(back, Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_a_.size() == 1 && at_b_.size() == 1; }));
  EXPECT_EQ(a_->connections(), 1u);
  EXPECT_EQ(b_->connections(), 1u);
}

TEST_F(VerbsTransport, AcceptorWaitsForReadyBeforeSending) {
  Status status = Status::InvalidParam;
  Ep* ab = a_->create_ep(b_->address(), status);  // the request goes out
  ASSERT_NE(ab, nullptr);
  // b_ accepts: its QP is in RTS, a_'s still in INIT (an iface without
  // connections looks at its queue every 32nd call).
  for (int i = 0; i < 64 && b_->connections() == 0; ++i) b_->progress();
  ASSERT_EQ(b_->connections(), 1u);
  Ep* ba = b_->create_ep(a_->address(), status);
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(b_->connections(), 1u);
  EXPECT_EQ(ba->am_short(kAmId, 1, nullptr, 0), Status::WouldBlock);
  a_->progress();  // the reply: a_'s QP to RTS, Ready sent
  b_->progress();  // Ready arrives
  EXPECT_EQ(ba->am_short(kAmId, 1, nullptr, 0), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_a_.size() == 1; }));
  EXPECT_TRUE(failures_.empty());
}

TEST_F(VerbsTransport, LostDatagramsAreRepeated) {
  if (testing::on_hardware()) GTEST_SKIP() << "datagrams are dropped on the emulated fabric only";
  emulated_drop_datagrams(*fabric_, 3);
  Ep* ep = connect();
  ASSERT_EQ(send_short(ep, 5, nullptr, 0), Status::Ok);
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_b_.size() == 1; }));
}

TEST_F(VerbsTransport, ArmedIfaceWakesOnArrival) {
  Ep* ep = connect();
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return b_->arm() == Status::Ok; }));
  ASSERT_EQ(ep->am_short(kAmId, 3, nullptr, 0), Status::Ok);
  pollfd fd{b_->event_fd(), POLLIN, 0};
  ASSERT_EQ(poll(&fd, 1, 1000), 1);
  b_->disarm();
  EXPECT_EQ(b_->arm(), Status::Busy);  // the message waits
  ASSERT_TRUE(spin_until([&] { progress(); }, [&] { return at_b_.size() == 1; }));
}

TEST(VerbsAvailability, NoDeviceIsReportedWithItsReason) {
  std::string why;
  IfaceParams params;
  params.worker_uuid = 1;
  Status status = Status::Ok;
  EmulatedFabricParams none;
  none.devices = 0;
  auto iface = VerbsIface::create(params, make_emulated_provider(make_emulated_fabric(none)), {}, status, &why);
  EXPECT_EQ(iface, nullptr);
  EXPECT_EQ(status, Status::Unsupported);
  EXPECT_NE(why.find("no RDMA device"), std::string::npos);
  // The real library: on a machine without a device, the reason names the call.
  auto real = make_ibv_provider();
  if (real->list_devices(why).empty()) {
    EXPECT_EQ(why.rfind("no RDMA device", 0), 0u) << why;
  }
}

}  // namespace
}  // namespace tern::engine::transport::verbs
