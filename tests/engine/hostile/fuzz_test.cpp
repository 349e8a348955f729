// Seeded random injection against every active-message handler (cells of
// random ids, lengths and header fields written into a worker's FIFO, mixed
// with real traffic and receives of every size) and against the TCP framing
// (random frames on a connection that passed the handshake). The worker
// must neither crash nor overrun anything (the suite runs this under ASan
// too) nor stop serving a well-behaved peer. A fixed time budget each:
// TERN_FUZZ_SECONDS (default 2), TERN_FUZZ_SEED to replay a run.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "../transport/transport_test_util.hpp"
#include "rogue.hpp"
#include "transport/tcp/tcp_address.hpp"
#include "transport/tcp/tcp_wire.hpp"

namespace tern::engine::hostile {
namespace {

double budget_seconds() {
  const char* text = std::getenv("TERN_FUZZ_SECONDS");
  const double seconds = text != nullptr ? std::atof(text) : 2.0;
  return seconds > 0 ? seconds : 2.0;
}

uint64_t seed() {
  const char* text = std::getenv("TERN_FUZZ_SEED");
  return text != nullptr ? std::strtoull(text, nullptr, 0) : 20;
}

// Values that sit on the edges the handlers check, and some that do not.
class Chooser {
 public:
  explicit Chooser(uint64_t seed) : random_(seed) {}

  uint64_t below(uint64_t bound) { return bound == 0 ? 0 : random_() % bound; }
  bool one_in(unsigned n) { return below(n) == 0; }
  uint64_t any() { return random_(); }
  template <typename T, std::size_t N>
  T pick(const T (&values)[N]) {
    return values[below(N)];
  }
  // A length around `near` (a payload, a buffer), or anything.
  uint64_t length(uint64_t near) {
    const uint64_t edges[] = {0, 1, 7, 8, 192, 193, near, near - 1, near + 1, near / 2, 1ull << 46, ~0ull};
    return one_in(4) ? below(1ull << 21) : pick(edges);
  }

 private:
  std::mt19937_64 random_;
};

constexpr uint64_t kTags[] = {1, 2, 3, 0x77};

struct Outstanding {
  Worker* worker;
  Request* request;
  std::vector<unsigned char>* buffer;  // a receive's, owned here
};

class Fuzz {
 public:
  Fuzz(Pair& pair, Chooser& choose) : pair_(pair), choose_(choose) {
    peer_uuid_ = uuid_of(*pair.peer_);
    target_uuid_ = uuid_of(*pair.target_);
    // Peers that replace a disconnected one stay mapped by the target until
    // the end: small ones (they receive only acknowledgements).
    runtime::Config& config = pair_.params_.config;
    config.shm_fifo_cells = 4;
    config.shm_cell_size = 4096;
    config.shm_rings = runtime::Switch::Off;
    config.shm_arena_size = 0;
  }
  ~Fuzz() {
    // Receives still posted would take the messages that come after.
    for (Outstanding& o : requests_) (void)o.worker->cancel(o.request);
    for (Outstanding& o : requests_) finish(o);
  }

  // Messages naming the peer that are malformed get it disconnected after
  // a few: a new one takes its place, so that the handlers' paths past the
  // sender check keep being reached.
  void keep_a_live_peer() {
    if (pair_.target_->peer_status(pair_.target_to_peer_) == Status::Ok || peers_replaced_ >= max_peers_) return;
    ASSERT_TRUE(pair_.replace_peer());
    peer_uuid_ = uuid_of(*pair_.peer_);
    ++peers_replaced_;
  }
  [[nodiscard]] unsigned peers_replaced() const { return peers_replaced_; }

