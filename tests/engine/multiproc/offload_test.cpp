// Tag-matching offload across processes (shm device): a local sender finds
// the receive the peer posted and writes straight into it while the
// receiver runs no engine code at all; MPI's order holds between the device
// and software matching (earliest posted receive, a sender's earlier
// message still queued); cancel, truncation and a sleeping receiver.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "fork_ranks.hpp"

namespace tern::engine {
namespace {

using namespace multiproc;  // NOLINT: the shared job helpers

// The jobs below pin the device's threshold (TERN_TM_THRESH) at kThreshold,
// whatever its default: receives and sends of kLarge use the device.
constexpr std::size_t kThreshold = 64u << 10;
constexpr std::size_t kLarge = 256u << 10;
constexpr uint64_t kFullMask = ~uint64_t{0};
constexpr uint64_t kSourceOnly = 0xffffffff00000000ull;  // any user tag

int run_offload_job(const std::function<int(Context&)>& body, const std::function<void(WorkerParams&)>& tune = {}) {
  return run_job(2, body, [&](WorkerParams& params) {
    params.config.tm_threshold = kThreshold;
    if (tune) tune(params);
  });
}

int filled_while_away(Context& ctx, bool offload) {
  Worker& w = *ctx.worker;
  // Past every eager threshold: without the device, a rendezvous.
  std::vector<unsigned char> buffer(4u << 20);
  settle(ctx);
  if (ctx.rank == 1) {
    Request* recv = nullptr;
    RANK_CHECK(w.tag_recv_nb(buffer.data(), buffer.size(), make_tag(0, 9), kFullMask, recv) == Status::InProgress);
    ctx.job->barrier();  // posted
    ctx.job->barrier();  // the sender's call returned
    compute_for(20);
    // The data is in: one progress reports the device's completion.
    (void)w.progress();
    if (offload) RANK_CHECK(recv->done());
    RANK_CHECK(w.wait(recv) == Status::Ok);
    RANK_CHECK(verify(buffer.data(), buffer.size(), 11));
  } else {
    fill(buffer, buffer.size(), 11);
    ctx.job->barrier();
    Request* send = nullptr;
    const Status status = w.tag_send_nb(ctx.peers[1], buffer.data(), buffer.size(), make_tag(0, 9), send);
    // Delivered within the call through the device; a rendezvous otherwise.
    RANK_CHECK(status == (offload ? Status::Ok : Status::InProgress));
    ctx.job->barrier();
    if (send != nullptr) RANK_CHECK(w.wait(send) == Status::Ok);
  }
  return 0;
}

TEST(EngineOffload, SenderFillsAReceiveWhileTheReceiverComputes) {
  EXPECT_EQ(run_offload_job([](Context& ctx) { return filled_while_away(ctx, true); }), 0);
}

TEST(EngineOffload, WithOffloadOffTheSameSendWaitsForTheReceiver) {
  EXPECT_EQ(run_offload_job(
                [](Context& ctx) { return filled_while_away(ctx, false); },
                [](WorkerParams& params) { params.config.tm_offload = runtime::Switch::Off; }),
            0);
}

// A receiver that comes back to the library while a sender still copies a
// large message into its offloaded receive reads chunks from the back while
// the sender writes from the front; every byte lands once, in place.
int shared_copy(Context& ctx) {
  Worker& w = *ctx.worker;
  std::vector<unsigned char> buffer(24u << 20);
  settle(ctx);
  if (ctx.rank == 1) {
    Request* recv = nullptr;
    RANK_CHECK(w.tag_recv_nb(buffer.data(), buffer.size(), make_tag(0, 5), kFullMask, recv) == Status::InProgress);
    ctx.job->barrier();  // posted
    // Progress, not a blocking wait (a waiting receiver gets ordinary sends).
    while (!recv->done()) (void)w.progress();
    RANK_CHECK(w.wait(recv) == Status::Ok);
    RANK_CHECK(verify(buffer.data(), buffer.size(), 23));
  } else {
    fill(buffer, buffer.size(), 23);
    ctx.job->barrier();
    Request* send = nullptr;
    RANK_CHECK(w.tag_send_nb(ctx.peers[1], buffer.data(), buffer.size(), make_tag(0, 5), send) == Status::Ok);
  }
  ctx.job->barrier();
  return 0;
}

TEST(EngineOffload, ReceiverBackMidwayCopiesTheRestFromTheBack) {
  for (int round = 0; round < 3; ++round) EXPECT_EQ(run_offload_job(shared_copy), 0);
}

// Below TERN_TM_THRESH, a receive into memory local peers map (mem_alloc)
// still goes to the device, and the sender fills it with a plain copy; a
// receive of the same size into private memory stays in software.
int mapped_small(Context& ctx) {
  Worker& w = *ctx.worker;
  constexpr std::size_t kSmall = 32u << 10;  // under kThreshold, at TERN_TM_THRESH_MAPPED
  auto* mapped = static_cast<unsigned char*>(w.mem_alloc(kSmall));
  RANK_CHECK(mapped != nullptr);
  std::vector<unsigned char> private_buffer(kSmall);
  settle(ctx);
  for (int round = 0; round < 2; ++round) {
    const bool into_mapped = round == 0;
    unsigned char* buffer = into_mapped ? mapped : private_buffer.data();
    if (ctx.rank == 1) {
      std::fill(buffer, buffer + kSmall, 0);
      Request* recv = nullptr;
      RANK_CHECK(w.tag_recv_nb(buffer, kSmall, make_tag(0, 6), kFullMask, recv) == Status::InProgress);
      ctx.job->barrier();  // posted
      ctx.job->barrier();  // sent
      // Before any progress of ours: the device's data is in place, the
      // eager protocol's still in our FIFO. (With a progress thread, which
      // may be writing the buffer now, the buffer is read only after the wait.)
      if (w.progress_mode() == runtime::ProgressMode::Caller) {
        std::vector<unsigned char> expected(kSmall);
        fill(expected, kSmall, 31 + round);
        RANK_CHECK(std::equal(buffer, buffer + kSmall, expected.begin()) == into_mapped);
      }
      RANK_CHECK(w.wait(recv) == Status::Ok);
      RANK_CHECK(verify(buffer, kSmall, 31 + round));
    } else {
      std::vector<unsigned char> data(kSmall);
      fill(data, kSmall, 31 + round);
      ctx.job->barrier();
      Request* send = nullptr;
      const Status status = w.tag_send_nb(ctx.peers[1], data.data(), kSmall, make_tag(0, 6), send);
      RANK_CHECK(status == Status::Ok || status == Status::InProgress);
      if (send != nullptr) RANK_CHECK(w.wait(send) == Status::Ok);
      ctx.job->barrier();
    }
  }
  ctx.job->barrier();
  w.mem_free(mapped);
  return 0;
}

TEST(EngineOffload, SmallReceiveIntoMappedMemoryGoesToTheDevice) {
  EXPECT_EQ(run_offload_job(mapped_small, [](WorkerParams& params) { params.config.tm_threshold_mapped = 32u << 10; }),
            0);
}

TEST(EngineOffload, EarliestPostedReceiveWins) {
  int rc = run_offload_job([](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    std::vector<unsigned char> first(kLarge), second(kLarge), message(kLarge);
    settle(ctx);
    if (ctx.rank == 1) {
      Request* any_tag = nullptr;
      Request* tag7 = nullptr;
      RANK_CHECK(w.tag_recv_nb(first.data(), kLarge, make_tag(0, 0), kSourceOnly, any_tag) == Status::InProgress);
      RANK_CHECK(w.tag_recv_nb(second.data(), kLarge, make_tag(0, 7), kFullMask, tag7) == Status::InProgress);
      ctx.job->barrier();
      ctx.job->barrier();
      RANK_CHECK(w.wait(any_tag) == Status::Ok);
      RANK_CHECK(w.wait(tag7) == Status::Ok);
      RANK_CHECK(verify(first.data(), kLarge, 1));
      RANK_CHECK(verify(second.data(), kLarge, 2));
    } else {
      ctx.job->barrier();
      for (uint64_t seed : {1, 2}) {
        fill(message, kLarge, seed);
        RANK_CHECK(w.tag_send(ctx.peers[1], message.data(), kLarge, make_tag(0, 7)) == Status::Ok);
      }
      ctx.job->barrier();
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineOffload, SendersEarlierMessageStillQueuedIsMatchedFirst) {
  int rc = run_offload_job([](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    settle(ctx);
    if (ctx.rank == 1) {
      std::vector<unsigned char> posted(kLarge), later(kLarge);
      Request* recv = nullptr;
      RANK_CHECK(w.tag_recv_nb(posted.data(), kLarge, make_tag(0, 5), kFullMask, recv) == Status::InProgress);
      ctx.job->barrier();
      ctx.job->barrier();  // both sends were issued; nothing was read yet
      while (!recv->done()) (void)w.progress();
      // The small message, sent first, took the posted receive...
      RANK_CHECK(recv->info().length == 8);
      RANK_CHECK(w.wait(recv) == Status::Ok);
      TagRecvInfo info;
      RANK_CHECK(verify(posted.data(), 8, 3));
      // ... and the large one, sent after it, waits for the next receive.
      RANK_CHECK(w.tag_recv(later.data(), kLarge, make_tag(0, 5), kFullMask, &info) == Status::Ok);
      RANK_CHECK(info.length == kLarge);
      RANK_CHECK(verify(later.data(), kLarge, 4));
    } else {
      std::vector<unsigned char> small(8), large(kLarge);
      fill(small, 8, 3);
      fill(large, kLarge, 4);
      ctx.job->barrier();
      RANK_CHECK(w.tag_send(ctx.peers[1], small.data(), 8, make_tag(0, 5)) == Status::Ok);
      Request* send = nullptr;
      // The receiver has not read the small one: the large one may not take
      // the device's receive, which the small one matches first.
      RANK_CHECK(w.tag_send_nb(ctx.peers[1], large.data(), kLarge, make_tag(0, 5), send) == Status::InProgress);
      ctx.job->barrier();
      RANK_CHECK(w.wait(send) == Status::Ok);
    }
    return 0;
  },
  // The order rule shows only while the receiver reads nothing: its
  // progress thread would read the small message at once.
  [](WorkerParams& params) { params.progress = runtime::ProgressMode::Caller; });
  EXPECT_EQ(rc, 0);
}

TEST(EngineOffload, CancelTakesAReceiveBackUnlessASenderClaimedIt) {
  int rc = run_offload_job([](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    std::vector<unsigned char> buffer(kLarge);
    settle(ctx);
    if (ctx.rank == 1) {
      Request* canceled = nullptr;
      RANK_CHECK(w.tag_recv_nb(buffer.data(), kLarge, make_tag(0, 2), kFullMask, canceled) == Status::InProgress);
      RANK_CHECK(w.cancel(canceled) == Status::Ok);
      RANK_CHECK(w.wait(canceled) == Status::Canceled);
      Request* claimed = nullptr;
      RANK_CHECK(w.tag_recv_nb(buffer.data(), kLarge, make_tag(0, 2), kFullMask, claimed) == Status::InProgress);
      ctx.job->barrier();
      ctx.job->barrier();  // the sender filled it
      RANK_CHECK(w.cancel(claimed) != Status::Ok);
      RANK_CHECK(w.wait(claimed) == Status::Ok);
      RANK_CHECK(verify(buffer.data(), kLarge, 6));
    } else {
      fill(buffer, kLarge, 6);
      ctx.job->barrier();
      Request* send = nullptr;
      RANK_CHECK(w.tag_send_nb(ctx.peers[1], buffer.data(), kLarge, make_tag(0, 2), send) == Status::Ok);
      ctx.job->barrier();
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineOffload, LongerMessageIsTruncatedToTheReceive) {
  int rc = run_offload_job([](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    constexpr std::size_t kReceive = 100000;
    constexpr std::size_t kMessage = 200000;
    settle(ctx);
    if (ctx.rank == 1) {
      std::vector<unsigned char> buffer(kReceive + 64, 0xee);
      Request* recv = nullptr;
      RANK_CHECK(w.tag_recv_nb(buffer.data(), kReceive, make_tag(0, 4), kFullMask, recv) == Status::InProgress);
      ctx.job->barrier();
      ctx.job->barrier();
      (void)w.progress();
      RANK_CHECK(recv->done());
      RANK_CHECK(recv->info().length == kMessage);
      RANK_CHECK(w.wait(recv) == Status::Truncated);
      RANK_CHECK(verify(buffer.data(), kReceive, 8));
      RANK_CHECK(buffer[kReceive] == 0xee);  // not a byte past the receive
    } else {
      std::vector<unsigned char> message(kMessage);
      fill(message, kMessage, 8);
      ctx.job->barrier();
      Request* send = nullptr;
      RANK_CHECK(w.tag_send_nb(ctx.peers[1], message.data(), kMessage, make_tag(0, 4), send) == Status::Ok);
      ctx.job->barrier();
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineOffload, SleepingReceiverIsWokenWhenASenderFillsItsReceive) {
  int rc = run_offload_job([](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    std::vector<unsigned char> buffer(kLarge);
    settle(ctx);
    if (ctx.rank == 1) {
      Request* recv = nullptr;
      RANK_CHECK(w.tag_recv_nb(buffer.data(), kLarge, make_tag(0, 1), kFullMask, recv) == Status::InProgress);
      ctx.job->barrier();
      while (!recv->done()) {
        if (w.arm() == Status::Ok) RANK_CHECK(w.wait_event() == Status::Ok);  // only an event returns
        (void)w.progress();
      }
      RANK_CHECK(w.wait(recv) == Status::Ok);
      RANK_CHECK(verify(buffer.data(), kLarge, 12));
    } else {
      fill(buffer, kLarge, 12);
      ctx.job->barrier();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Request* send = nullptr;
      RANK_CHECK(w.tag_send_nb(ctx.peers[1], buffer.data(), kLarge, make_tag(0, 1), send) == Status::Ok);
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace tern::engine
