#include "options.hpp"

#include <getopt.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tern/runtime/config.hpp"

namespace tern::engine::tools {
namespace {

constexpr std::size_t kLargestSize = std::size_t{1} << 30;

void usage(FILE* out, const char* program) {
  std::fprintf(out,
               "Usage: %s [options]\n"
               "Tag ping-pong latency and streaming bandwidth between two processes of this\n"
               "machine through the Tern engine, next to the floor the machine allows.\n"
               "\n"
               "  -m, --sizes MIN:MAX     message sizes: 0 (if MIN is 0), then powers of two in\n"
               "                          [MIN, MAX]; K/M/G suffixes; one size N: -m N (default 0:16M)\n"
               "  -i, --iterations N      round trips (latency) per size; bandwidth uses N/10\n"
               "                          windows (default: 10000, 1000 from 64K, 100 from 1M)\n"
               "  -x, --warmup N          untimed round trips before each size (default: a tenth)\n"
               "  -w, --window N          sends in flight per bandwidth window (default 64)\n"
               "  -t, --test KIND         latency, bw or all (default all)\n"
               "      --floor-only        measure only the floor (flag ping-pong, memcpy)\n"
               "      --floor-work        also the flag ping-pong with 0..150 ns of work per message\n"
               "      --mem KIND          where buffers come from: tern (Worker::mem_alloc, which\n"
               "                          peers on the node map) or malloc (default tern)\n"
               "      --timeout SECONDS   end the run after this long (default 600)\n"
               "  -h, --help              this text\n",
               program);
}

bool parse_unsigned(const char* text, unsigned& out, unsigned min_value) {
  std::size_t value = 0;
  if (!runtime::parse_size(text, value) || value < min_value || value > 1'000'000'000) return false;
  out = static_cast<unsigned>(value);
  return true;
}

bool parse_range(const char* text, std::size_t& min_size, std::size_t& max_size) {
  const char* colon = std::strchr(text, ':');
  if (colon == nullptr) {
    if (!runtime::parse_size(text, min_size)) return false;
    max_size = min_size;
  } else {
    std::string low(text, colon);
    if (!runtime::parse_size(low.c_str(), min_size) || !runtime::parse_size(colon + 1, max_size)) return false;
  }
  return min_size <= max_size && max_size <= kLargestSize;
}

}  // namespace

int parse_options(int argc, char** argv, PerfOptions& options) {
  enum { kFloorOnly = 1000, kTimeout, kMemory, kFloorWork };
  static const option kLong[] = {
      {"sizes", required_argument, nullptr, 'm'},      {"iterations", required_argument, nullptr, 'i'},
      {"warmup", required_argument, nullptr, 'x'},     {"window", required_argument, nullptr, 'w'},
      {"test", required_argument, nullptr, 't'},       {"floor-only", no_argument, nullptr, kFloorOnly},
      {"timeout", required_argument, nullptr, kTimeout}, {"help", no_argument, nullptr, 'h'},
      {"mem", required_argument, nullptr, kMemory},
      {"floor-work", no_argument, nullptr, kFloorWork},
      {nullptr, 0, nullptr, 0}};
  const char* program = argc > 0 ? argv[0] : "tern_perf";
  auto bad = [&](const char* what, const char* value) {
    std::fprintf(stderr, "%s: invalid %s '%s' (see -h)\n", program, what, value ? value : "");
    return 1;
  };
  optind = 1;
  int c = 0;
  while ((c = getopt_long(argc, argv, "m:i:x:w:t:h", kLong, nullptr)) != -1) {
    switch (c) {
      case 'm':
        if (!parse_range(optarg, options.min_size, options.max_size)) return bad("size range", optarg);
        break;
      case 'i':
        if (!parse_unsigned(optarg, options.iterations, 1)) return bad("iteration count", optarg);
        options.iterations_set = true;
        break;
      case 'x':
        if (!parse_unsigned(optarg, options.warmup, 0)) return bad("warm-up count", optarg);
        options.warmup_set = true;
        break;
      case 'w':
        if (!parse_unsigned(optarg, options.window, 1) || options.window > 4096) return bad("window", optarg);
        break;
      case 't':
        if (std::strcmp(optarg, "latency") == 0 || std::strcmp(optarg, "lat") == 0) {
          options.latency = true;
          options.bandwidth = false;
        } else if (std::strcmp(optarg, "bw") == 0 || std::strcmp(optarg, "bandwidth") == 0) {
          options.latency = false;
          options.bandwidth = true;
        } else if (std::strcmp(optarg, "all") == 0) {
          options.latency = options.bandwidth = true;
        } else {
          return bad("test (latency, bw or all)", optarg);
        }
        break;
      case kFloorOnly: options.floor_only = true; break;
      case kFloorWork: options.floor_work = true; break;
      case kMemory:
        if (std::strcmp(optarg, "tern") == 0) options.worker_memory = true;
        else if (std::strcmp(optarg, "malloc") == 0) options.worker_memory = false;
        else return bad("memory kind (tern or malloc)", optarg);
        break;
      case kTimeout:
        if (!parse_unsigned(optarg, options.timeout_seconds, 1)) return bad("timeout", optarg);
        break;
      case 'h': usage(stdout, program); return 2;
      default: usage(stderr, program); return 1;
    }
  }
  if (optind < argc) return bad("argument", argv[optind]);
  return 0;
}

std::vector<std::size_t> message_sizes(const PerfOptions& options) {
  std::vector<std::size_t> sizes;
  if (options.min_size == options.max_size) {
    sizes.push_back(options.min_size);
    return sizes;
  }
  if (options.min_size == 0) sizes.push_back(0);
  for (std::size_t size = 1; size <= options.max_size; size *= 2) {
    if (size >= options.min_size) sizes.push_back(size);
  }
  return sizes;
}

unsigned latency_iterations(const PerfOptions& options, std::size_t size) {
  if (options.iterations_set) return options.iterations;
  if (size >= (std::size_t{1} << 20)) return 100;
  if (size >= (std::size_t{64} << 10)) return 1000;
  return 10000;
}

unsigned latency_warmup(const PerfOptions& options, std::size_t size) {
  if (options.warmup_set) return options.warmup;
  return std::max(2u, latency_iterations(options, size) / 10);
}

unsigned bandwidth_windows(const PerfOptions& options, std::size_t size) {
  return std::max(1u, latency_iterations(options, size) / 10);
}

unsigned bandwidth_warmup(const PerfOptions& options, std::size_t size) {
  if (options.warmup_set) return options.warmup == 0 ? 0 : std::max(1u, options.warmup / 10);
  return std::max(1u, latency_warmup(options, size) / 10);
}

}  // namespace tern::engine::tools
