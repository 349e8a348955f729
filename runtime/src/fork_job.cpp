// How a ForkJob fails. Rank 0 notices a child that ended with a non-zero code
// while it waits (barrier, allgather) and marks the job aborted; ranks waiting
// in the job then stop: children exit (code 125), rank 0 returns so finish()
// can report the first failure. Once a failure is known, finish() gives the
// remaining children a second to end on their own before killing them, rather
// than the whole timeout. A child whose ForkJob is destroyed without finish()
// (a test assertion returned early) exits at once with code 126: it must not
// go on running its parent's code, such as the rest of a test suite.
#include "tern/runtime/fork_job.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::runtime {
namespace {

constexpr unsigned kMaxRanks = 64;
constexpr std::size_t kSlotBytes = 4096;
// Exit code of a child that left a wait because the job had failed elsewhere.
constexpr int kAbortedExit = 125;
// Exit code of a child whose ForkJob was destroyed without finish() (a failed
// test assertion returned early): it must not go on running the parent's code.
constexpr int kUnfinishedExit = 126;
// After the first failure the remaining ranks get this long to end on their own.
constexpr int64_t kFailureGraceNs = 1'000'000'000;

int64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int code_of(int wait_status) noexcept {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace

// Lives in an anonymous MAP_SHARED mapping made before fork, so every rank
// sees the same bytes at the same address.
struct ForkJob::Shared {
  struct alignas(kCacheLine) Slot {
    std::atomic<uint64_t> round{0};  // the allgather round whose data this holds
    uint32_t length = 0;
    alignas(kCacheLine) std::byte data[kSlotBytes];
  };

  // Barrier: the last rank to arrive resets the count and bumps the generation.
  alignas(kCacheLine) std::atomic<uint32_t> arrived{0};
  alignas(kCacheLine) std::atomic<uint64_t> generation{0};
  // Non-zero once the job has failed (a rank died, or the deadline passed):
  // waits stop instead of hanging.
  alignas(kCacheLine) std::atomic<int> aborted{0};
  int64_t deadline_ns = 0;
  pid_t parent = 0;
  Slot slots[kMaxRanks];
};

static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "shared-memory atomics must be address-free");

Status ForkJob::start(unsigned size, ForkJob& job, unsigned timeout_seconds) {
  if (size < 1 || size > kMaxRanks || timeout_seconds == 0) return Status::InvalidParam;
  job = ForkJob();

  void* memory = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    TERN_LOG(Error, "fork job: mmap of %zu bytes failed: %s", sizeof(Shared), std::strerror(errno));
    return Status::NoMemory;
  }
  Shared* shared = new (memory) Shared();
  shared->deadline_ns = now_ns() + static_cast<int64_t>(timeout_seconds) * 1'000'000'000;
  shared->parent = getpid();

  // Every rank inherits the same id, so they name shared resources alike.
  static std::atomic<unsigned> counter{0};
  std::string id = "fj" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
  if (setenv("TERN_JOB_ID", id.c_str(), 1) != 0) {
    munmap(memory, sizeof(Shared));
    return Status::NoMemory;
  }

  job.shared_ = shared;
  job.size_ = size;
  job.timeout_seconds_ = timeout_seconds;
  job.exit_codes_.assign(size - 1, -1);

  // Buffered output would otherwise be written once per process.
  std::fflush(nullptr);
  for (unsigned rank = 1; rank < size; ++rank) {
    pid_t pid = fork();
    if (pid < 0) {
      int err = errno;
      TERN_LOG(Error, "fork job: fork of rank %u failed: %s", rank, std::strerror(err));
      job.kill_children();
      munmap(memory, sizeof(Shared));
      job.shared_ = nullptr;
      job.size_ = 1;
      return Status::IoError;
    }
    if (pid == 0) {
      // Die with the parent: a crashed test must not leave ranks behind.
      // (Strictly, with the thread that forked, which is the one that owns the job.)
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != shared->parent) _exit(kAbortedExit);  // it died before prctl
      job.rank_ = rank;
      job.children_.clear();
      job.exit_codes_.clear();
      return Status::Ok;
    }
    job.children_.push_back(pid);
  }
  return Status::Ok;
}

ForkJob::~ForkJob() {
  if (shared_ == nullptr) return;
  if (rank_ != 0) _exit(kUnfinishedExit);
  kill_children();
  munmap(shared_, sizeof(Shared));
}

ForkJob::ForkJob(ForkJob&& other) noexcept { *this = std::move(other); }

ForkJob& ForkJob::operator=(ForkJob&& other) noexcept {
  if (this == &other) return *this;
  if (shared_ != nullptr) {
    if (rank_ != 0) _exit(kUnfinishedExit);
    kill_children();
    munmap(shared_, sizeof(Shared));
  }
  shared_ = other.shared_;
  rank_ = other.rank_;
  size_ = other.size_;
  timeout_seconds_ = other.timeout_seconds_;
  children_ = std::move(other.children_);
  exit_codes_ = std::move(other.exit_codes_);
  first_failure_ = other.first_failure_;
  allgather_round_ = other.allgather_round_;
  other.shared_ = nullptr;
  other.rank_ = 0;
  other.size_ = 1;
  other.children_.clear();
  other.exit_codes_.clear();
  other.first_failure_ = 0;
  other.allgather_round_ = 0;
  return *this;
}

void ForkJob::record_exit(std::size_t child, int code) {
  exit_codes_[child] = code;
  if (code != 0 && first_failure_ == 0) {
    first_failure_ = code;
    TERN_LOG(Info, "fork job: rank %zu ended with code %d", child + 1, code);
    shared_->aborted.store(code, std::memory_order_release);
  }
}

