// tern_perf: tag ping-pong latency and streaming bandwidth between two
// processes of this machine through the public engine API, printed next to
// the floor the machine allows, measured in the same two processes.
//
// Latency: rank 0 sends, rank 1 receives and sends the same bytes back;
// half the average round trip. Bandwidth (like osu_bw): rank 0 keeps a window
// of non-blocking sends in flight, rank 1 pre-posts as many receives and
// answers each window with a zero-byte ack; bytes sent / time at rank 0.
// The first and the last round trip (and window) of every size are checked
// byte for byte; a mismatch ends the run with a non-zero exit.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "floor.hpp"
#include "group.hpp"
#include "options.hpp"
#include "tern/engine/worker.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/fork_job.hpp"

namespace tern::engine::tools {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kTagLatency = 0x7e40'0000'0000'0001;
constexpr uint64_t kTagData = 0x7e40'0000'0000'0002;
constexpr uint64_t kTagAck = 0x7e40'0000'0000'0003;
constexpr uint64_t kTagSync = 0x7e40'0000'0000'0004;

constexpr std::size_t kLatencyGoalSize = 8;
constexpr std::size_t kBandwidthGoalSize = std::size_t{4} << 20;
constexpr double kLatencyGoal = 1.5;
constexpr double kBandwidthGoal = 0.8;

// Several short runs, best kept: a floor is what a quiet moment allows.
constexpr unsigned kFlagRuns = 10;
constexpr unsigned kGoalRounds = 7;
constexpr unsigned kFlagIterations = 10000;
constexpr unsigned kFlagWarmup = 1000;
constexpr std::size_t kMemcpyBytes = std::size_t{4} << 20;
constexpr unsigned kMemcpyRepetitions = 20;
// The kernel copy's floor at the size from which offloaded receives of
// ordinary memory are filled by it (osu_overlap's 64 KiB).
constexpr std::size_t kCmaSmallBytes = std::size_t{64} << 10;

double elapsed_ns(Clock::time_point begin, Clock::time_point end) {
  return std::chrono::duration<double, std::nano>(end - begin).count();
}

// --- Rank 0 watches rank 1: if it ends early (a failed check, a crash),
// rank 0 would otherwise wait in the engine for a message that never comes.
volatile sig_atomic_t g_watch_peer = 0;

void on_child_exit(int) {
  if (!g_watch_peer) return;
  int status = 0;
  int code = 1;
  if (waitpid(-1, &status, WNOHANG) > 0) {
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status);
  }
  static const char kMessage[] = "tern_perf: rank 1 ended before the benchmark did\n";
  ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  (void)ignored;
  _exit(code);
}

// A run that hangs (a lost message) ends at the --timeout instead of never;
// rank 1 follows through the parent-death signal.
void on_alarm(int) {
  static const char kMessage[] = "tern_perf: timed out; ending the run\n";
  ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  (void)ignored;
  _exit(124);
}

void arm_timeout(unsigned seconds) {
  struct sigaction action {};
  action.sa_handler = on_alarm;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, nullptr);
  alarm(seconds);
}

void watch_peer(bool on) {
  if (on) {
    struct sigaction action {};
    action.sa_handler = on_child_exit;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &action, nullptr);
  }
  g_watch_peer = on ? 1 : 0;
}

// --- Pinning: one CPU per rank when there are at least two.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

