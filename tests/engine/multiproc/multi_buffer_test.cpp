// Multi-buffer transfers between two processes (shm: frames fetched by CMA
// or with the sender's help, the chained header fetched the same way), both
// ranks sending to each other at once, single sends interleaved on the same
// wildcard, receives posted before and after the messages arrive.
#include <gtest/gtest.h>

#include <vector>

#include "../multi_frames.hpp"
#include "fork_ranks.hpp"
#include "tern/engine/worker.hpp"

namespace tern::engine {
namespace {

using namespace multiproc;      // NOLINT: the shared job helpers
using namespace testing_frames;  // NOLINT: the shared frame helpers

constexpr std::size_t kCounts[] = {0, 1, 100, 1000, 3};
constexpr std::size_t kRounds = sizeof(kCounts) / sizeof(kCounts[0]);

// Each rank sends, per round, a single message then a transfer; the peer
// takes them with one wildcard, alternating plain and multi-buffer receives.
int exchange(Context& ctx, bool post_first) {
  Worker& w = *ctx.worker;
  const unsigned peer = 1 - ctx.rank;
  std::vector<Outgoing> transfers;
  for (std::size_t i = 0; i < kRounds; ++i) transfers.push_back(make_frames(kCounts[i], i + ctx.rank));
  std::vector<std::vector<unsigned char>> singles(kRounds);
  std::vector<std::vector<unsigned char>> single_in(kRounds, std::vector<unsigned char>(300000));
  std::vector<std::vector<RecvFrame>> frames(kRounds);
  std::vector<Completed> sent(kRounds);
  std::vector<Completed> single_done(kRounds);
  std::vector<Completed> multi_done(kRounds);
  Arena arena;
  const uint64_t from_peer = make_tag(peer, 0);
  const uint64_t peer_mask = ~uint64_t{0xffffffff};  // any tag from the peer
  const auto post = [&]() -> int {
    for (std::size_t i = 0; i < kRounds; ++i) {
      const Status s = w.tag_recv_nb(single_in[i].data(), single_in[i].size(), from_peer, peer_mask,
                                     Callback{&Completed::record, &single_done[i]});
      if (s == Status::Ok) Completed::record(&single_done[i], Status::Ok, {});
      RANK_CHECK(s == Status::Ok || s == Status::InProgress);
      RANK_CHECK(w.tag_recv_multi(from_peer, peer_mask, arena.allocator(), frames[i],
                                  Callback{&Completed::record, &multi_done[i]}) == Status::InProgress);
    }
    return 0;
  };
  if (post_first && post() != 0) return 1;
  ctx.job->barrier();
  std::vector<Request*> single_sends;
  for (std::size_t i = 0; i < kRounds; ++i) {
    singles[i].assign(i % 2 == 0 ? 64 : 250000, static_cast<unsigned char>(i + 1));
    Request* request = nullptr;
    const Status s = w.tag_send_nb(ctx.peers[peer], singles[i].data(), singles[i].size(),
                                   make_tag(ctx.rank, static_cast<uint32_t>(i)), request);
    RANK_CHECK(s == Status::Ok || s == Status::InProgress);
    if (request != nullptr) single_sends.push_back(request);
    const Status m = w.tag_send_multi(ctx.peers[peer], transfers[i].frames,
                                      make_tag(ctx.rank, static_cast<uint32_t>(0x100 + i)),
                                      Callback{&Completed::record, &sent[i]});
    if (m == Status::Ok) Completed::record(&sent[i], Status::Ok, {});
    RANK_CHECK(m == Status::Ok || m == Status::InProgress);
  }
  if (!post_first) {
    // Let the peer's messages arrive unexpected first.
    compute_for(20);
    if (post() != 0) return 1;
  }
  for (Request* request : single_sends) RANK_CHECK(w.wait(request) == Status::Ok);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    bool all = true;
    for (std::size_t i = 0; i < kRounds; ++i) all = all && single_done[i].ran() && multi_done[i].ran() && sent[i].ran();
    if (all) break;
    RANK_CHECK(std::chrono::steady_clock::now() < deadline);
    (void)w.progress();
  }
  for (std::size_t i = 0; i < kRounds; ++i) {
    RANK_CHECK(single_done[i].status == Status::Ok && sent[i].status == Status::Ok);
    RANK_CHECK(multi_done[i].status == Status::Ok);
    RANK_CHECK(multi_done[i].info.sender_tag == make_tag(peer, static_cast<uint32_t>(0x100 + i)));
    RANK_CHECK(multi_done[i].info.length == make_frames(kCounts[i], i + peer).total());
    RANK_CHECK(frames_match(frames[i], kCounts[i], i + peer));
    const std::size_t single_length = i % 2 == 0 ? 64 : 250000;
    RANK_CHECK(single_in[i][0] == i + 1 && single_in[i][single_length - 1] == i + 1);
  }
  return 0;
}

TEST(EngineMultiBuffer, BothWaysInterleavedReceivesPostedFirst) {
  EXPECT_EQ(run_job(2, [](Context& ctx) { return exchange(ctx, true); }), 0);
}

TEST(EngineMultiBuffer, BothWaysInterleavedMessagesArrivedFirst) {
  EXPECT_EQ(run_job(2, [](Context& ctx) { return exchange(ctx, false); }), 0);
}

}  // namespace
}  // namespace tern::engine
