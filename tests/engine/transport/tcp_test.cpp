// The TCP transport (engine/transport/tcp/) between two ifaces of this
// process over loopback: active messages, ordering under a full socket,
// simultaneous connects, get and put against offered and registered memory,
// and what it does with strangers and malformed frames.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "transport/tcp/tcp_address.hpp"
#include "transport/tcp/tcp_wire.hpp"
#include "transport_test_util.hpp"

namespace tern::engine::transport {
namespace {

using testing::check_pattern;
using testing::fill_pattern;
using testing::spin_until;

constexpr uint8_t kAmId = 5;

struct Inbox {
  std::vector<std::vector<std::byte>> messages;
  static bool record(void* arg, const void* data, std::size_t length) {
    auto* self = static_cast<Inbox*>(arg);
    const auto* bytes = static_cast<const std::byte*>(data);
    self->messages.emplace_back(bytes, bytes + length);
    return true;
  }
};

struct Done {
  Completion comp;
  bool fired = false;
  Status result = Status::Ok;
  Done() {
    comp.callback = [](Completion* c) {
      auto* self = reinterpret_cast<Done*>(c);
      self->fired = true;
      self->result = c->status;
    };
    comp.count = 1;
  }
};
static_assert(offsetof(Done, comp) == 0);

class TcpTest : public ::testing::Test {
 public:
  void progress() {
    a_->progress();
    b_->progress();
  }

 protected:
  void SetUp() override {
    a_ = open(0x1000);
    b_ = open(0x2000);
    ASSERT_TRUE(a_ && b_);
    a_->set_am_handler(kAmId, &Inbox::record, &at_a_);
    b_->set_am_handler(kAmId, &Inbox::record, &at_b_);
  }

  std::unique_ptr<Iface> open(uint64_t uuid) {
    IfaceParams params;
    params.job_id = testing::unique_job_id("tcp");
    params.worker_uuid = uuid;
    params.config.tcp_interfaces = "lo";
    Status status = Status::InvalidParam;
    auto iface = create_tcp_iface(params, status);
    EXPECT_EQ(status, Status::Ok);
    return iface;
  }

  bool until(const std::function<bool()>& done, double seconds = 20) {
    return spin_until([&] { progress(); }, done, seconds);
  }

  Status send(Ep* ep, uint64_t header, const void* payload, std::size_t length) {
    Status status = Status::WouldBlock;
    spin_until([&] { progress(); },
               [&] { return (status = ep->am_short(kAmId, header, payload, length)) != Status::WouldBlock; });
    return status;
  }

