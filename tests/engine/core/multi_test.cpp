// Multi-buffer transfers (multi.hpp) on one worker talking to itself: frame
// counts across the chained header, mixed sizes across the eager and fetched
// paths, wildcards, order among single sends, completion rules and bad
// input. These run in every progress mode.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "../multi_frames.hpp"
#include "self_worker_test.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

using namespace testing_frames;  // NOLINT: the shared frame helpers

class MultiTest : public SelfWorkerTest {
 protected:
  // One transfer of `count` frames, received posted first or last.
  void transfer(std::size_t count, bool post_first) {
    SCOPED_TRACE(std::to_string(count) + " frames, receive posted " + (post_first ? "first" : "last"));
    Outgoing out = make_frames(count);
    Arena arena;
    std::vector<RecvFrame> frames;
    Completed received;
    Completed sent;
    const uint64_t tag = 0xabc000 + count;
    if (post_first) {
      ASSERT_EQ(worker_->tag_recv_multi(tag, kTagMaskAll, arena.allocator(), frames, received.callback()),
                Status::InProgress);
    }
    const Status send_status = worker_->tag_send_multi(ep_, out.frames, tag, sent.callback());
    ASSERT_TRUE(send_status == Status::Ok || send_status == Status::InProgress) << to_string(send_status);
    if (!post_first) {
      ASSERT_EQ(worker_->tag_recv_multi(tag, kTagMaskAll, arena.allocator(), frames, received.callback()),
                Status::InProgress);
    }
    progress_until([&] { return received.ran() && (send_status == Status::Ok || sent.ran()); });
    EXPECT_EQ(received.status, Status::Ok);
    EXPECT_EQ(received.info.sender_tag, tag);
    const std::size_t total = out.total();
    EXPECT_EQ(received.info.length, total);
    EXPECT_EQ(arena.calls, count);
    EXPECT_TRUE(frames_match(frames, count));
    if (send_status == Status::InProgress) {
      EXPECT_EQ(sent.status, Status::Ok);
      EXPECT_EQ(sent.info.length, total);
    }
    for (int i = 0; i < 10; ++i) worker_->progress();
    EXPECT_EQ(received.calls.load(), 1);
    EXPECT_LE(sent.calls.load(), 1);
  }

};

TEST_F(MultiTest, FrameCountsAcrossTheChainedHeaderBothOrders) {
  for (std::size_t count : {0, 1, 63, 64, 65, 100, 1000}) {
    transfer(count, true);
    transfer(count, false);
  }
}

TEST_F(MultiTest, SmallFramesCompleteTheSendAtOnceLargeOnesOnTheAcknowledgement) {
  std::vector<unsigned char> small(100, 1);
  const SendFrame inline_only[] = {{small.data(), small.size()}, {small.data(), 10}};
  Completed sent;
  const Status first = worker_->tag_send_multi(ep_, inline_only, 1, sent.callback());
  // The self lane takes an 8 KiB header at once; a queued one would say InProgress.
  ASSERT_TRUE(first == Status::Ok || first == Status::InProgress);

  std::vector<unsigned char> large(4 << 20, 2);
  const SendFrame with_large[] = {{large.data(), large.size()}};
  Completed sent_large;
  ASSERT_EQ(worker_->tag_send_multi(ep_, with_large, 2, sent_large.callback()), Status::InProgress);
  for (int i = 0; i < 20; ++i) worker_->progress();
  EXPECT_FALSE(sent_large.ran()) << "the receiver has not fetched the frame yet";

  Arena arena;
  std::vector<RecvFrame> frames;
  Completed received;
  ASSERT_EQ(worker_->tag_recv_multi(2, kTagMaskAll, arena.allocator(), frames, received.callback()),
            Status::InProgress);
  progress_until([&] { return received.ran() && sent_large.ran(); });
  EXPECT_EQ(sent_large.status, Status::Ok);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(static_cast<unsigned char*>(frames[0].data)[large.size() - 1], 2);

  Completed received_small;
  std::vector<RecvFrame> small_frames;
  ASSERT_EQ(worker_->tag_recv_multi(1, kTagMaskAll, arena.allocator(), small_frames, received_small.callback()),
            Status::InProgress);
  // Arrived whole, still reported through the callback, from progress.
  if (worker_->progress_mode() == runtime::ProgressMode::Caller) {
    EXPECT_FALSE(received_small.ran());
  }
  progress_until([&] { return received_small.ran() && (first == Status::Ok || sent.ran()); });
  ASSERT_EQ(small_frames.size(), 2u);
  EXPECT_EQ(small_frames[1].size, 10u);
}

