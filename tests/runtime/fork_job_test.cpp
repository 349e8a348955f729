// ForkJob: the fork-based bootstrap used by multi-process engine tests and
// tern_perf. Each test forks; children report through their exit code, and
// rank 0's finish() folds them into one result.
#include "tern/runtime/fork_job.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace tern::runtime {
namespace {

class ForkJobSizes : public ::testing::TestWithParam<unsigned> {};

// Children's gtest failures are not seen by the parent's framework, so the
// multi-rank checks report through the exit code: the first failed check's
// number, printed with the rank.
int failed(const ForkJob& job, int code, const char* what) {
  std::fprintf(stderr, "rank %u: check %d failed: %s\n", job.rank(), code, what);
  return code;
}

std::vector<std::byte> blob_for(unsigned rank, unsigned round) {
  // Lengths differ by rank and round, including empty and the full 4 KiB.
  std::size_t length = (rank * 977u + round * 131u) % 4097u;
  if (round == 2) length = 0;
  if (round == 3) length = 4096;
  std::vector<std::byte> blob(length);
  for (std::size_t i = 0; i < length; ++i) blob[i] = static_cast<std::byte>((rank * 31 + round * 7 + i) & 0xff);
  return blob;
}

// Returns 0 or the number of the first failed check.
int exercise(ForkJob& job, unsigned size) {
  if (job.size() != size) return failed(job, 10, "size");
  if (job.rank() >= size) return failed(job, 11, "rank in range");
  const char* id = std::getenv("TERN_JOB_ID");
  if (id == nullptr || std::strncmp(id, "fj", 2) != 0) return failed(job, 12, "TERN_JOB_ID set");

  // Ranks are distinct and every rank sees the same job id.
  std::vector<std::vector<std::byte>> all;
  unsigned me = job.rank();
  if (job.allgather(std::as_bytes(std::span(&me, 1)), all) != Status::Ok) return failed(job, 13, "allgather");
  if (all.size() != size) return failed(job, 14, "one blob per rank");
  std::vector<bool> seen(size, false);
  for (unsigned r = 0; r < size; ++r) {
    if (all[r].size() != sizeof(unsigned)) return failed(job, 15, "blob length");
    unsigned theirs = 0;
    std::memcpy(&theirs, all[r].data(), sizeof(theirs));
    if (theirs != r || seen[theirs]) return failed(job, 16, "distinct ranks in order");
    seen[theirs] = true;
  }
  std::string id_text(id);
  if (job.allgather(std::as_bytes(std::span(id_text.data(), id_text.size())), all) != Status::Ok)
    return failed(job, 17, "allgather of the job id");
  for (const auto& theirs : all) {
    if (std::string(reinterpret_cast<const char*>(theirs.data()), theirs.size()) != id_text)
      return failed(job, 18, "same job id everywhere");
  }

  // Many rounds back to back: no round may see another's data.
  for (unsigned round = 0; round < 50; ++round) {
    auto mine = blob_for(job.rank(), round);
    if (job.allgather(mine, all) != Status::Ok) return failed(job, 19, "allgather round");
    for (unsigned r = 0; r < size; ++r) {
      if (all[r] != blob_for(r, round)) return failed(job, 20, "allgather contents");
    }
  }
  return 0;
}

TEST_P(ForkJobSizes, RanksAndAllgather) {
  const unsigned size = GetParam();
  ForkJob job;
  ASSERT_EQ(ForkJob::start(size, job, 60), Status::Ok);
  EXPECT_EQ(job.finish(exercise(job, size)), 0);
}

TEST_P(ForkJobSizes, BarrierWaitsForTheLastRank) {
  const unsigned size = GetParam();
  // A counter outside the job's own mapping: each rank bumps it before the
  // barrier; after the barrier every rank must see all the bumps, even though
  // the last rank arrives late.
  void* memory = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  auto* counter = new (memory) std::atomic<unsigned>(0);

  ForkJob job;
  ASSERT_EQ(ForkJob::start(size, job, 60), Status::Ok);
  int result = 0;
  for (unsigned round = 1; round <= 5 && result == 0; ++round) {
    if (job.rank() == size - 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    counter->fetch_add(1, std::memory_order_acq_rel);
    job.barrier();
    if (counter->load(std::memory_order_acquire) < round * size) result = 30 + static_cast<int>(round);
    job.barrier();  // nobody starts the next round before everyone has checked
  }
  int code = job.finish(result);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(counter->load(), 5 * size);
  munmap(memory, 4096);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ForkJobSizes, ::testing::Values(1u, 2u, 3u, 4u));

TEST(ForkJob, RejectsBadSizes) {
  ForkJob job;
  EXPECT_EQ(ForkJob::start(0, job), Status::InvalidParam);
  EXPECT_EQ(ForkJob::start(65, job), Status::InvalidParam);
  EXPECT_EQ(job.size(), 1u);
  EXPECT_EQ(job.rank(), 0u);
}

TEST(ForkJob, AllgatherRejectsOversizedBlob) {
  ForkJob job;
  ASSERT_EQ(ForkJob::start(1, job), Status::Ok);
  std::vector<std::byte> big(4097);
  std::vector<std::vector<std::byte>> all;
  EXPECT_EQ(job.allgather(big, all), Status::InvalidParam);
  EXPECT_EQ(job.finish(0), 0);
}

TEST(ForkJob, JobIdsDifferBetweenJobs) {
  std::string first, second;
  {
    ForkJob job;
    ASSERT_EQ(ForkJob::start(1, job), Status::Ok);
    first = std::getenv("TERN_JOB_ID");
    EXPECT_EQ(job.finish(0), 0);
  }
  {
    ForkJob job;
    ASSERT_EQ(ForkJob::start(1, job), Status::Ok);
    second = std::getenv("TERN_JOB_ID");
    EXPECT_EQ(job.finish(0), 0);
  }
  EXPECT_NE(first, second);
  EXPECT_EQ(first.rfind("fj" + std::to_string(getpid()) + "-", 0), 0u) << first;
}

TEST(ForkJob, ChildExitCodeIsReported) {
  ForkJob job;
  ASSERT_EQ(ForkJob::start(3, job, 30), Status::Ok);
  job.barrier();
  EXPECT_EQ(job.finish(job.rank() == 2 ? 3 : 0), 3);
}

TEST(ForkJob, RankZeroCodeIsReported) {
  ForkJob job;
  ASSERT_EQ(ForkJob::start(2, job, 30), Status::Ok);
  EXPECT_EQ(job.finish(job.rank() == 0 ? 7 : 0), 7);
}

TEST(ForkJob, SignaledChildGives128PlusSignal) {
  ForkJob job;
  ASSERT_EQ(ForkJob::start(2, job, 30), Status::Ok);
  if (job.rank() == 1) kill(getpid(), SIGTERM);
  EXPECT_EQ(job.finish(0), 128 + SIGTERM);
}

TEST(ForkJob, FailedChildReleasesRankZeroFromBarrier) {
  // Rank 1 dies before the barrier; rank 0 must not hang in it until the
  // deadline, and finish() reports the child's code.
  ForkJob job;
  ASSERT_EQ(ForkJob::start(2, job, 60), Status::Ok);
  if (job.rank() == 1) job.finish(4);
  auto begin = std::chrono::steady_clock::now();
  job.barrier();
  EXPECT_EQ(job.finish(0), 4);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10));
}