  std::unique_ptr<Iface> a_, b_;
  Inbox at_a_, at_b_;
};

uint64_t header_of(const std::vector<std::byte>& message) {
  uint64_t value = 0;
  std::memcpy(&value, message.data(), sizeof(value));
  return value;
}

TEST_F(TcpTest, AttributesAndAddress) {
  EXPECT_STREQ(a_->attr().name, "tcp");
  EXPECT_NE(a_->attr().flags & kCapGetZcopy, 0u);
  EXPECT_GE(a_->event_fd(), 0);
  tcp::TcpAddress unpacked;
  const auto packed = a_->address();
  ASSERT_TRUE(tcp::unpack_address(packed, unpacked));
  EXPECT_EQ(unpacked.worker_uuid, 0x1000u);
  ASSERT_EQ(unpacked.listeners.size(), 1u);
  EXPECT_TRUE(unpacked.listeners[0].is_loopback());
  EXPECT_TRUE(b_->is_reachable(packed));
  // Truncated or corrupted addresses are refused, not read past their end.
  for (std::size_t length = 0; length < packed.size(); ++length) {
    EXPECT_FALSE(tcp::unpack_address(std::span(packed.data(), length), unpacked)) << length;
  }
  auto corrupt = packed;
  corrupt[0] = std::byte{0};
  EXPECT_FALSE(tcp::unpack_address(corrupt, unpacked));
  Status status = Status::Ok;
  EXPECT_EQ(b_->create_ep(corrupt, status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
}

TEST_F(TcpTest, InterfaceSelection) {
  std::vector<tcp::InterfaceAddress> found;
  std::string error;
  ASSERT_TRUE(tcp::select_interfaces("lo", found, error)) << error;
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].is_loopback());
  ASSERT_TRUE(tcp::select_interfaces("127.0.0.0/8", found, error)) << error;
  EXPECT_EQ(found.size(), 1u);
  ASSERT_TRUE(tcp::select_interfaces("none", found, error));
  EXPECT_TRUE(found.empty());
  ASSERT_TRUE(tcp::select_interfaces("auto", found, error)) << error;
  EXPECT_FALSE(found.empty());  // loopback at least
  EXPECT_FALSE(tcp::select_interfaces("10.0.0.0/33", found, error));
  EXPECT_NE(error.find("TERN_TCP_IF"), std::string::npos);
  EXPECT_FALSE(tcp::select_interfaces("no-such-interface0", found, error));
  EXPECT_NE(error.find("matches no interface"), std::string::npos);
}

TEST_F(TcpTest, MessagesOfEverySizeArriveIntactAndInOrder) {
  Status status = Status::Ok;
  Ep* ep = a_->create_ep(b_->address(), status);
  ASSERT_NE(ep, nullptr);
  std::vector<std::byte> payload(a_->attr().max_short);
  const std::size_t sizes[] = {0, 1, 7, 8, 100, 4096, 65000, a_->attr().max_short};
  uint64_t sent = 0;
  for (std::size_t size : sizes) {
    fill_pattern(payload.data(), size, sent);
    ASSERT_EQ(send(ep, sent, payload.data(), size), Status::Ok);
    ++sent;
  }
  // bcopy too, packed by a callback.
  struct Pack {
    static std::size_t fill(void* dest, std::size_t capacity, void* arg) {
      const std::size_t length = std::min<std::size_t>(capacity, *static_cast<std::size_t*>(arg));
      uint64_t header = 999;
      std::memcpy(dest, &header, sizeof(header));
      fill_pattern(static_cast<std::byte*>(dest) + 8, length - 8, 999);
      return length;
    }
  };
  std::size_t bcopy_length = a_->attr().max_bcopy;
  ASSERT_EQ(ep->am_bcopy(kAmId, &Pack::fill, &bcopy_length), static_cast<ssize_t>(bcopy_length));
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == sent + 1; }));
  for (uint64_t i = 0; i < sent; ++i) {
    ASSERT_EQ(header_of(at_b_.messages[i]), i);
    ASSERT_EQ(at_b_.messages[i].size(), 8 + sizes[i]);
    EXPECT_TRUE(check_pattern(at_b_.messages[i].data() + 8, sizes[i], i)) << "message " << i;
  }
  EXPECT_EQ(header_of(at_b_.messages.back()), 999u);
  EXPECT_TRUE(check_pattern(at_b_.messages.back().data() + 8, bcopy_length - 8, 999));
  a_->destroy_ep(ep);
}

TEST_F(TcpTest, FullSocketQueuesThenBlocksAndPendingEntriesRunInOrder) {
  Status status = Status::Ok;
  Ep* ep = a_->create_ep(b_->address(), status);
  ASSERT_NE(ep, nullptr);
  ASSERT_EQ(send(ep, 0, nullptr, 0), Status::Ok);
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == 1; }));
  // Without the receiver reading, sends fill the socket, then the queue,
  // and then say WouldBlock.
  std::vector<std::byte> payload(60000);
  uint64_t sent = 1;
  Status last = Status::Ok;
  for (int i = 0; i < 100000 && last == Status::Ok; ++i) {
    fill_pattern(payload.data(), payload.size(), sent);
    last = ep->am_short(kAmId, sent, payload.data(), payload.size());
    if (last == Status::Ok) ++sent;
    a_->progress();
  }
  ASSERT_EQ(last, Status::WouldBlock);
  struct Entry {
    PendingEntry entry;
    Ep* ep;
    uint64_t header;
    std::vector<std::byte>* payload;
    bool done = false;
  };
  Entry entry{{}, ep, sent, &payload};
  entry.entry.callback = [](PendingEntry* self) {
    auto* e = reinterpret_cast<Entry*>(self);
    Status s = e->ep->am_short(kAmId, e->header, e->payload->data(), e->payload->size());
    if (s == Status::Ok) e->done = true;
    return s;
  };
  fill_pattern(payload.data(), payload.size(), sent);
  ASSERT_EQ(ep->pending_add(&entry.entry), Status::Ok);
  // Queued entries keep later sends out, so nothing overtakes them.
  EXPECT_EQ(ep->am_short(kAmId, sent + 1, nullptr, 0), Status::WouldBlock);
  ASSERT_TRUE(until([&] { return entry.done; }));
  ++sent;
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == sent; }, 60));
  for (uint64_t i = 0; i < sent; ++i) {
    ASSERT_EQ(header_of(at_b_.messages[i]), i);
    if (i > 0) {
      ASSERT_TRUE(check_pattern(at_b_.messages[i].data() + 8, payload.size(), i)) << i;
    }
  }
  a_->destroy_ep(ep);
}