TEST_F(MultiTest, WildcardsReportTheSendersTag) {
  Outgoing a = make_frames(5, 1);
  Outgoing b = make_frames(70, 2);
  Completed sent_a;
  Completed sent_b;
  ASSERT_NE(worker_->tag_send_multi(ep_, a.frames, 0x7001, sent_a.callback()), Status::InvalidParam);
  ASSERT_NE(worker_->tag_send_multi(ep_, b.frames, 0x7002, sent_b.callback()), Status::InvalidParam);
  Arena arena;
  std::vector<RecvFrame> first;
  std::vector<RecvFrame> second;
  Completed got_first;
  Completed got_second;
  ASSERT_EQ(worker_->tag_recv_multi(0x7000, 0xff00, arena.allocator(), first, got_first.callback()),
            Status::InProgress);
  ASSERT_EQ(worker_->tag_recv_multi(0, 0, arena.allocator(), second, got_second.callback()), Status::InProgress);
  progress_until([&] { return got_first.ran() && got_second.ran(); });
  EXPECT_EQ(got_first.info.sender_tag, 0x7001u);
  EXPECT_EQ(got_second.info.sender_tag, 0x7002u);
  EXPECT_TRUE(frames_match(first, 5, 1));
  EXPECT_TRUE(frames_match(second, 70, 2));
}

// Single sends and transfers from one sender on one tag range: each posted
// receive (all with the same wildcard) takes the message sent in the same
// place, as MPI orders messages between a pair; frames never match.
TEST_F(MultiTest, InterleavedSingleSendsKeepTheirPlace) {
  for (const bool post_first : {true, false}) {
    SCOPED_TRACE(post_first ? "receives posted first" : "messages arrived first");
    constexpr int kRounds = 6;
    std::vector<Outgoing> transfers;
    for (int i = 0; i < kRounds; ++i) transfers.push_back(make_frames(static_cast<std::size_t>(30 * i + 1), i));
    std::vector<std::vector<unsigned char>> singles(kRounds);
    std::vector<std::vector<unsigned char>> single_in(kRounds);
    std::vector<std::vector<RecvFrame>> frames(kRounds);
    std::vector<Completed> sent(kRounds);
    std::vector<Completed> single_done(kRounds);
    std::vector<Completed> multi_done(kRounds);
    Arena arena;
    const auto post = [&] {
      for (int i = 0; i < kRounds; ++i) {
        single_in[i].resize(300000);
        const Status single = worker_->tag_recv_nb(single_in[i].data(), single_in[i].size(), 0x500, 0xff00,
                                                   single_done[i].callback());
        if (single == Status::Ok) Completed::record(&single_done[i], Status::Ok, {0, 0});
        ASSERT_TRUE(single == Status::Ok || single == Status::InProgress);
        ASSERT_EQ(worker_->tag_recv_multi(0x500, 0xff00, arena.allocator(), frames[i], multi_done[i].callback()),
                  Status::InProgress);
      }
    };
    if (post_first) post();
    std::vector<Request*> single_sends;
    for (int i = 0; i < kRounds; ++i) {
      // Every other single is a rendezvous-sized one.
      singles[i].assign(i % 2 == 0 ? 64 : 250000, static_cast<unsigned char>(i + 1));
      Request* request = nullptr;
      const Status s = worker_->tag_send_nb(ep_, singles[i].data(), singles[i].size(), 0x500 + i, request);
      ASSERT_TRUE(s == Status::Ok || s == Status::InProgress);
      if (request != nullptr) single_sends.push_back(request);
      const Status m = worker_->tag_send_multi(ep_, transfers[i].frames, 0x580 + i, sent[i].callback());
      if (m == Status::Ok) Completed::record(&sent[i], Status::Ok, {});
      ASSERT_TRUE(m == Status::Ok || m == Status::InProgress);
    }
    if (!post_first) post();
    for (Request* request : single_sends) EXPECT_EQ(worker_->wait(request), Status::Ok);
    progress_until([&] {
      for (int i = 0; i < kRounds; ++i) {
        if (!single_done[i].ran() || !multi_done[i].ran() || !sent[i].ran()) return false;
      }
      return true;
    });
    for (int i = 0; i < kRounds; ++i) {
      EXPECT_EQ(single_done[i].status, Status::Ok);
      EXPECT_EQ(multi_done[i].status, Status::Ok) << "transfer " << i;
      EXPECT_EQ(multi_done[i].info.sender_tag, 0x580u + i);
      EXPECT_EQ(single_in[i][0], i + 1);
      EXPECT_EQ(single_in[i][singles[i].size() - 1], i + 1);
      EXPECT_TRUE(frames_match(frames[i], static_cast<std::size_t>(30 * i + 1), i));
    }
  }
}

