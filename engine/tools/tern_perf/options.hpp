// Command line of tern_perf.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tern::engine::tools {

struct PerfOptions {
  std::size_t min_size = 0;
  std::size_t max_size = std::size_t{16} << 20;
  unsigned iterations = 0;  // 0: scaled by size (10000, 1000 from 64 KiB, 100 from 1 MiB)
  bool iterations_set = false;
  unsigned warmup = 0;      // 0 with warmup_set false: a tenth of the iterations
  bool warmup_set = false;
  unsigned window = 64;     // sends in flight per bandwidth window
  bool latency = true;
  bool bandwidth = true;
  bool floor_only = false;
  bool floor_work = false;    // also the flag ping-pong with work per message
  bool worker_memory = true;  // buffers from Worker::mem_alloc (false: malloc)
  unsigned timeout_seconds = 600;
};

// Parses argv. Returns 0 to run, 1 after printing an error, 2 after -h.
int parse_options(int argc, char** argv, PerfOptions& options);

// 0 (when in range), then the powers of two in [min, max]; a single size
// when min == max.
std::vector<std::size_t> message_sizes(const PerfOptions& options);

// Round trips (latency) for one size, and warm-up round trips.
unsigned latency_iterations(const PerfOptions& options, std::size_t size);
unsigned latency_warmup(const PerfOptions& options, std::size_t size);
// Windows (bandwidth) for one size, and warm-up windows.
unsigned bandwidth_windows(const PerfOptions& options, std::size_t size);
unsigned bandwidth_warmup(const PerfOptions& options, std::size_t size);

}  // namespace tern::engine::tools