TEST_F(TcpTest, SimultaneousConnectsLeaveOneWorkingConnection) {
  for (int round = 0; round < 20; ++round) {
    SetUp();  // fresh ifaces each round
    Status status = Status::Ok;
    Ep* ab = a_->create_ep(b_->address(), status);
    Ep* ba = b_->create_ep(a_->address(), status);
    ASSERT_TRUE(ab != nullptr && ba != nullptr);
    // Both send before either makes progress: both connect at once.
    for (uint64_t i = 0; i < 50; ++i) {
      ASSERT_EQ(ab->am_short(kAmId, i, &i, sizeof(i)), Status::Ok);
      ASSERT_EQ(ba->am_short(kAmId, 1000 + i, &i, sizeof(i)), Status::Ok);
    }
    ASSERT_TRUE(until([&] { return at_a_.messages.size() == 50 && at_b_.messages.size() == 50; }))
        << "round " << round << ": " << at_a_.messages.size() << " at a, " << at_b_.messages.size() << " at b";
    for (uint64_t i = 0; i < 50; ++i) {
      EXPECT_EQ(header_of(at_b_.messages[i]), i);
      EXPECT_EQ(header_of(at_a_.messages[i]), 1000 + i);
    }
    a_->destroy_ep(ab);
    b_->destroy_ep(ba);
    at_a_.messages.clear();
    at_b_.messages.clear();
  }
}

TEST_F(TcpTest, GetFromOfferedMemoryAndRefusalOfTheRest) {
  Status status = Status::Ok;
  Ep* ab = a_->create_ep(b_->address(), status);
  Ep* ba = b_->create_ep(a_->address(), status);
  ASSERT_TRUE(ab != nullptr && ba != nullptr);
  const std::size_t size = 9u << 20;  // several socket buffers
  std::vector<std::byte> source(size), destination(size);
  fill_pattern(source.data(), size, 42);
  const uint64_t key = ba->offer_zcopy(source.data(), size);
  ASSERT_NE(key, 0u);
  Done get;
  const RemoteMemory remote{reinterpret_cast<uint64_t>(source.data()), key};
  ASSERT_EQ(ab->get_zcopy(destination.data(), size, remote, &get.comp), Status::InProgress);
  ASSERT_TRUE(until([&] { return get.fired; }));
  EXPECT_EQ(get.result, Status::Ok);
  EXPECT_TRUE(check_pattern(destination.data(), size, 42));

  // A part of the offer is fine; past its end, or after withdrawal, is not.
  Done part;
  ASSERT_EQ(ab->get_zcopy(destination.data(), 100, {remote.address + 1000, key}, &part.comp), Status::InProgress);
  ASSERT_TRUE(until([&] { return part.fired; }));
  EXPECT_EQ(part.result, Status::Ok);
  Done beyond;
  ASSERT_EQ(ab->get_zcopy(destination.data(), 100, {remote.address + size - 50, key}, &beyond.comp),
            Status::InProgress);
  ASSERT_TRUE(until([&] { return beyond.fired; }));
  EXPECT_EQ(beyond.result, Status::InvalidParam);
  ba->withdraw_zcopy(key);
  Done withdrawn;
  ASSERT_EQ(ab->get_zcopy(destination.data(), 100, remote, &withdrawn.comp), Status::InProgress);
  ASSERT_TRUE(until([&] { return withdrawn.fired; }));
  EXPECT_EQ(withdrawn.result, Status::InvalidParam);
  // The connection survived the refusals.
  ASSERT_EQ(send(ab, 7, nullptr, 0), Status::Ok);
  ASSERT_TRUE(until([&] { return !at_b_.messages.empty(); }));
  a_->destroy_ep(ab);
  b_->destroy_ep(ba);
}