TEST_F(MultiTest, FailuresReachTheCallbackAndTheSenderStillCompletes) {
  // The allocator fails on the third frame.
  Outgoing out = make_frames(100);
  Arena arena;
  arena.fail_at = 2;
  std::vector<RecvFrame> frames;
  Completed received;
  Completed sent;
  ASSERT_EQ(worker_->tag_recv_multi(3, kTagMaskAll, arena.allocator(), frames, received.callback()),
            Status::InProgress);
  ASSERT_EQ(worker_->tag_send_multi(ep_, out.frames, 3, sent.callback()), Status::InProgress);
  progress_until([&] { return received.ran() && sent.ran(); });
  EXPECT_EQ(received.status, Status::NoMemory);
  EXPECT_EQ(sent.status, Status::Ok) << "acknowledged, so the sender may let go of its buffers";
  ASSERT_EQ(frames.size(), 100u);
  EXPECT_NE(frames[1].data, nullptr);
  EXPECT_EQ(frames[2].data, nullptr);

  // A plain message matched by a multi-buffer receive.
  Completed mismatched;
  ASSERT_EQ(worker_->tag_recv_multi(4, kTagMaskAll, arena.allocator(), frames, mismatched.callback()),
            Status::InProgress);
  ASSERT_EQ(worker_->tag_send(ep_, "plain", 6, 4), Status::Ok);
  progress_until([&] { return mismatched.ran(); });
  EXPECT_EQ(mismatched.status, Status::InvalidParam);
}

TEST_F(MultiTest, BadArgumentsAreRefused) {
  Arena arena;
  std::vector<RecvFrame> frames;
  Completed done;
  std::vector<unsigned char> data(10);
  const SendFrame device[] = {{data.data(), data.size(), MemoryKind::Device}};
  const SendFrame null_data[] = {{nullptr, 5}};
  EXPECT_EQ(worker_->tag_send_multi(ep_, device, 1, done.callback()), Status::Unsupported);
  EXPECT_EQ(worker_->tag_send_multi(ep_, null_data, 1, done.callback()), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_send_multi(nullptr, {}, 1, done.callback()), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_send_multi(ep_, {}, 1, Callback{}), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_recv_multi(1, kTagMaskAll, FrameAllocator{}, frames, done.callback()), Status::InvalidParam);
  EXPECT_EQ(worker_->tag_recv_multi(1, kTagMaskAll, arena.allocator(), frames, Callback{}), Status::InvalidParam);
  for (int i = 0; i < 10; ++i) worker_->progress();
  EXPECT_FALSE(done.ran());
}


// Over tcp between two workers: the frames and the chained header are
// fetched through the sender's registered offers.
TEST(MultiOverTcp, TransfersBetweenTwoWorkers) {
  std::unique_ptr<Worker> workers[2];
  for (auto& worker : workers) {
    WorkerParams params;
    params.config.transports = "tcp";
    params.config.tcp_interfaces = "lo";
    ASSERT_EQ(Worker::create(params, worker), Status::Ok);
  }
  Endpoint* ep = nullptr;
  ASSERT_EQ(workers[0]->connect(workers[1]->address(), ep), Status::Ok);
  ASSERT_STREQ(workers[0]->transport_of(ep), "tcp");
  for (std::size_t count : {0, 100, 1000}) {
    SCOPED_TRACE(std::to_string(count) + " frames");
    Outgoing out = make_frames(count, 3);
    Arena arena;
    std::vector<RecvFrame> frames;
    Completed received;
    Completed sent;
    ASSERT_EQ(workers[1]->tag_recv_multi(0, 0, arena.allocator(), frames, received.callback()), Status::InProgress);
    const Status send_status = workers[0]->tag_send_multi(ep, out.frames, 77, sent.callback());
    ASSERT_TRUE(send_status == Status::Ok || send_status == Status::InProgress);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!received.ran() || (send_status == Status::InProgress && !sent.ran())) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "timed out";
      workers[0]->progress();
      workers[1]->progress();
    }
    EXPECT_EQ(received.status, Status::Ok);
    EXPECT_EQ(received.info.sender_tag, 77u);
    EXPECT_TRUE(frames_match(frames, count, 3));
    if (send_status == Status::InProgress) {
      EXPECT_EQ(sent.status, Status::Ok);
    }
  }
}

}  // namespace
}  // namespace tern::engine
