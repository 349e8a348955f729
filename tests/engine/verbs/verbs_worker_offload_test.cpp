// Two workers over emulated verbs with the HCA's tag matching on: the
// receiver's CPU is not needed for a tagged send to land in an offloaded
// receive, cancel works through the shadow list, a synchronous send waits
// for its match, and a seeded random mix of sends, receives (exact,
// masked, wildcard), progress and cancels delivers exactly what it
// delivers with the device off, and two senders keep their order.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tern/engine/request.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

constexpr std::size_t kOffloadFrom = 1024;
constexpr uint64_t kAllBits = ~uint64_t{0};

std::unique_ptr<Worker> make_worker(bool tag_matching) {
  WorkerParams params;
  params.config.transports = "verbs";
  params.config.verbs_emulation = runtime::Switch::On;
  params.config.tm_offload = tag_matching ? runtime::Switch::On : runtime::Switch::Off;
  params.config.tm_threshold = kOffloadFrom;
  std::unique_ptr<Worker> worker;
  EXPECT_EQ(Worker::create(params, worker), Status::Ok);
  return worker;
}

struct Pair {
  std::unique_ptr<Worker> a, b;
  Endpoint* ep = nullptr;
  explicit Pair(bool tag_matching) : a(make_worker(tag_matching)), b(make_worker(tag_matching)) {
    EXPECT_EQ(a->connect(b->address(), ep), Status::Ok);
    // The connection opens with a first message (both progress for it).
    Request* send = nullptr;
    Request* receive = nullptr;
    EXPECT_FALSE(is_error(a->tag_send_nb(ep, nullptr, 0, 1u << 30, send)));
    EXPECT_FALSE(is_error(b->tag_recv_nb(nullptr, 0, 1u << 30, kAllBits, receive)));
    EXPECT_EQ(finish(*a, send), Status::Ok);
    EXPECT_EQ(finish(*b, receive), Status::Ok);
    for (Request* request : {send, receive}) {
      if (request != nullptr) (request == send ? *a : *b).release(request);
    }
  }
  void progress(int rounds = 1) {
    for (int i = 0; i < rounds; ++i) {
      a->progress();
      b->progress();
    }
  }
  // Progresses both until `request` of `owner` ends; its status.
  Status finish(Worker& owner, Request* request) {
    if (request == nullptr) return Status::Ok;
    Status s = Status::InProgress;
    for (long spins = 0; spins < 20000000 && (s = owner.test(request)) == Status::InProgress; ++spins) progress();
    return s;
  }
};

