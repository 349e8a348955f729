// A bootstrap for tests and engine tools: forks the processes of a small job
// on this machine and lets them exchange blobs (worker addresses) and meet at
// barriers through an anonymous shared mapping. Front ends use PMIx instead.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tern/runtime/status.hpp"

namespace tern::runtime {

class ForkJob {
 public:
  // Forks `size - 1` children (1 <= size <= 64); the caller becomes rank 0.
  // Returns in every process. Sets TERN_JOB_ID for the job in all of them.
  // A child that outlives `timeout_seconds` is killed by rank 0's finish().
  [[nodiscard]] static Status start(unsigned size, ForkJob& job, unsigned timeout_seconds = 60);

  ForkJob() = default;
  ~ForkJob();
  ForkJob(const ForkJob&) = delete;
  ForkJob& operator=(const ForkJob&) = delete;
  ForkJob(ForkJob&& other) noexcept;
  ForkJob& operator=(ForkJob&& other) noexcept;

  [[nodiscard]] unsigned rank() const noexcept { return rank_; }
  [[nodiscard]] unsigned size() const noexcept { return size_; }

  // Every rank contributes `mine` (at most 4 KiB); all receive every rank's blob, by rank.
  [[nodiscard]] Status allgather(std::span<const std::byte> mine, std::vector<std::vector<std::byte>>& all);
  // Spins (with sched_yield) until every rank has arrived.
  void barrier();

  // Children: exit with `exit_code` at once (_exit; no atexit handlers, so a
  // test framework in the parent is not disturbed). Rank 0: waits for every
  // child (killing them after the timeout) and returns 0 if all of them and
  // rank 0 itself (`exit_code`) succeeded, else the first non-zero code
  // (128 + signal for a killed child).
  int finish(int exit_code);

 private:
  struct Shared;

  // Rank 0: reaps children that have ended, without blocking.
  void poll_children();
  void record_exit(std::size_t child, int code);
  // Rank 0: SIGKILLs and reaps every child still running.
  void kill_children();
  // One step of a wait loop: yields the CPU; false once the job has failed
  // or passed its deadline.
  bool keep_waiting(unsigned& spins);
  void leave_failed_wait();

  Shared* shared_ = nullptr;
  unsigned rank_ = 0;
  unsigned size_ = 1;
  unsigned timeout_seconds_ = 60;
  uint64_t allgather_round_ = 0;
  std::vector<pid_t> children_;   // rank 0: child pids, by rank - 1
  std::vector<int> exit_codes_;   // rank 0: each child's exit code, -1 while running
  int first_failure_ = 0;         // rank 0: the first non-zero code seen
};

}  // namespace tern::runtime