TEST_F(TcpTest, PutIntoRegisteredMemoryThenFlush) {
  Status status = Status::Ok;
  Ep* ab = a_->create_ep(b_->address(), status);
  Ep* ba = b_->create_ep(a_->address(), status);
  ASSERT_TRUE(ab != nullptr && ba != nullptr);
  const std::size_t size = 3u << 20;
  std::vector<std::byte> source(size), target(size);
  fill_pattern(source.data(), size, 7);
  // The target's offer stands for registered memory here.
  const uint64_t key = ba->offer_zcopy(target.data(), size);
  Done put;
  const Status issued = ab->put_zcopy(source.data(), size, {reinterpret_cast<uint64_t>(target.data()), key}, &put.comp);
  ASSERT_TRUE(issued == Status::Ok || issued == Status::InProgress);
  Done flush;
  Status flushed = ab->flush(&flush.comp);
  ASSERT_EQ(flushed, Status::InProgress);
  ASSERT_TRUE(until([&] { return flush.fired; }));
  EXPECT_EQ(flush.result, Status::Ok);
  if (issued == Status::InProgress) {
    EXPECT_TRUE(put.fired);
  }
  EXPECT_TRUE(check_pattern(target.data(), size, 7));
  // Nothing since: a flush has nothing to wait for.
  Done idle;
  EXPECT_EQ(ab->flush(&idle.comp), Status::Ok);
  a_->destroy_ep(ab);
  b_->destroy_ep(ba);
}

// A raw socket to b's listener.
int connect_raw(const Iface& iface) {
  tcp::TcpAddress address;
  if (!tcp::unpack_address(iface.address(), address)) return -1;
  return testing::connect_tcp(address.listeners[0].ip, address.listeners[0].port);
}

// True once the peer has closed `fd` (read returns 0 or an error).
bool closed_by_peer(int fd, TcpTest& test) {
  return spin_until([&] { test.progress(); },
                    [&] {
                      pollfd p{fd, POLLIN, 0};
                      if (poll(&p, 1, 0) <= 0) return false;
                      char byte;
                      return recv(fd, &byte, 1, MSG_DONTWAIT) <= 0;
                    },
                    10);
}