TEST(ForkJob, HungChildIsKilledAtTheTimeout) {
  ForkJob job;
  ASSERT_EQ(ForkJob::start(2, job, 2), Status::Ok);
  if (job.rank() == 1) {
    for (;;) pause();
  }
  auto begin = std::chrono::steady_clock::now();
  EXPECT_EQ(job.finish(0), 128 + SIGKILL);
  auto elapsed = std::chrono::steady_clock::now() - begin;
  EXPECT_GE(elapsed, std::chrono::milliseconds(1500));
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

TEST(ForkJob, DestroyingAnUnfinishedJobKillsTheChildren) {
  auto begin = std::chrono::steady_clock::now();
  {
    ForkJob job;
    ASSERT_EQ(ForkJob::start(3, job, 60), Status::Ok);
    if (job.rank() != 0) {
      for (;;) pause();
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10));
  // Nothing left to reap: the destructor reaped the children it killed.
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(ForkJob, MoveKeepsTheJob) {
  ForkJob first;
  ASSERT_EQ(ForkJob::start(2, first, 30), Status::Ok);
  ForkJob second(std::move(first));
  EXPECT_EQ(first.size(), 1u);
  EXPECT_EQ(second.size(), 2u);
  std::vector<std::vector<std::byte>> all;
  unsigned me = second.rank();
  EXPECT_EQ(second.allgather(std::as_bytes(std::span(&me, 1)), all), Status::Ok);
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(second.finish(::testing::Test::HasFailure() ? 1 : 0), 0);
}

}  // namespace
}  // namespace tern::runtime
