// What the multi-process engine tests share: a job of forked ranks whose
// workers are all connected (shm between ranks), checks that end the whole
// job on failure, and patterned buffers. A child's failure is its exit
// code, gathered by rank 0.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tern/engine/worker.hpp"
#include "tern/runtime/fork_job.hpp"

namespace tern::engine::multiproc {

using runtime::ForkJob;


constexpr uint64_t kAnySourceAnyTag = 0;  // mask: match everything
constexpr unsigned kTimeoutSeconds = 90;

// Forked ranks cannot use gtest assertions (a failed ASSERT would return
// into a copy of the test runner). A failed check prints and kills the whole
// job (its own process group) at once, so no peer waits for it forever.
#define RANK_CHECK(cond)                                                                        \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "rank %u: check failed at %s:%d: %s\n", ctx.rank, __FILE__, __LINE__, \
                   #cond);                                                                      \
      std::fflush(stderr);                                                                      \
      kill(0, SIGKILL);                                                                         \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

struct Context {
  unsigned rank = 0;
  unsigned size = 0;
  ForkJob* job = nullptr;
  std::unique_ptr<Worker> worker;
  std::vector<Endpoint*> peers;  // by rank
};

inline uint64_t make_tag(unsigned source, uint32_t user_tag) { return (uint64_t{source} << 32) | user_tag; }

inline unsigned char pattern_byte(uint64_t seed, std::size_t i) {
  return static_cast<unsigned char>((seed * 2654435761u + i * 131 + (i >> 9)) & 0xff);
}

inline void fill(std::vector<unsigned char>& buffer, std::size_t length, uint64_t seed) {
  for (std::size_t i = 0; i < length; ++i) buffer[i] = pattern_byte(seed, i);
}

inline bool verify(const unsigned char* buffer, std::size_t length, uint64_t seed) {
  for (std::size_t i = 0; i < length; ++i) {
    if (buffer[i] != pattern_byte(seed, i)) {
      std::fprintf(stderr, "data mismatch at byte %zu of %zu (seed %llu)\n", i, length,
                   static_cast<unsigned long long>(seed));
      return false;
    }
  }
  return true;
}

// Both ranks read everything connecting sent (hellos), so that a sender's
// earlier messages cannot hold it off a tag device. After the first barrier
// every hello is out (a rank sends them before it gets here), so the
// progress between the two reads them all, however late a loaded machine
// ran the peer.
inline void settle(Context& ctx) {
  for (int pass = 0; pass < 2; ++pass) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(pass == 0 ? 50 : 5);
    do {
      (void)ctx.worker->progress();
    } while (std::chrono::steady_clock::now() < until);
    ctx.job->barrier();
  }
}

// Busy for `ms` without entering the engine: the rank is away computing.
inline void compute_for(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile unsigned sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
}

inline int run_ranks(unsigned size, const std::function<int(Context&)>& body,
                     const std::function<void(WorkerParams&)>& tune);

// Runs a job of `size` ranks in its own process group, away from the test
// runner, and returns its exit status (128 + signal when killed; 124 when it
// outlived the timeout).
inline int run_job(unsigned size, const std::function<int(Context&)>& body,
            const std::function<void(WorkerParams&)>& tune = {}) {
  std::fflush(nullptr);
  pid_t leader = fork();
  if (leader < 0) return 99;
  if (leader == 0) {
    setpgid(0, 0);
    _exit(run_ranks(size, body, tune));
  }
  setpgid(leader, leader);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutSeconds);
  int status = 0;
  while (waitpid(leader, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-leader, SIGKILL);
      waitpid(leader, &status, 0);
      return 124;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-leader, SIGKILL);  // stragglers of a failed job
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// In the job leader: forks the other ranks, connects every worker to every
// other, runs `body` and returns the combined exit code (children never return).
inline int run_ranks(unsigned size, const std::function<int(Context&)>& body,
                     const std::function<void(WorkerParams&)>& tune) {
  ForkJob job;
  if (ForkJob::start(size, job, kTimeoutSeconds) != Status::Ok) return 99;
  Context ctx;
  ctx.rank = job.rank();
  ctx.size = job.size();
  ctx.job = &job;
  int rc = [&]() -> int {
    WorkerParams params;
    params.local_peers = size - 1;
    if (tune) tune(params);
    RANK_CHECK(Worker::create(params, ctx.worker) == Status::Ok);
    std::vector<std::vector<std::byte>> addresses;
    std::vector<std::byte> mine(ctx.worker->address().begin(), ctx.worker->address().end());
    RANK_CHECK(job.allgather(mine, addresses) == Status::Ok);
    ctx.peers.resize(size);
    for (unsigned r = 0; r < size; ++r) {
      RANK_CHECK(ctx.worker->connect(addresses[r], ctx.peers[r]) == Status::Ok);
      RANK_CHECK(std::strcmp(ctx.worker->transport_of(ctx.peers[r]), r == ctx.rank ? "self" : "shm") == 0);
    }
    job.barrier();
    int result = body(ctx);
    // Keep serving peers (acks, gets) until everyone is done.
    job.barrier();
    ctx.worker.reset();
    return result;
  }();
  return job.finish(rc);
}

}  // namespace tern::engine::multiproc