TEST_F(TcpTest, StrangersAndMalformedFramesAreDroppedAndNothingElse) {
  using namespace tcp;
  // 1. Junk instead of a handshake.
  int stranger = connect_raw(*b_);
  ASSERT_GE(stranger, 0);
  const char junk[] = "GET / HTTP/1.0\r\n\r\n";
  ASSERT_GT(write(stranger, junk, sizeof(junk)), 0);
  EXPECT_TRUE(closed_by_peer(stranger, *this));
  close(stranger);

  // 2. A well-formed hello with the wrong secret.
  stranger = connect_raw(*b_);
  FrameHeader header{sizeof(HandshakeBody), static_cast<uint8_t>(FrameType::Handshake), 0, 0};
  HandshakeBody hello{kHandshakeMagic, kHandshakeVersion, static_cast<uint16_t>(HandshakeKind::Hello), 0x666, {}};
  ASSERT_EQ(write(stranger, &header, sizeof(header)), static_cast<ssize_t>(sizeof(header)));
  ASSERT_EQ(write(stranger, &hello, sizeof(hello)), static_cast<ssize_t>(sizeof(hello)));
  EXPECT_TRUE(closed_by_peer(stranger, *this));
  close(stranger);

  // 3. The right secret, then frames that lie about their contents.
  TcpAddress address;
  ASSERT_TRUE(unpack_address(b_->address(), address));
  std::memcpy(hello.secret, address.secret.data(), kSecretBytes);
  const FrameHeader lies[] = {
      {8, 0, 0, 0},                                               // no such type
      {8, 42, 0, 0},                                              // no such type
      {0xfffffff0u, static_cast<uint8_t>(FrameType::Am), kAmId, 0},  // longer than any buffer
      {4, static_cast<uint8_t>(FrameType::Am), kAmId, 0},          // shorter than an AM header
      {8, static_cast<uint8_t>(FrameType::Am), 200, 0},            // handler id out of range
      {8, static_cast<uint8_t>(FrameType::GetReply), 0, 0},        // shorter than its body
  };
  for (const FrameHeader& lie : lies) {
    ++hello.worker_uuid;  // a peer whose connection failed may not come back
    stranger = connect_raw(*b_);
    ASSERT_EQ(write(stranger, &header, sizeof(header)), static_cast<ssize_t>(sizeof(header)));
    ASSERT_EQ(write(stranger, &hello, sizeof(hello)), static_cast<ssize_t>(sizeof(hello)));
    ASSERT_EQ(write(stranger, &lie, sizeof(lie)), static_cast<ssize_t>(sizeof(lie)));
    const uint64_t padding[4] = {};
    (void)!write(stranger, padding, sizeof(padding));
    EXPECT_TRUE(closed_by_peer(stranger, *this)) << "type " << int(lie.type) << " length " << lie.length;
    close(stranger);
  }
  // 4. A reply to a get that was never made.
  ++hello.worker_uuid;
  stranger = connect_raw(*b_);
  ASSERT_EQ(write(stranger, &header, sizeof(header)), static_cast<ssize_t>(sizeof(header)));
  ASSERT_EQ(write(stranger, &hello, sizeof(hello)), static_cast<ssize_t>(sizeof(hello)));
  const FrameHeader reply_header{sizeof(GetReplyBody) + 16, static_cast<uint8_t>(FrameType::GetReply), 0, 0};
  const GetReplyBody reply{0x0000000500000001ull, 0, 0};
  ASSERT_EQ(write(stranger, &reply_header, sizeof(reply_header)), static_cast<ssize_t>(sizeof(reply_header)));
  ASSERT_EQ(write(stranger, &reply, sizeof(reply)), static_cast<ssize_t>(sizeof(reply)));
  EXPECT_TRUE(closed_by_peer(stranger, *this));
  close(stranger);

  // Through all of it, b still serves its real peers and delivered nothing.
  EXPECT_TRUE(at_b_.messages.empty());
  Status status = Status::Ok;
  Ep* ab = a_->create_ep(b_->address(), status);
  ASSERT_EQ(send(ab, 11, nullptr, 0), Status::Ok);
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == 1; }));
  EXPECT_EQ(header_of(at_b_.messages[0]), 11u);
  a_->destroy_ep(ab);
}

TEST_F(TcpTest, ArmedIfaceWakesOnTraffic) {
  Status status = Status::Ok;
  Ep* ab = a_->create_ep(b_->address(), status);
  ASSERT_EQ(send(ab, 1, nullptr, 0), Status::Ok);
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == 1; }));
  ASSERT_TRUE(until([&] { return b_->arm() == Status::Ok; }));
  pollfd idle{b_->event_fd(), POLLIN, 0};
  EXPECT_EQ(poll(&idle, 1, 0), 0);
  ASSERT_EQ(ab->am_short(kAmId, 2, nullptr, 0), Status::Ok);
  pollfd woken{b_->event_fd(), POLLIN, 0};
  EXPECT_EQ(poll(&woken, 1, 5000), 1);
  EXPECT_EQ(b_->arm(), Status::Busy);
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == 2; }));
  a_->destroy_ep(ab);
}

TEST_F(TcpTest, PeerThatGoesAwayFailsOutstandingGets) {
  Status status = Status::Ok;
  Ep* ab = a_->create_ep(b_->address(), status);
  ASSERT_EQ(send(ab, 1, nullptr, 0), Status::Ok);
  ASSERT_TRUE(until([&] { return at_b_.messages.size() == 1; }));
  std::vector<std::byte> destination(1 << 20);
  Done get;
  // A key b never gave: b refuses it... unless b is gone first.
  ASSERT_EQ(ab->get_zcopy(destination.data(), destination.size(), {0x1000, 0x100000001ull}, &get.comp),
            Status::InProgress);
  b_.reset();
  ASSERT_TRUE(spin_until([&] { a_->progress(); }, [&] { return get.fired; }, 10));
  EXPECT_NE(get.result, Status::Ok);
  EXPECT_EQ(ab->am_short(kAmId, 3, nullptr, 0), Status::IoError);
  a_->destroy_ep(ab);
}

}  // namespace
}  // namespace tern::engine::transport
