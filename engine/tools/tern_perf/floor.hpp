// The floor a machine allows for tern_perf's two numbers, measured in the same
// two processes as the engine: a raw shared-memory flag ping-pong (what any
// shared-memory message must at least cost) and single-thread memcpy (what a
// one-copy transfer can at most reach).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tern/runtime/compiler.hpp"

namespace tern::engine::tools {

// Two flags on separate cache lines, one per direction, so each line has one
// writer. Lives in an anonymous shared mapping created before fork.
struct FlagLines {
  alignas(kCacheLine) std::atomic<uint64_t> ping{0};  // written by rank 0
  alignas(kCacheLine) std::atomic<uint64_t> pong{0};  // written by rank 1
};

class FlagPingPong {
 public:
  // Maps the flags; call before fork. Null when the mapping failed.
  [[nodiscard]] static FlagLines* map_lines() noexcept;
  // For processes not related by fork: rank 0 creates the named segment
  // (`create`), the other opens it; the name is removed by unlink_lines once
  // both have mapped it. Null on failure.
  [[nodiscard]] static FlagLines* map_named_lines(const std::string& name, bool create) noexcept;
  static void unlink_lines(const std::string& name) noexcept;
  static void unmap_lines(FlagLines* lines) noexcept;

  explicit FlagPingPong(FlagLines* lines) noexcept : lines_(lines) {}

  // One run of `iterations` round trips after `warmup` ones; both ranks call
  // it together. Rank 0 returns the half round trip in nanoseconds; rank 1
  // returns 0. The sequence numbers carry over between runs.
  // With `work_ns`, each side also spends that long after seeing the other's
  // flag before answering, as a receiver does to handle a message.
  double run(unsigned rank, unsigned iterations, unsigned warmup, unsigned work_ns = 0) noexcept;

 private:
  FlagLines* lines_;
  uint64_t sequence_ = 0;
};

// Best of `repetitions` single-thread memcpy calls of `bytes` bytes, in MB/s
// (10^6 bytes per second, counting each byte copied once). 0 on allocation failure.
[[nodiscard]] double memcpy_bandwidth(std::size_t bytes, unsigned repetitions);
// The same for the kernel's cross-memory copy (process_vm_writev, here into
// this process itself: the same page-by-page work as into a peer): what a
// transfer into memory the peer does not map (one copy by one side) can at
// most reach. 0 when the system refuses it.
[[nodiscard]] double cma_bandwidth(std::size_t bytes, unsigned repetitions);

}  // namespace tern::engine::tools