bool pin(const std::vector<int>& cpus, unsigned rank) {
  if (cpus.size() < 2) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[rank], &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// --- Data checks: a pattern that never contains a zero byte, so a receive
// buffer cleared beforehand shows any byte that was not delivered.
unsigned char pattern_byte(std::size_t index, uint64_t seed) {
  return static_cast<unsigned char>((index * 131 + seed * 17) % 251 + 1);
}

void fill_pattern(unsigned char* buffer, std::size_t length, uint64_t seed) {
  for (std::size_t i = 0; i < length; ++i) buffer[i] = pattern_byte(i, seed);
}

// The index of the first wrong byte, or `length` when all are right.
std::size_t first_mismatch(const unsigned char* buffer, std::size_t length, uint64_t seed) {
  for (std::size_t i = 0; i < length; ++i) {
    if (buffer[i] != pattern_byte(i, seed)) return i;
  }
  return length;
}

constexpr unsigned kLatencySamples = 5;
constexpr unsigned kBandwidthSamples = 3;
constexpr std::size_t kBestOfLimit = 64 * 1024;

// Buffers come from the worker (memory its local peers map, as a library
// user gets from mem_alloc) or from plain malloc (--mem malloc).
struct BufferDeleter {
  Worker* worker = nullptr;
  void operator()(unsigned char* p) const noexcept {
    if (worker != nullptr) worker->mem_free(p);
    else std::free(p);
  }
};
using Buffer = std::unique_ptr<unsigned char, BufferDeleter>;

Buffer make_buffer(Worker& worker, bool from_worker, std::size_t length) {
  const std::size_t rounded = align_up(std::max<std::size_t>(length, 1), 4096);
  Buffer buffer(static_cast<unsigned char*>(from_worker ? worker.mem_alloc(rounded)
                                                        : std::aligned_alloc(4096, rounded)),
                BufferDeleter{from_worker ? &worker : nullptr});
  if (buffer) std::memset(buffer.get(), 0, rounded);  // fault the pages in now, not while timing
  return buffer;
}

// Everything one rank needs to run the engine benchmarks.
struct Bench {
  Worker& worker;
  Endpoint* peer;
  unsigned rank;
  const PerfOptions& options;
  Buffer send;   // rank 0's outgoing data
  Buffer recv;   // where timed iterations land
  Buffer first;  // cleared, for the first checked iteration
  Buffer last;   // cleared, for the last checked iteration

  bool fail(const char* what, std::size_t size, unsigned iteration, Status status) const {
    std::fprintf(stderr, "tern_perf: rank %u: %s failed (size %zu, iteration %u): %s\n", rank, what, size,
                 iteration, to_string(status));
    return false;
  }
  bool fail_data(const char* what, std::size_t size, unsigned iteration, std::size_t index) const {
    std::fprintf(stderr, "tern_perf: rank %u: %s: wrong data at byte %zu (size %zu, iteration %u)\n", rank, what,
                 index, size, iteration);
    return false;
  }
  bool fail_length(const char* what, std::size_t size, unsigned iteration, std::size_t length) const {
    std::fprintf(stderr, "tern_perf: rank %u: %s: received %zu bytes, expected %zu (iteration %u)\n", rank, what,
                 length, size, iteration);
    return false;
  }

  // Progresses until `request` is done, copies its receive info, and gives it
  // back. test() never gives a request back, so this does not depend on
  // whether wait() does.
  Status complete(Request* request, TagRecvInfo* info) {
    Status status = Status::InProgress;
    unsigned polls = 0;
    while ((status = worker.test(request)) == Status::InProgress) {
      if (++polls % 4096 == 0) sched_yield();  // ranks sharing one CPU still get on
    }
    if (info != nullptr) *info = request->info();
    worker.release(request);
    return status;
  }

  // A zero-byte exchange through the engine, so both ranks start a test
  // together and every earlier operation has completed on both sides.
  bool sync() {
    Status status = Status::Ok;
    if (rank == 0) {
      status = worker.tag_send(peer, nullptr, 0, kTagSync);
      if (status == Status::Ok) status = worker.tag_recv(nullptr, 0, kTagSync, kTagMaskAll);
    } else {
      status = worker.tag_recv(nullptr, 0, kTagSync, kTagMaskAll);
      if (status == Status::Ok) status = worker.tag_send(peer, nullptr, 0, kTagSync);
    }
    return status == Status::Ok || fail("sync", 0, 0, status);
  }

  // Rank 0 sets `half_round_trip_us`: the best of several samples for small
  // sizes, the same statistic as the flag floor, so that a moment of noise
  // on this shared machine moves neither.
  bool latency(std::size_t size, double& half_round_trip_us) {
    const unsigned samples = size <= kBestOfLimit ? kLatencySamples : 1;
    half_round_trip_us = 0;
    for (unsigned sample = 0; sample < samples; ++sample) {
      double us = 0;
      if (!latency_sample(size, us)) return false;
      if (sample == 0 || us < half_round_trip_us) half_round_trip_us = us;
    }
    return true;
  }

  bool latency_sample(std::size_t size, double& half_round_trip_us) {
    const unsigned iterations = latency_iterations(options, size);
    const unsigned warmup = latency_warmup(options, size);
    const unsigned total = iterations + warmup;
    const uint64_t seed = size + 1;
    if (rank == 0) fill_pattern(send.get(), size, seed);
    std::memset(first.get(), 0, size);
    std::memset(last.get(), 0, size);
    if (!sync()) return false;

    Clock::time_point begin = Clock::now();
    for (unsigned i = 0; i < total; ++i) {
      if (i == warmup) begin = Clock::now();
      unsigned char* landing = i == 0 ? first.get() : i == total - 1 ? last.get() : recv.get();
      TagRecvInfo info;
      if (rank == 0) {
        Status status = worker.tag_send(peer, send.get(), size, kTagLatency);
        if (status != Status::Ok) return fail("ping send", size, i, status);
        status = worker.tag_recv(landing, size, kTagLatency, kTagMaskAll, &info);
        if (status != Status::Ok) return fail("pong receive", size, i, status);
      } else {
        Status status = worker.tag_recv(landing, size, kTagLatency, kTagMaskAll, &info);
        if (status != Status::Ok) return fail("ping receive", size, i, status);
        // Echo what arrived: rank 0's check then covers both directions.
        status = worker.tag_send(peer, landing, size, kTagLatency);
        if (status != Status::Ok) return fail("pong send", size, i, status);
      }
      if (info.length != size) return fail_length("latency", size, i, info.length);
      if (i == 0 && total > 1) {
        std::size_t bad = first_mismatch(landing, size, seed);
        if (bad != size) return fail_data("latency", size, i, bad);
      }
    }
    const Clock::time_point end = Clock::now();
    unsigned char* checked = total == 1 ? first.get() : last.get();
    std::size_t bad = first_mismatch(checked, size, seed);
    if (bad != size) return fail_data("latency", size, total - 1, bad);
    half_round_trip_us = elapsed_ns(begin, end) / (2.0 * iterations) / 1e3;
    return true;
  }

  // Rank 0 sets `megabytes_per_second`.
  // Rank 0 sets `megabytes_per_second`: the best of a few samples.
  bool bandwidth(std::size_t size, double& megabytes_per_second) {
    megabytes_per_second = 0;
    for (unsigned sample = 0; sample < kBandwidthSamples; ++sample) {
      double mbps = 0;
      if (!bandwidth_sample(size, mbps)) return false;
      megabytes_per_second = std::max(megabytes_per_second, mbps);
    }
    return true;
  }

  bool bandwidth_sample(std::size_t size, double& megabytes_per_second) {
    const unsigned windows = bandwidth_windows(options, size);
    const unsigned warmup = bandwidth_warmup(options, size);
    const unsigned total = windows + warmup;
    const unsigned window = options.window;
    const uint64_t seed = size * 3 + 11;
    if (rank == 0) fill_pattern(send.get(), size, seed);
    std::memset(first.get(), 0, size);
    std::memset(last.get(), 0, size);
    std::vector<Request*> requests(window, nullptr);
    std::vector<TagRecvInfo> infos(window);
    if (!sync()) return false;

    Clock::time_point begin = Clock::now();
    for (unsigned w = 0; w < total; ++w) {
      if (w == warmup) begin = Clock::now();
      if (rank == 0) {
        for (unsigned k = 0; k < window; ++k) {
          Request* request = nullptr;
          Status status = worker.tag_send_nb(peer, send.get(), size, kTagData, request);
          if (status != Status::Ok && status != Status::InProgress) return fail("streaming send", size, w, status);
          requests[k] = status == Status::InProgress ? request : nullptr;
        }
        for (unsigned k = 0; k < window; ++k) {
          if (requests[k] == nullptr) continue;
          Status status = complete(requests[k], nullptr);
          requests[k] = nullptr;
          if (status != Status::Ok) return fail("streaming send completion", size, w, status);
        }
        Status status = worker.tag_recv(nullptr, 0, kTagAck, kTagMaskAll);
        if (status != Status::Ok) return fail("ack receive", size, w, status);
      } else {
        unsigned char* landing = w == 0 ? first.get() : w == total - 1 ? last.get() : recv.get();
        for (unsigned k = 0; k < window; ++k) {
          Request* request = nullptr;
          infos[k] = TagRecvInfo{};
          Status status = worker.tag_recv_nb(landing, size, kTagData, kTagMaskAll, request, &infos[k]);
          if (status != Status::Ok && status != Status::InProgress) return fail("streaming receive", size, w, status);
          requests[k] = status == Status::InProgress ? request : nullptr;
        }
        for (unsigned k = 0; k < window; ++k) {
          if (requests[k] != nullptr) {
            Status status = complete(requests[k], &infos[k]);
            requests[k] = nullptr;
            if (status != Status::Ok) return fail("streaming receive completion", size, w, status);
          }
          if (infos[k].length != size) return fail_length("bandwidth", size, w, infos[k].length);
        }
        Status status = worker.tag_send(peer, nullptr, 0, kTagAck);
        if (status != Status::Ok) return fail("ack send", size, w, status);
        if (w == 0 || w == total - 1) {
          std::size_t bad = first_mismatch(landing, size, seed);
          if (bad != size) return fail_data("bandwidth", size, w, bad);
        }
      }
    }
    const Clock::time_point end = Clock::now();
    const double bytes = static_cast<double>(size) * window * windows;
    megabytes_per_second = bytes / elapsed_ns(begin, end) * 1e3;
    return true;
  }
};

struct Floor {
  double flag_ns = 0;       // half round trip
  double memcpy_mbps = 0;
  double cma_small_mbps = 0;  // the kernel's copy of 64 KiB
  double cma_mbps = 0;        // and of 4 MiB
};

Floor measure_floor(Group& job, FlagLines* lines) {
  Floor floor;
  FlagPingPong flags(lines);
  for (unsigned run = 0; run < kFlagRuns; ++run) {
    job.barrier();
    double ns = flags.run(job.rank(), kFlagIterations, kFlagWarmup);
    if (job.rank() == 0 && (floor.flag_ns == 0 || ns < floor.flag_ns)) floor.flag_ns = ns;
  }
  job.barrier();
  // Rank 1 waits at the barrier meanwhile, off the memory bus.
  if (job.rank() == 0) {
    floor.memcpy_mbps = memcpy_bandwidth(kMemcpyBytes, kMemcpyRepetitions);
    floor.cma_small_mbps = cma_bandwidth(kCmaSmallBytes, kMemcpyRepetitions);
    floor.cma_mbps = cma_bandwidth(kMemcpyBytes, kMemcpyRepetitions);
  }
  job.barrier();
  return floor;
}

std::string format_value(double value, bool measured) {
  if (!measured) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

// Runs everything after the fork in one rank; returns its exit code.
int run_rank(Group& job, const PerfOptions& options, const std::vector<std::size_t>& sizes,
             FlagLines* lines, const std::vector<int>& cpus, bool pinned) {
  const unsigned rank = job.rank();
  if (rank == 0) {
    std::printf("# tern_perf: 2 processes");
    if (pinned) std::printf(", rank 0 on CPU %d, rank 1 on CPU %d", cpus[0], cpus[1]);
    else std::printf(", not pinned (%zu CPU%s allowed)", cpus.size(), cpus.size() == 1 ? "" : "s");
    std::printf("\n");
    std::fflush(stdout);
  }

  const Floor floor = measure_floor(job, lines);
  if (rank == 0) {
    std::printf("# floor: shared-memory flag ping-pong  %10.3f us half round trip (%.0f ns)\n", floor.flag_ns / 1e3,
                floor.flag_ns);
    std::printf("# floor: memcpy of 4 MiB, one thread   %10.0f MB/s\n", floor.memcpy_mbps);
    std::printf("# floor: kernel copy (process_vm_writev) of 64 KiB, 4 MiB, one thread %10.0f %10.0f MB/s\n",
                floor.cma_small_mbps, floor.cma_mbps);
    std::fflush(stdout);
  }
  if (options.floor_work) {
    // How the flag ping-pong grows when each side does a little work per
    // message, as any receiver must: on some machines a few tens of
    // nanoseconds move it into a slower regime (see docs/performance.md).
    FlagPingPong flags(lines);
    for (unsigned work_ns : {0u, 20u, 40u, 60u, 80u, 100u, 150u}) {
      double best = 0;
      for (unsigned run = 0; run < kFlagRuns; ++run) {
        job.barrier();
        const double ns = flags.run(rank, kFlagIterations, kFlagWarmup, work_ns);
        if (rank == 0 && (best == 0 || ns < best)) best = ns;
      }
      if (rank == 0) std::printf("# floor: flag ping-pong with %3u ns of work per message: %4.0f ns\n", work_ns, best);
    }
    std::fflush(stdout);
    job.barrier();
  }
  if (options.floor_only) return 0;

  std::unique_ptr<Worker> worker;
  WorkerParams params;
  params.local_peers = 1;
  params.job_id = job.job_id();
  Status status = Worker::create(params, worker);
  if (status != Status::Ok) {
    std::fprintf(stderr, "tern_perf: rank %u: Worker::create failed: %s\n", rank, to_string(status));
    return 1;
  }
  std::vector<std::vector<std::byte>> addresses;
  status = job.allgather(worker->address(), addresses);
  if (status != Status::Ok) {
    std::fprintf(stderr, "tern_perf: rank %u: address exchange failed: %s\n", rank, to_string(status));
    return 1;
  }
  Endpoint* peer = nullptr;
  status = worker->connect(addresses[1 - rank], peer);
  if (status != Status::Ok) {
    std::fprintf(stderr, "tern_perf: rank %u: connect failed: %s\n", rank, to_string(status));
    return 1;
  }
  job.barrier();

  const std::size_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  const bool from_worker = options.worker_memory;
  Bench bench{*worker,
              peer,
              rank,
              options,
              make_buffer(*worker, from_worker, largest),
              make_buffer(*worker, from_worker, largest),
              make_buffer(*worker, from_worker, largest),
              make_buffer(*worker, from_worker, largest)};
  if (!bench.send || !bench.recv || !bench.first || !bench.last) {
    std::fprintf(stderr, "tern_perf: rank %u: cannot allocate 4 buffers of %zu bytes\n", rank, largest);
    return 1;
  }
  if (rank == 0) {
    std::printf("# engine: transport %s, rendezvous from %zu B, window %u, buffers from %s\n",
                worker->transport_of(peer), worker->rndv_threshold(peer, from_worker), options.window,
                from_worker ? "Worker::mem_alloc" : "malloc");
    std::printf("# latency: best of %u samples up to %zu B; bandwidth: best of %u samples\n", kLatencySamples,
                kBestOfLimit, kBandwidthSamples);
    std::printf("#%11s %16s %18s\n", "size (B)", "latency (us)", "bandwidth (MB/s)");
    std::fflush(stdout);
  }

  for (std::size_t size : sizes) {
    double latency_us = 0;
    double bandwidth = 0;
    if (options.latency && !bench.latency(size, latency_us)) return 1;
    if (options.bandwidth && !bench.bandwidth(size, bandwidth)) return 1;
    if (rank == 0) {
      std::printf("%12zu %16s %18s\n", size, format_value(latency_us, options.latency).c_str(),
                  format_value(bandwidth, options.bandwidth).c_str());
      std::fflush(stdout);
    }
  }

  // The goals compare the engine with the floor in interleaved samples
  // (floor, engine, floor, engine, ...), best of each, so that the shifts in
  // speed this shared machine goes through hit both sides alike.
  auto has = [&](std::size_t size) { return std::find(sizes.begin(), sizes.end(), size) != sizes.end(); };
  double goal_latency_us = -1, goal_flag_ns = -1;
  double goal_bandwidth = -1, goal_memcpy = -1;
  FlagPingPong flags(lines);
  if (options.latency && has(kLatencyGoalSize)) {
    for (unsigned round = 0; round < kGoalRounds; ++round) {
      job.barrier();
      const double flag_ns = flags.run(rank, kFlagIterations, kFlagWarmup);
      double us = 0;
      if (!bench.latency_sample(kLatencyGoalSize, us)) return 1;
      if (round == 0 || flag_ns < goal_flag_ns) goal_flag_ns = flag_ns;
      if (round == 0 || us < goal_latency_us) goal_latency_us = us;
    }
  }
  if (options.bandwidth && has(kBandwidthGoalSize)) {
    for (unsigned round = 0; round < kGoalRounds; ++round) {
      job.barrier();
      const double memcpy_mbps = rank == 0 ? memcpy_bandwidth(kMemcpyBytes, kMemcpyRepetitions) : 0;
      job.barrier();
      double mbps = 0;
      if (!bench.bandwidth_sample(kBandwidthGoalSize, mbps)) return 1;
      goal_memcpy = std::max(goal_memcpy, memcpy_mbps);
      goal_bandwidth = std::max(goal_bandwidth, mbps);
    }
  }
  // Every operation has completed on both sides before either worker goes.
  if (!bench.sync()) return 1;

  if (rank == 0) {
    std::printf("# goals: %u interleaved samples of floor and engine, best of each\n", kGoalRounds);
    if (goal_latency_us >= 0 && goal_flag_ns > 0)
      std::printf("8 B latency %.0f ns / flag floor %.0f ns = %.2f (goal <= %.1f)\n", goal_latency_us * 1e3,
                  goal_flag_ns, goal_latency_us * 1e3 / goal_flag_ns, kLatencyGoal);
    else
      std::printf("8 B latency / flag floor = n/a (8 B latency not measured)\n");
    if (goal_bandwidth >= 0 && goal_memcpy > 0)
      std::printf("4 MiB bandwidth %.0f MB/s / memcpy floor %.0f MB/s = %.2f (goal >= %.1f)\n", goal_bandwidth,
                  goal_memcpy, goal_bandwidth / goal_memcpy, kBandwidthGoal);
    else
      std::printf("4 MiB bandwidth / memcpy floor = n/a (4 MiB bandwidth not measured)\n");
    std::fflush(stdout);
  }
  return 0;
}

// Started by a PMIx launcher as one of exactly two ranks: the launcher binds
// the ranks, watches them and ends the job if one fails.
int run_launched(const PerfOptions& options, const std::vector<std::size_t>& sizes) {
  std::unique_ptr<runtime::Bootstrap> bootstrap;
  std::string error;
  if (runtime::create_bootstrap(bootstrap, error) != Status::Ok) {
    std::fprintf(stderr, "tern_perf: %s\n", error.c_str());
    return 1;
  }
  if (bootstrap->size() != 2) {
    if (bootstrap->rank() == 0) {
      std::fprintf(stderr, "tern_perf: needs exactly 2 ranks under a launcher (got %u): use -n 2\n",
                   bootstrap->size());
    }
    (void)bootstrap->finalize();
    return 2;
  }
  LaunchedGroup group(*bootstrap);
  const std::string name = "/tern-" + group.job_id() + "-perf-flags";
  FlagLines* lines = group.rank() == 0 ? FlagPingPong::map_named_lines(name, true) : nullptr;
  group.barrier();
  if (group.rank() != 0) lines = FlagPingPong::map_named_lines(name, false);
  group.barrier();
  if (group.rank() == 0) FlagPingPong::unlink_lines(name);
  if (lines == nullptr) {
    std::fprintf(stderr, "tern_perf: rank %u cannot map %s: %s\n", group.rank(), name.c_str(), std::strerror(errno));
    bootstrap->abort(1, "tern_perf: no shared flag lines");
  }
  const std::vector<int> cpus = allowed_cpus();
  const bool pinned = pin(cpus, group.rank());
  const int code = run_rank(group, options, sizes, lines, cpus, pinned);
  if (code != 0) bootstrap->abort(code, "tern_perf: a benchmark step failed");
  group.barrier();
  FlagPingPong::unmap_lines(lines);
  (void)bootstrap->finalize();
  return 0;
}

int main_impl(int argc, char** argv) {
  PerfOptions options;
  switch (parse_options(argc, argv, options)) {
    case 0: break;
    case 2: return 0;
    default: return 1;
  }
  const std::vector<std::size_t> sizes = message_sizes(options);

  if (runtime::pmix_environment_present()) return run_launched(options, sizes);

  // Made before fork, so both ranks share it.
  FlagLines* lines = FlagPingPong::map_lines();
  if (lines == nullptr) {
    std::fprintf(stderr, "tern_perf: cannot map the flag lines: %s\n", std::strerror(errno));
    return 1;
  }
  runtime::ForkJob job;
  Status status = runtime::ForkJob::start(2, job, options.timeout_seconds);
  if (status != Status::Ok) {
    std::fprintf(stderr, "tern_perf: cannot start the 2 processes: %s\n", to_string(status));
    FlagPingPong::unmap_lines(lines);
    return 1;
  }
  if (job.rank() == 0) {
    watch_peer(true);
    arm_timeout(options.timeout_seconds);
  }
  const std::vector<int> cpus = allowed_cpus();
  const bool pinned = pin(cpus, job.rank());

  ForkGroup group(job);
  int code = run_rank(group, options, sizes, lines, cpus, pinned);
  if (job.rank() == 0) {
    watch_peer(false);
    alarm(0);  // finish() has its own deadline for rank 1
  }
  if (code == 0) job.barrier();  // rank 1 leaves only once rank 0 no longer watches it
  if (job.rank() != 0) FlagPingPong::unmap_lines(lines);
  code = job.finish(code);  // rank 1 does not return
  FlagPingPong::unmap_lines(lines);
  if (code != 0) std::fprintf(stderr, "tern_perf: failed (exit code %d)\n", code);
  return code;
}

}  // namespace
}  // namespace tern::engine::tools

int main(int argc, char** argv) { return tern::engine::tools::main_impl(argc, argv); }