  // A random message for the target's handlers: the id's header with
  // fields from the edges, then a payload of some length.
  std::vector<std::byte> hostile_message(uint8_t& id, std::size_t max_message) {
    const uint8_t ids[] = {tag::kAmHello,       tag::kAmEager,   tag::kAmEagerSync, tag::kAmEagerFirst,
                           tag::kAmEagerMiddle, tag::kAmRndvRts, tag::kAmSendAck};
    id = choose_.one_in(20) ? static_cast<uint8_t>(choose_.below(40)) : choose_.pick(ids);
    const uint64_t uuids[] = {peer_uuid_, peer_uuid_, target_uuid_, 0, choose_.any()};
    const uint64_t uuid = choose_.pick(uuids);
    const uint64_t ack_ids[] = {0, (1ull << 32) | 1, (2ull << 32) | 1, 0x4141414141414141ull, choose_.any()};
    const uint64_t tag = choose_.pick(kTags);
    std::size_t payload = choose_.one_in(3) ? choose_.below(64) : choose_.below(max_message);
    std::vector<std::byte> bytes;
    switch (id) {
      case tag::kAmEagerSync:
        bytes = message(tag::EagerSyncHeader{tag, uuid, choose_.pick(ack_ids)}, payload);
        break;
      case tag::kAmEagerFirst:
        bytes = message(tag::EagerFirstHeader{tag, uuid, choose_.length(payload), choose_.pick(ack_ids)}, payload);
        break;
      case tag::kAmEagerMiddle:
        bytes = message(tag::FragmentHeader{uuid}, payload);
        break;
      case tag::kAmRndvRts: {
        const uint64_t addresses[] = {0, 8, choose_.any(), reinterpret_cast<uint64_t>(&scratch_)};
        bytes = message(tag::RtsHeader{tag, uuid, choose_.pick(ack_ids), choose_.pick(addresses),
                                       choose_.length(sizeof(scratch_)), choose_.any() & 0xffff},
                        0);
        break;
      }
      case tag::kAmSendAck:
        bytes = message(tag::SendAckHeader{choose_.pick(ack_ids), uuid}, 0);
        break;
      default:
        bytes.resize(payload);
        for (std::byte& b : bytes) b = static_cast<std::byte>(choose_.below(256));
        if (bytes.size() >= 8) std::memcpy(bytes.data(), &tag, sizeof(tag));
        break;
    }
    // Cut short or padded now and then.
    if (choose_.one_in(8)) bytes.resize(choose_.below(bytes.size() + 1));
    if (bytes.size() > max_message) bytes.resize(max_message);
    return bytes;
  }

  // Real traffic and receives around the injected cells.
  void post_receive() {
    const std::size_t sizes[] = {0, 1, 64, 192, 1000, 30000, 300000};
    auto* buffer = new std::vector<unsigned char>(choose_.pick(sizes));
    Request* request = nullptr;
    const uint64_t mask = choose_.one_in(3) ? 0 : kTagMaskAll;
    const Status s =
        pair_.target_->tag_recv_nb(buffer->data(), buffer->size(), choose_.pick(kTags), mask, request, nullptr);
    if (s == Status::InProgress) {
      requests_.push_back({pair_.target_.get(), request, buffer});
    } else {
      delete buffer;
    }
  }
  void peer_sends() {
    static const std::vector<unsigned char> data(400000, 0x3c);
    const std::size_t sizes[] = {0, 8, 100, 5000, 25000, 200000, 400000};
    Request* request = nullptr;
    const Status s = pair_.peer_->tag_send_nb(pair_.peer_to_target_, data.data(), choose_.pick(sizes),
                                              choose_.pick(kTags), request, choose_.one_in(3) ? unsigned{kSendSync} : 0u);
    if (s == Status::InProgress) requests_.push_back({pair_.peer_.get(), request, nullptr});
  }
  void probe() {
    TagRecvInfo info;
    Message* message = nullptr;
    if (pair_.target_->tag_probe(choose_.pick(kTags), kTagMaskAll, info, &message) != Status::Ok) return;
    auto* buffer = new std::vector<unsigned char>(choose_.below(2000));
    Request* request = nullptr;
    if (pair_.target_->tag_msg_recv_nb(buffer->data(), buffer->size(), message, request) == Status::InProgress) {
      requests_.push_back({pair_.target_.get(), request, buffer});
    } else {
      delete buffer;
    }
  }
  // Lets go of what is done, and cancels a receive now and then.
  void reap() {
    for (std::size_t i = 0; i < requests_.size();) {
      if (requests_[i].request->done()) {
        finish(requests_[i]);
        requests_[i] = requests_.back();
        requests_.pop_back();
      } else {
        ++i;
      }
    }
    if (!requests_.empty() && choose_.one_in(4)) {
      const Outstanding& o = requests_[choose_.below(requests_.size())];
      (void)o.worker->cancel(o.request);
    }
  }

 private:
  // A receive that is not done when the test ends may still be written
  // (by a fragment, a get): its buffer must outlive the worker, so it is
  // left to the process's end.
  static void finish(Outstanding& o) {
    const bool done = o.request->done();
    o.worker->release(o.request);
    if (done) delete o.buffer;
  }