TEST(VerbsWorkerOffload, ATaggedSendLandsWithoutTheReceiversProgress) {
  Pair pair(true);
  std::vector<uint8_t> out(4000), in(4000, 0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(i * 7 + 1);
  Request* receive = nullptr;
  ASSERT_EQ(pair.b->tag_recv_nb(in.data(), in.size(), 5, kAllBits, receive), Status::InProgress);
  Request* send = nullptr;
  ASSERT_EQ(pair.a->tag_send_nb(pair.ep, out.data(), out.size(), 5, send), Status::Ok);
  EXPECT_EQ(send, nullptr);
  for (int i = 0; i < 100; ++i) pair.a->progress();
  // b has not progressed since it posted: its HCA placed the data.
  EXPECT_EQ(in, out);
  ASSERT_EQ(pair.finish(*pair.b, receive), Status::Ok);
  EXPECT_EQ(receive->info().sender_tag, 5u);
  EXPECT_EQ(receive->info().length, out.size());
  pair.b->release(receive);
}

TEST(VerbsWorkerOffload, CancelTakesTheReceiveBackFromTheDevice) {
  Pair pair(true);
  std::vector<uint8_t> out(3000, 0x5a), first(3000, 0), second(3000, 0);
  Request* canceled = nullptr;
  ASSERT_EQ(pair.b->tag_recv_nb(first.data(), first.size(), 9, kAllBits, canceled), Status::InProgress);
  ASSERT_EQ(pair.b->cancel(canceled), Status::Ok);
  EXPECT_EQ(pair.finish(*pair.b, canceled), Status::Canceled);
  pair.b->release(canceled);
  // The device no longer holds it: the message arrives unexpected.
  Request* send = nullptr;
  ASSERT_EQ(pair.a->tag_send_nb(pair.ep, out.data(), out.size(), 9, send), Status::Ok);
  pair.progress(200);
  EXPECT_EQ(first, std::vector<uint8_t>(3000, 0));
  Request* receive = nullptr;
  const Status s = pair.b->tag_recv_nb(second.data(), second.size(), 9, kAllBits, receive);
  ASSERT_TRUE(s == Status::Ok || s == Status::InProgress);
  EXPECT_EQ(pair.finish(*pair.b, receive), Status::Ok);
  if (receive != nullptr) pair.b->release(receive);
  EXPECT_EQ(second, out);
}

TEST(VerbsWorkerOffload, ASynchronousSendWaitsForItsMatch) {
  Pair pair(true);
  std::vector<uint8_t> out(2000, 0x33), in(2000, 0);
  Request* send = nullptr;
  ASSERT_EQ(pair.a->tag_send_nb(pair.ep, out.data(), out.size(), 4, send, kSendSync), Status::InProgress);
  pair.progress(500);
  EXPECT_EQ(pair.a->test(send), Status::InProgress);  // nobody has matched it
  ASSERT_EQ(pair.b->tag_recv(in.data(), in.size(), 4, kAllBits), Status::Ok);
  EXPECT_EQ(pair.finish(*pair.a, send), Status::Ok);
  pair.a->release(send);
  EXPECT_EQ(in, out);
}

// Plays a seeded mix of operations; what each receive got, in posting order.
std::vector<std::string> play(bool tag_matching, uint32_t seed) {
  static constexpr std::size_t kSizes[] = {0, 4, 500, 1023, 1024, 3000, 8000, 8176, 8177, 20000, 70000};
  static constexpr std::size_t kBuffer = 70001;
  Pair pair(tag_matching);
  std::mt19937 random(seed);
  std::deque<std::vector<uint8_t>> out;
  std::vector<Request*> sends;
  struct Receive {
    std::vector<uint8_t> buffer = std::vector<uint8_t>(kBuffer);
    Request* request = nullptr;
    Status status = Status::InProgress;
    TagRecvInfo info{};
  };
  std::deque<Receive> receives;
  auto post = [&](uint64_t tag, uint64_t mask) {
    Receive& r = receives.emplace_back();
    r.status = pair.b->tag_recv_nb(r.buffer.data(), r.buffer.size(), tag, mask, r.request, &r.info);
  };
  auto quiesce = [&] { pair.progress(300); };
  for (int step = 0; step < 400; ++step) {
    const unsigned what = random() % 10;
    if (what < 3) {
      const std::size_t length = kSizes[random() % std::size(kSizes)];
      auto& data = out.emplace_back(length);
      for (std::size_t i = 0; i < length; ++i) data[i] = static_cast<uint8_t>(i + out.size());
      const uint32_t index = static_cast<uint32_t>(out.size());
      if (length >= sizeof(index)) std::memcpy(data.data(), &index, sizeof(index));
      Request* request = nullptr;
      const Status s = pair.a->tag_send_nb(pair.ep, data.data(), length, random() % 4, request);
      EXPECT_TRUE(s == Status::Ok || s == Status::InProgress);
      sends.push_back(request);
    } else if (what < 6) {
      const uint64_t tag = random() % 4;
      const unsigned kind = random() % 6;
      post(tag, kind == 0 ? 0 : kind == 1 ? ~uint64_t{1} : kAllBits);
    } else if (what == 6) {
      pair.a->progress();
    } else if (what == 7) {
      pair.b->progress();
    } else if (what == 8) {
      // Cancels only where both sides are idle: a cancel racing an arrival
      // may lawfully go either way, with or without the device.
      quiesce();
      for (auto it = receives.rbegin(); it != receives.rend(); ++it) {
        if (it->status != Status::InProgress) continue;
        if (pair.b->test(it->request) == Status::InProgress && pair.b->cancel(it->request) == Status::Ok) break;
      }
    }
  }
  // Every message finds a receive; surplus receives are canceled.
  quiesce();
  std::size_t open_receives = 0;
  for (Receive& r : receives) open_receives += r.status == Status::InProgress ? 1 : 0;
  for (std::size_t i = open_receives; i < sends.size(); ++i) post(0, 0);
  for (Request* send : sends) {
    EXPECT_EQ(pair.finish(*pair.a, send), Status::Ok);
    if (send != nullptr) pair.a->release(send);
  }
  quiesce();
  std::vector<std::string> got;
  for (Receive& r : receives) {
    if (r.status == Status::InProgress) {
      if (pair.b->test(r.request) == Status::InProgress) (void)pair.b->cancel(r.request);
      r.status = pair.finish(*pair.b, r.request);
      r.info = r.request->info();
      pair.b->release(r.request);
    }
    std::string line = std::string(to_string(r.status));
    if (r.status == Status::Ok) {
      uint32_t index = 0;
      if (r.info.length >= sizeof(index)) std::memcpy(&index, r.buffer.data(), sizeof(index));
      line += " tag " + std::to_string(r.info.sender_tag) + " length " + std::to_string(r.info.length) + " send " +
              std::to_string(index);
    }
    got.push_back(line);
  }
  return got;
}

// Two senders to one receiver with the device on: every receive (exact
// tags) gets a message of its tag, each sender's messages of one tag go to
// receives in the order these were posted (non-overtaking), and none is
// lost or delivered twice.
TEST(VerbsWorkerOffload, TwoSendersKeepTheirOrderThroughTheDevice) {
  static constexpr std::size_t kSizes[] = {8, 1024, 3000, 8176, 8177, 20000};
  Pair first(true);
  std::unique_ptr<Worker> other = make_worker(true);
  Endpoint* from_other = nullptr;
  ASSERT_EQ(other->connect(first.b->address(), from_other), Status::Ok);
  Worker& receiver = *first.b;
  auto progress_all = [&] {
    first.progress();
    other->progress();
  };
  std::mt19937 random(11);
  struct Sent {
    uint32_t sender;
    uint64_t tag;
  };
  std::deque<std::vector<uint8_t>> out;
  std::vector<Sent> sent;
  std::vector<std::pair<Worker*, Request*>> sends;
  struct Receive {
    std::vector<uint8_t> buffer = std::vector<uint8_t>(20001);
    uint64_t tag = 0;
    Request* request = nullptr;
    Status status = Status::InProgress;
  };
  std::deque<Receive> receives;
  for (int step = 0; step < 600; ++step) {
    const unsigned what = random() % 8;
    if (what < 3) {
      const uint32_t sender = random() % 2;
      const uint64_t tag = random() % 3;
      auto& data = out.emplace_back(kSizes[random() % std::size(kSizes)]);
      const auto index = static_cast<uint32_t>(sent.size());
      std::memcpy(data.data(), &index, sizeof(index));
      sent.push_back({sender, tag});
      Worker& worker = sender == 0 ? *first.a : *other;
      Request* request = nullptr;
      ASSERT_FALSE(is_error(worker.tag_send_nb(sender == 0 ? first.ep : from_other, data.data(), data.size(), tag,
                                               request)));
      sends.emplace_back(&worker, request);
    } else if (what < 6) {
      Receive& r = receives.emplace_back();
      r.tag = random() % 3;
      r.status = receiver.tag_recv_nb(r.buffer.data(), r.buffer.size(), r.tag, kAllBits, r.request);
    } else {
      progress_all();
    }
  }
  // One receive per message still owed, by tag.
  long owed[3] = {0, 0, 0};
  for (const Sent& s : sent) ++owed[s.tag];
  for (const Receive& r : receives) --owed[r.tag];
  for (uint64_t tag = 0; tag < 3; ++tag) {
    for (long i = 0; i < owed[tag]; ++i) {
      Receive& r = receives.emplace_back();
      r.tag = tag;
      r.status = receiver.tag_recv_nb(r.buffer.data(), r.buffer.size(), tag, kAllBits, r.request);
    }
  }
  for (auto& [worker, request] : sends) {
    Status s = Status::InProgress;
    for (long spins = 0; request != nullptr && spins < 20000000 && (s = worker->test(request)) == Status::InProgress;
         ++spins) {
      progress_all();
    }
    if (request != nullptr) {
      EXPECT_EQ(s, Status::Ok);
      worker->release(request);
    }
  }
  // Every message has arrived once its send is done; what is still posted
  // then is surplus.
  for (int round = 0; round < 2000; ++round) progress_all();
  std::vector<int> got_by(sent.size(), -1);
  for (std::size_t i = 0; i < receives.size(); ++i) {
    Receive& r = receives[i];
    if (r.status == Status::InProgress) {
      if (receiver.test(r.request) == Status::InProgress) (void)receiver.cancel(r.request);
      r.status = first.finish(receiver, r.request);
      receiver.release(r.request);
    }
    if (r.status == Status::Canceled) continue;
    ASSERT_EQ(r.status, Status::Ok) << "receive " << i;
    uint32_t index = 0;
    std::memcpy(&index, r.buffer.data(), sizeof(index));
    ASSERT_LT(index, sent.size());
    EXPECT_EQ(sent[index].tag, r.tag) << "receive " << i;
    EXPECT_EQ(got_by[index], -1) << "message " << index << " delivered twice";
    got_by[index] = static_cast<int>(i);
  }
  // Per sender and tag, messages in sending order went to receives in posting order.
  for (uint32_t sender = 0; sender < 2; ++sender) {
    for (uint64_t tag = 0; tag < 3; ++tag) {
      int previous = -1;
      for (std::size_t index = 0; index < sent.size(); ++index) {
        if (sent[index].sender != sender || sent[index].tag != tag) continue;
        EXPECT_NE(got_by[index], -1) << "message " << index << " lost";
        EXPECT_GT(got_by[index], previous) << "message " << index << " overtook an earlier one of its sender";
        previous = got_by[index];
      }
    }
  }
}

TEST(VerbsWorkerOffload, ARandomMixDeliversTheSameWithTheDeviceOnAndOff) {
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    const std::vector<std::string> off = play(false, seed);
    const std::vector<std::string> on = play(true, seed);
    ASSERT_EQ(off.size(), on.size()) << "seed " << seed;
    for (std::size_t i = 0; i < off.size(); ++i) EXPECT_EQ(off[i], on[i]) << "seed " << seed << ", receive " << i;
  }
}

}  // namespace
}  // namespace tern::engine