void ForkJob::poll_children() {
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (exit_codes_[i] >= 0) continue;
    int status = 0;
    pid_t pid = waitpid(children_[i], &status, WNOHANG);
    if (pid == children_[i]) record_exit(i, code_of(status));
  }
}

void ForkJob::kill_children() {
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (exit_codes_.size() > i && exit_codes_[i] >= 0) continue;
    kill(children_[i], SIGKILL);
    int status = 0;
    while (waitpid(children_[i], &status, 0) < 0 && errno == EINTR) {
    }
    if (exit_codes_.size() > i) exit_codes_[i] = code_of(status);
  }
  children_.clear();
  exit_codes_.clear();
}

bool ForkJob::keep_waiting(unsigned& spins) {
  ++spins;
  if ((spins & 15) == 0) {
    if (shared_->aborted.load(std::memory_order_acquire) != 0) return false;
    if (rank_ == 0) {
      poll_children();
      if (first_failure_ != 0) return false;
    } else if (getppid() != shared_->parent) {
      _exit(kAbortedExit);
    }
    if (now_ns() > shared_->deadline_ns) {
      int expected = 0;
      shared_->aborted.compare_exchange_strong(expected, 128 + SIGKILL, std::memory_order_acq_rel);
      return false;
    }
  }
  sched_yield();
  return true;
}

void ForkJob::leave_failed_wait() {
  // Children have nothing useful to do once the job failed; rank 0 returns so
  // that finish() can report the cause.
  if (rank_ != 0) _exit(kAbortedExit);
  TERN_LOG(Error, "fork job: a rank failed or the job timed out; leaving the wait");
}

void ForkJob::barrier() {
  if (shared_ == nullptr || size_ == 1) return;
  uint64_t generation = shared_->generation.load(std::memory_order_acquire);
  if (shared_->arrived.fetch_add(1, std::memory_order_acq_rel) == size_ - 1) {
    // Reset before publishing: a rank can only arrive at the next barrier
    // after it has seen the new generation, and so after this store.
    shared_->arrived.store(0, std::memory_order_relaxed);
    shared_->generation.store(generation + 1, std::memory_order_release);
    return;
  }
  unsigned spins = 0;
  while (shared_->generation.load(std::memory_order_acquire) == generation) {
    if (!keep_waiting(spins)) {
      leave_failed_wait();
      return;
    }
  }
}

Status ForkJob::allgather(std::span<const std::byte> mine, std::vector<std::vector<std::byte>>& all) {
  if (mine.size() > kSlotBytes) return Status::InvalidParam;
  if (shared_ == nullptr) {
    all.assign(1, std::vector<std::byte>(mine.begin(), mine.end()));
    return Status::Ok;
  }
  const uint64_t round = ++allgather_round_;
  Shared::Slot& slot = shared_->slots[rank_];
  if (!mine.empty()) std::memcpy(slot.data, mine.data(), mine.size());
  slot.length = static_cast<uint32_t>(mine.size());
  slot.round.store(round, std::memory_order_release);

  all.resize(size_);
  for (unsigned peer = 0; peer < size_; ++peer) {
    Shared::Slot& theirs = shared_->slots[peer];
    unsigned spins = 0;
    while (theirs.round.load(std::memory_order_acquire) < round) {
      if (!keep_waiting(spins)) {
        leave_failed_wait();
        return now_ns() > shared_->deadline_ns ? Status::TimedOut : Status::IoError;
      }
    }
    all[peer].assign(theirs.data, theirs.data + theirs.length);
  }
  // Nobody may overwrite its slot for the next round while a peer still reads this one.
  barrier();
  if (shared_->aborted.load(std::memory_order_acquire) != 0) return Status::IoError;
  return Status::Ok;
}

int ForkJob::finish(int exit_code) {
  if (rank_ != 0) {
    // Children leave at once: no atexit handlers, no test framework teardown.
    _exit(exit_code);
  }
  if (shared_ == nullptr) return exit_code;
  if (first_failure_ == 0 && exit_code != 0) {
    first_failure_ = exit_code;
    shared_->aborted.store(exit_code, std::memory_order_release);
  }
  int64_t deadline = shared_->deadline_ns;
  bool grace_set = false;
  for (;;) {
    poll_children();
    bool running = false;
    for (int code : exit_codes_) running |= code < 0;
    if (!running) break;
    if (first_failure_ != 0 && !grace_set) {
      // The job has failed: give the others a moment to end on their own.
      deadline = std::min(deadline, now_ns() + kFailureGraceNs);
      grace_set = true;
    }
    if (now_ns() >= deadline) {
      for (std::size_t i = 0; i < children_.size(); ++i) {
        if (exit_codes_[i] < 0) {
          if (grace_set)
            TERN_LOG(Error, "fork job: rank %zu still running after the job failed; killing it", i + 1);
          else
            TERN_LOG(Error, "fork job: rank %zu still running after %u s; killing it", i + 1, timeout_seconds_);
          kill(children_[i], SIGKILL);
        }
      }
      for (std::size_t i = 0; i < children_.size(); ++i) {
        if (exit_codes_[i] >= 0) continue;
        int status = 0;
        while (waitpid(children_[i], &status, 0) < 0 && errno == EINTR) {
        }
        record_exit(i, code_of(status));
      }
      break;
    }
    timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
  int result = first_failure_;
  children_.clear();
  exit_codes_.clear();
  munmap(shared_, sizeof(Shared));
  shared_ = nullptr;
  size_ = 1;
  first_failure_ = 0;
  allgather_round_ = 0;
  return result;
}

}  // namespace tern::runtime