  Pair& pair_;
  Chooser& choose_;
  uint64_t peer_uuid_ = 0;
  uint64_t target_uuid_ = 0;
  std::vector<Outstanding> requests_;
  unsigned peers_replaced_ = 0;
  // About a tenth of a MiB each: a bound on what a long run keeps.
  const unsigned max_peers_ = static_cast<unsigned>(std::min(100 * budget_seconds(), 5000.0));
  std::byte scratch_[4096] = {};
};

TEST(Fuzz, RandomCellsIntoAWorkersFifo) {
  const uint64_t run_seed = seed();
  std::printf("seed %llu, %.1f s (TERN_FUZZ_SEED, TERN_FUZZ_SECONDS)\n", static_cast<unsigned long long>(run_seed),
              budget_seconds());
  Chooser choose(run_seed);
  auto pair = std::make_unique<Pair>("fuzzshm");
  ASSERT_TRUE(pair->ready());
  ShmRogue rogue(*pair->target_, pair->job_id_);
  ASSERT_TRUE(rogue.ready());
  uint64_t injected = 0;
  {
    Fuzz fuzz(*pair, choose);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(budget_seconds());
    while (std::chrono::steady_clock::now() < deadline) {
      switch (choose.below(10)) {
        case 0: fuzz.post_receive(); break;
        case 1: fuzz.peer_sends(); break;
        case 2: fuzz.probe(); break;
        case 3: fuzz.reap(); break;
        default: {
          uint8_t id = 0;
          const std::vector<std::byte> bytes = fuzz.hostile_message(id, rogue.max_message());
          if (choose.one_in(4) && bytes.size() >= 8 && bytes.size() <= 24) {
            uint64_t header;
            std::memcpy(&header, bytes.data(), sizeof(header));
            if (rogue.send_short(id, header, bytes.data() + 8, bytes.size() - 8) == Status::Ok) ++injected;
          } else if (rogue.send(id, bytes) == Status::Ok) {
            ++injected;
          }
        }
      }
      for (int i = 0; i < 3; ++i) pair->progress();
      fuzz.keep_a_live_peer();
    }
    std::printf("%llu cells injected, %llu rejected by the worker, %u peers disconnected for them\n",
                static_cast<unsigned long long>(injected),
                static_cast<unsigned long long>(pair->target_->rejected_messages()), fuzz.peers_replaced());
  }
  EXPECT_GT(injected, 100u);
  EXPECT_GT(pair->target_->rejected_messages(), 0u);

  // The worker still serves a peer that behaves.
  WorkerParams params;
  params.job_id = pair->job_id_;
  params.config.transports = "self,shm";
  std::unique_ptr<Worker> newcomer;
  ASSERT_EQ(Worker::create(params, newcomer), Status::Ok);
  Endpoint* to_target = nullptr;
  ASSERT_EQ(newcomer->connect(pair->target_->address(), to_target), Status::Ok);
  std::vector<unsigned char> sent(100000, 0x9d), received(100000);
  Request* recv = nullptr;
  ASSERT_EQ(pair->target_->tag_recv_nb(received.data(), received.size(), 0xfeed, kTagMaskAll, recv), Status::InProgress);
  Request* send = nullptr;
  const Status s = newcomer->tag_send_nb(to_target, sent.data(), sent.size(), 0xfeed, send);
  ASSERT_TRUE(s == Status::Ok || s == Status::InProgress);
  ASSERT_TRUE(pair->until([&] {
    (void)newcomer->progress();
    return recv->done() && (send == nullptr || send->done());
  }));
  EXPECT_EQ(pair->target_->wait(recv), Status::Ok);
  if (send != nullptr) {
    EXPECT_EQ(newcomer->wait(send), Status::Ok);
  }
  EXPECT_EQ(sent, received);
}

// A raw socket that passed the target's handshake.
int handshaken_socket(const Worker& target, uint64_t uuid) {
  transport::tcp::TcpAddress address;
  if (!transport::tcp::unpack_address(transport_address(target, "tcp"), address)) return -1;
  const int fd = transport::testing::connect_tcp(address.listeners[0].ip, address.listeners[0].port);
  if (fd < 0) return -1;
  using namespace transport::tcp;
  const FrameHeader header{sizeof(HandshakeBody), static_cast<uint8_t>(FrameType::Handshake), 0, 0};
  HandshakeBody hello{kHandshakeMagic, kHandshakeVersion, static_cast<uint16_t>(HandshakeKind::Hello), uuid, {}};
  std::memcpy(hello.secret, address.secret.data(), kSecretBytes);
  if (write(fd, &header, sizeof(header)) != sizeof(header) || write(fd, &hello, sizeof(hello)) != sizeof(hello)) {
    close(fd);
    return -1;
  }
  // Then the engine's hello, so that frames naming `uuid` reach the
  // handlers' paths past the sender check: an address whose tcp part names
  // this connection's worker.
  TcpAddress self = address;
  self.worker_uuid = uuid;
  const std::vector<std::byte> tcp = pack_address(self);
  const TransportAddress entry{"tcp", tcp};
  const std::vector<std::byte> worker_address = pack_worker_address(uuid, "fuzz-host", {&entry, 1});
  const FrameHeader am{static_cast<uint32_t>(worker_address.size()), static_cast<uint8_t>(FrameType::Am),
                       tag::kAmHello, 0};
  if (write(fd, &am, sizeof(am)) != sizeof(am) ||
      write(fd, worker_address.data(), worker_address.size()) != static_cast<ssize_t>(worker_address.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(Fuzz, RandomFramesOnATcpConnection) {
  using namespace transport::tcp;
  const uint64_t run_seed = seed() + 1;
  std::printf("seed %llu, %.1f s (TERN_FUZZ_SEED, TERN_FUZZ_SECONDS)\n", static_cast<unsigned long long>(run_seed),
              budget_seconds());
  Chooser choose(run_seed);
  Pair pair("fuzztcp", "self,tcp");
  ASSERT_TRUE(pair.ready());
  uint64_t uuid = 0x7e57000000000000ull;
  int fd = -1;
  unsigned connections = 0;
  uint64_t frames = 0;
  std::vector<std::byte> frame;
  std::vector<std::byte> sink(1 << 16);
  {
    // Scoped: the fuzz's receives still posted (wildcards among them) are
    // cancelled when it ends, before the checks below, which they would
    // otherwise match (the check then timed out and left its own receive
    // posted into a buffer it freed).
    Fuzz fuzz(pair, choose);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(budget_seconds());
    while (std::chrono::steady_clock::now() < deadline) {
      if (fd < 0) {
        fd = handshaken_socket(*pair.target_, ++uuid);  // a dropped peer may not come back
        ASSERT_GE(fd, 0);
        ++connections;
      }
      // A frame of a random type whose length and fields sit on the edges.
      const uint32_t bodies[] = {0, 8, 16, 24, 32, 48};
      const uint8_t type = choose.one_in(10) ? static_cast<uint8_t>(choose.below(256))
                                             : static_cast<uint8_t>(1 + choose.below(kLastFrameType));
      uint32_t length = choose.one_in(3) ? static_cast<uint32_t>(choose.below(70000)) : choose.pick(bodies);
      if (choose.one_in(50)) length = static_cast<uint32_t>(choose.any());
      const uint8_t am_id = choose.one_in(10) ? static_cast<uint8_t>(choose.below(256))
                                              : static_cast<uint8_t>(1 + choose.below(7));
      const FrameHeader header{length, type, am_id, 0};
      const std::size_t sent_body = std::min<std::size_t>(length, 70000);
      frame.assign(sizeof(header) + sent_body, std::byte{0});
      std::memcpy(frame.data(), &header, sizeof(header));
      // Words from the edges: uuids, ids, lengths, addresses.
      const uint64_t words[] = {0, 1, uuid, uuid, (1ull << 32) | 1, ~0ull, 1ull << 46, choose.any()};
      for (std::size_t at = sizeof(header); at + 8 <= frame.size(); at += 8) {
        const uint64_t word = choose.pick(words);
        std::memcpy(frame.data() + at, &word, sizeof(word));
      }
      std::size_t written = 0;
      while (written < frame.size()) {
        const ssize_t n = send(fd, frame.data() + written, frame.size() - written, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
          written += static_cast<std::size_t>(n);
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          pair.progress();
          if (std::chrono::steady_clock::now() > deadline) break;
          continue;
        }
        close(fd);  // dropped by the target: the next frame goes on a new one
        fd = -1;
        break;
      }
      ++frames;
      if (choose.one_in(4)) fuzz.peer_sends();
      if (choose.one_in(4)) fuzz.post_receive();
      if (choose.one_in(8)) fuzz.reap();
      for (int i = 0; i < 3; ++i) pair.progress();
      // Replies (to gets, flushes, atomics) are read and thrown away.
      while (fd >= 0) {
        const ssize_t n = recv(fd, sink.data(), sink.size(), MSG_DONTWAIT);
        if (n > 0) continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
          close(fd);
          fd = -1;
        }
        break;
      }
    }
  }
  if (fd >= 0) close(fd);
  std::printf("%llu frames on %u connections\n", static_cast<unsigned long long>(frames), connections);
  EXPECT_GT(connections, 1u);  // garbage ends connections
  EXPECT_EQ(pair.target_->peer_status(pair.target_to_peer_), Status::Ok);
  EXPECT_TRUE(pair.target_still_receives(100));
  EXPECT_TRUE(pair.target_still_receives(300000));
}

}  // namespace
}  // namespace tern::engine::hostile
