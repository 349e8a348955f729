#include "floor.hpp"

#include <sched.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tern::engine::tools {
namespace {

using Clock = std::chrono::steady_clock;

// Spins until `flag` reaches `value`. Yields now and then, so that two ranks
// sharing one CPU still make progress (with a CPU each, it never gets there).
inline void wait_for(const std::atomic<uint64_t>& flag, uint64_t value) noexcept {
  unsigned spins = 0;
  while (flag.load(std::memory_order_acquire) != value) {
    cpu_relax();
    if (++spins == 256) {
      spins = 0;
      sched_yield();
    }
  }
}

}  // namespace

FlagLines* FlagPingPong::map_lines() noexcept {
  void* memory = mmap(nullptr, sizeof(FlagLines), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  return new (memory) FlagLines();
}

FlagLines* FlagPingPong::map_named_lines(const std::string& name, bool create) noexcept {
  const int fd = shm_open(name.c_str(), create ? (O_RDWR | O_CREAT | O_EXCL) : O_RDWR, 0600);
  if (fd < 0) return nullptr;
  if (create && ftruncate(fd, sizeof(FlagLines)) != 0) {
    close(fd);
    shm_unlink(name.c_str());
    return nullptr;
  }
  void* memory = mmap(nullptr, sizeof(FlagLines), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (memory == MAP_FAILED) return nullptr;
  return create ? new (memory) FlagLines() : static_cast<FlagLines*>(memory);
}

void FlagPingPong::unlink_lines(const std::string& name) noexcept { shm_unlink(name.c_str()); }

void FlagPingPong::unmap_lines(FlagLines* lines) noexcept {
  if (lines != nullptr) munmap(lines, sizeof(FlagLines));
}

double FlagPingPong::run(unsigned rank, unsigned iterations, unsigned warmup, unsigned work_ns) noexcept {
  auto work = [work_ns] {
    if (work_ns == 0) return;
    const Clock::time_point until = Clock::now() + std::chrono::nanoseconds(work_ns);
    while (Clock::now() < until) {
    }
  };
  const uint64_t total = uint64_t{iterations} + warmup;
  Clock::time_point begin = Clock::now();
  for (uint64_t i = 1; i <= total; ++i) {
    const uint64_t sequence = sequence_ + i;
    if (rank == 0) {
      if (i == uint64_t{warmup} + 1) begin = Clock::now();
      lines_->ping.store(sequence, std::memory_order_release);
      wait_for(lines_->pong, sequence);
      work();
    } else {
      wait_for(lines_->ping, sequence);
      work();
      lines_->pong.store(sequence, std::memory_order_release);
    }
  }
  const Clock::time_point end = Clock::now();
  sequence_ += total;
  if (rank != 0 || iterations == 0) return 0;
  return std::chrono::duration<double, std::nano>(end - begin).count() / (2.0 * iterations);
}

namespace {

// Best of `repetitions` calls of copy(dest, source, bytes) after one to warm
// up, in MB/s; 0 when an allocation or a copy fails.
template <typename Copy>
double copy_bandwidth(std::size_t bytes, unsigned repetitions, Copy&& copy) {
  if (bytes == 0 || repetitions == 0) return 0;
  const std::size_t rounded = align_up(bytes, 4096);
  auto* source = static_cast<unsigned char*>(std::aligned_alloc(4096, rounded));
  auto* dest = static_cast<unsigned char*>(std::aligned_alloc(4096, rounded));
  if (source == nullptr || dest == nullptr) {
    std::free(source);
    std::free(dest);
    return 0;
  }
  // Fault every page in before timing.
  for (std::size_t i = 0; i < bytes; ++i) source[i] = static_cast<unsigned char>(i * 7 + 1);
  std::memset(dest, 0, bytes);

  double best_ns = 0;
  bool copied = true;
  for (unsigned r = 0; r < repetitions + 1 && copied; ++r) {  // the first run warms caches and TLB
    const Clock::time_point begin = Clock::now();
    copied = copy(dest, source, bytes);
    // Keep the compiler from dropping or moving the copy.
    asm volatile("" : : "r"(dest), "r"(source) : "memory");
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - begin).count();
    if (r > 0 && (best_ns == 0 || ns < best_ns)) best_ns = ns;
  }
  const bool intact = copied && dest[bytes - 1] == source[bytes - 1];
  std::free(source);
  std::free(dest);
  if (!intact || best_ns <= 0) return 0;
  return static_cast<double>(bytes) / best_ns * 1e3;  // bytes/ns * 1e9 / 1e6
}

}  // namespace

double memcpy_bandwidth(std::size_t bytes, unsigned repetitions) {
  return copy_bandwidth(bytes, repetitions, [](void* dest, const void* source, std::size_t n) {
    std::memcpy(dest, source, n);
    return true;
  });
}

double cma_bandwidth(std::size_t bytes, unsigned repetitions) {
  return copy_bandwidth(bytes, repetitions, [](void* dest, const void* source, std::size_t n) {
    const iovec local{const_cast<void*>(source), n};
    const iovec remote{dest, n};
    return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
  });
}

}  // namespace tern::engine::tools
