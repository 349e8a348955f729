// Asynchronous progress across processes: with a progress thread
// (TERN_PROGRESS=thread|thread-blocking) a receiver that posted a large
// receive and went away computing still answers the sender's rendezvous, so
// the sender's wait ends while the receiver computes; progressed only by its
// caller, the receiver answers once it calls the engine again. Both halves
// are asserted, so the test shows the thread is what moves the message.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "fork_ranks.hpp"

namespace tern::engine {
namespace {

using namespace multiproc;  // NOLINT: the shared job helpers

constexpr std::size_t kMessage = 4u << 20;
constexpr int kComputeMs = 200;
constexpr uint32_t kReadyTag = 1;
constexpr uint32_t kDataTag = 2;
constexpr uint32_t kClockTag = 3;

int64_t now_ns() {
  // steady_clock is CLOCK_MONOTONIC, one clock for every process of the host.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Rank 1 posts the receive, tells rank 0, and computes; rank 0 then sends
// and waits. Rank 0 learns when rank 1's computing ended and checks its own
// wait ended before that (`expect_async`) or not.
int send_while_receiver_computes(Context& ctx, bool expect_async) {
  Worker& w = *ctx.worker;
  std::vector<unsigned char> data(kMessage);
  uint64_t word = 0;
  settle(ctx);
  if (ctx.rank == 1) {
    Request* recv = nullptr;
    RANK_CHECK(w.tag_recv_nb(data.data(), kMessage, make_tag(0, kDataTag), kTagMaskAll, recv) == Status::InProgress);
    RANK_CHECK(w.tag_send(ctx.peers[0], &word, sizeof(word), make_tag(1, kReadyTag)) == Status::Ok);
    compute_for(kComputeMs);
    const int64_t computed_until = now_ns();
    RANK_CHECK(w.wait(recv) == Status::Ok);
    RANK_CHECK(verify(data.data(), kMessage, 21));
    RANK_CHECK(w.tag_send(ctx.peers[0], &computed_until, sizeof(computed_until), make_tag(1, kClockTag)) ==
               Status::Ok);
  } else {
    fill(data, kMessage, 21);
    RANK_CHECK(w.tag_recv(&word, sizeof(word), make_tag(1, kReadyTag), kTagMaskAll) == Status::Ok);
    const int64_t started = now_ns();
    RANK_CHECK(w.tag_send(ctx.peers[1], data.data(), kMessage, make_tag(0, kDataTag)) == Status::Ok);
    const int64_t sent = now_ns();
    int64_t computed_until = 0;
    RANK_CHECK(w.tag_recv(&computed_until, sizeof(computed_until), make_tag(1, kClockTag), kTagMaskAll) ==
               Status::Ok);
    std::fprintf(stderr, "progress %s: the 4 MiB send took %.1f ms; it ended %.1f ms %s the receiver's computing\n",
                 runtime::to_string(w.progress_mode()), static_cast<double>(sent - started) / 1e6,
                 static_cast<double>(sent > computed_until ? sent - computed_until : computed_until - sent) / 1e6,
                 sent > computed_until ? "after" : "before");
    if (expect_async) {
      RANK_CHECK(sent < computed_until);
    } else {
      RANK_CHECK(sent >= computed_until);
    }
  }
  return 0;
}

// The receiver's CPU is the only way to the data: no tag device that a
// sender could fill by itself, and a rendezvous whatever the protocol meter
// would pick. Waits sleep: a progress thread makes the job oversubscribed
// on small machines.
std::function<void(WorkerParams&)> tune(runtime::ProgressMode mode) {
  return [mode](WorkerParams& params) {
    params.progress = mode;
    params.config.tm_offload = runtime::Switch::Off;
    params.config.rndv_threshold = 64u << 10;
    params.config.wait_mode = runtime::WaitMode::Block;
  };
}

// Parameterized over the progress modes (the UCXX habit): whether the
// sender's wait ends while the receiver computes.
struct ModeCase {
  runtime::ProgressMode mode;
  bool completes_while_computing;
};

// Names the case by its mode (ctest's test names carry it).
void PrintTo(const ModeCase& param, std::ostream* out) { *out << runtime::to_string(param.mode); }

class EngineProgressModes : public ::testing::TestWithParam<ModeCase> {};

TEST_P(EngineProgressModes, SenderWaitEndsWhileTheReceiverComputesOnlyWithAThread) {
  const ModeCase param = GetParam();
  EXPECT_EQ(run_job(
                2, [&](Context& ctx) { return send_while_receiver_computes(ctx, param.completes_while_computing); },
                tune(param.mode)),
            0);
}

INSTANTIATE_TEST_SUITE_P(Modes, EngineProgressModes,
                         ::testing::Values(ModeCase{runtime::ProgressMode::Caller, false},
                                           ModeCase{runtime::ProgressMode::ThreadBlocking, true},
                                           ModeCase{runtime::ProgressMode::Thread, true}),
                         [](const ::testing::TestParamInfo<ModeCase>& info) {
                           switch (info.param.mode) {
                             case runtime::ProgressMode::Thread: return std::string("Thread");
                             case runtime::ProgressMode::ThreadBlocking: return std::string("ThreadBlocking");
                             case runtime::ProgressMode::Caller: break;
                           }
                           return std::string("Caller");
                         });

std::unique_ptr<Worker> loopback_worker(runtime::ProgressMode mode) {
  WorkerParams params;
  params.config.transports = "self";
  params.progress = mode;
  std::unique_ptr<Worker> worker;
  EXPECT_EQ(Worker::create(params, worker), Status::Ok);
  return worker;
}

// An idle worker's blocking thread sleeps: over 200 ms it uses next to no
// CPU (a polling one would use all of it).
TEST(EngineProgress, IdleBlockingProgressThreadCostsNoCpu) {
  std::unique_ptr<Worker> worker = loopback_worker(runtime::ProgressMode::ThreadBlocking);
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->progress_mode(), runtime::ProgressMode::ThreadBlocking);
  const std::clock_t cpu_before = std::clock();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_before) / CLOCKS_PER_SEC;
  EXPECT_LT(cpu_ms, 20.0);
  worker.reset();  // stops and joins the thread
}

// The thread is stopped and joined with the worker also while it is busy
// with traffic the caller posted and never waited for.
TEST(EngineProgress, WorkerWithAThreadIsDestroyedInAnyState) {
  for (runtime::ProgressMode mode : {runtime::ProgressMode::Thread, runtime::ProgressMode::ThreadBlocking}) {
    for (int round = 0; round < 20; ++round) {
      std::unique_ptr<Worker> worker = loopback_worker(mode);
      ASSERT_NE(worker, nullptr);
      Endpoint* self = nullptr;
      ASSERT_EQ(worker->connect(worker->address(), self), Status::Ok);
      int value = round;
      Request* send = nullptr;
      Status status = worker->tag_send_nb(self, &value, sizeof(value), 9, send);
      ASSERT_TRUE(status == Status::Ok || status == Status::InProgress);
      if (round % 2 == 0) {
        int got = -1;
        ASSERT_EQ(worker->tag_recv(&got, sizeof(got), 9, kTagMaskAll), Status::Ok);
        EXPECT_EQ(got, round);
      }
      if (send != nullptr) {
        EXPECT_EQ(worker->wait(send), Status::Ok);
      }
      worker.reset();
    }
  }
}

}  // namespace
}  // namespace tern::engine
