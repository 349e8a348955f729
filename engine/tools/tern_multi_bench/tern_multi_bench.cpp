// tern_multi_bench: N frames of mixed sizes from one process to another of
// this machine, end to end (the sender starts, the receiver has every frame
// and answers with a zero-byte message), two ways:
//
//  - multi: one Worker::tag_send_multi against one tag_recv_multi that
//    allocates each frame as the headers describe it;
//  - three-step: what a program writes by hand without it (seed 004): send
//    the frame count, then every frame's size, then each frame by its own
//    tag_send_nb; the receiver takes the count, then the sizes, allocates,
//    posts a receive per frame and waits for all.
//
// Both allocate frames from the same preallocated pool, so that neither
// measures malloc. The runs alternate (multi, three-step, multi, ...) and
// the median of each is printed with their ratio. The last transfer of each
// way is checked byte for byte; a mismatch ends the run with exit 1.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tern/engine/worker.hpp"
#include "tern/runtime/fork_job.hpp"

namespace tern::engine::tools {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kTagCount = 0x7e50'0000'0000'0001;
constexpr uint64_t kTagSizes = 0x7e50'0000'0000'0002;
constexpr uint64_t kTagFrameBase = 0x7e50'0000'1000'0000;
constexpr uint64_t kTagMulti = 0x7e50'0000'0000'0003;
constexpr uint64_t kTagDone = 0x7e50'0000'0000'0004;

struct Options {
  std::size_t frames = 100;
  std::size_t min_size = 1024;
  std::size_t max_size = std::size_t{1} << 20;
  unsigned iterations = 20;
  unsigned warmup = 3;
};

void usage() {
  std::fprintf(stderr,
               "usage: tern_multi_bench [-n frames] [-m min:max frame bytes] [-i iterations] [-x warmup]\n"
               "  N frames (default 100) of sizes spread evenly on a log scale over min:max\n"
               "  (default 1024:1048576; min at least 1), by tag_send_multi and by the hand-written three-step\n"
               "  exchange, alternating; prints the median time of each and their ratio.\n");
}

bool parse(int argc, char** argv, Options& options) {
  int opt;
  while ((opt = getopt(argc, argv, "n:m:i:x:h")) != -1) {
    switch (opt) {
      case 'n': options.frames = std::strtoull(optarg, nullptr, 10); break;
      case 'm':
        if (std::sscanf(optarg, "%zu:%zu", &options.min_size, &options.max_size) != 2) return false;
        break;
      case 'i': options.iterations = static_cast<unsigned>(std::strtoul(optarg, nullptr, 10)); break;
      case 'x': options.warmup = static_cast<unsigned>(std::strtoul(optarg, nullptr, 10)); break;
      default: return false;
    }
  }
  return options.min_size != 0 && options.min_size <= options.max_size && options.iterations != 0 &&
         options.frames <= kMaxMultiFrames;
}

std::vector<std::size_t> frame_sizes(const Options& options) {
  std::vector<std::size_t> sizes(options.frames);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    // A fixed shuffle of the log-scale points, so big and small alternate.
    const std::size_t point = (i * 37) % sizes.size();
    const double fraction = sizes.size() > 1 ? static_cast<double>(point) / static_cast<double>(sizes.size() - 1) : 0;
    const double ratio = static_cast<double>(options.max_size) / static_cast<double>(options.min_size);
    sizes[i] = static_cast<std::size_t>(static_cast<double>(options.min_size) * std::pow(ratio, fraction));
  }
  return sizes;
}

unsigned char byte_of(std::size_t frame, std::size_t i, unsigned round) {
  return static_cast<unsigned char>(frame * 13 + i * 7 + round);
}

// The receiver's frames: one preallocated buffer per frame, handed out in order.
struct Pool {
  std::vector<std::unique_ptr<unsigned char[]>> buffers;
  std::size_t next = 0;
  static void* allocate(void* user_data, std::size_t, MemoryKind) {
    auto* pool = static_cast<Pool*>(user_data);
    return pool->buffers[pool->next++].get();
  }
};

struct Flag {
  bool done = false;
  Status status = Status::InProgress;
  static void set(void* user_data, Status status, const TagRecvInfo&) {
    auto* flag = static_cast<Flag*>(user_data);
    flag->status = status;
    flag->done = true;
  }
};

bool wait_flag(Worker& worker, Flag& flag) {
  while (!flag.done) worker.progress();
  return flag.status == Status::Ok;
}

class Bench {
 public:
  Bench(Worker& worker, Endpoint* peer, const std::vector<std::size_t>& sizes)
      : worker_(worker), peer_(peer), sizes_(sizes) {
    for (std::size_t size : sizes) {
      out_.emplace_back(new unsigned char[std::max<std::size_t>(size, 1)]);
      pool_.buffers.emplace_back(new unsigned char[std::max<std::size_t>(size, 1)]);
    }
  }

  void fill(unsigned round) {
    for (std::size_t f = 0; f < sizes_.size(); ++f) {
      for (std::size_t i = 0; i < sizes_[f]; ++i) out_[f][i] = byte_of(f, i, round);
    }
  }
  [[nodiscard]] bool check(unsigned round) const {
    for (std::size_t f = 0; f < sizes_.size(); ++f) {
      for (std::size_t i = 0; i < sizes_[f]; ++i) {
        if (pool_.buffers[f][i] != byte_of(f, i, round)) {
          std::fprintf(stderr, "tern_multi_bench: frame %zu byte %zu differs\n", f, i);
          return false;
        }
      }
    }
    return true;
  }

  bool send_multi() {
    std::vector<SendFrame> frames;
    for (std::size_t f = 0; f < sizes_.size(); ++f) frames.push_back({out_[f].get(), sizes_[f], MemoryKind::Host});
    Flag sent;
    const Status status = worker_.tag_send_multi(peer_, frames, kTagMulti, Callback{&Flag::set, &sent});
    if (status == Status::Ok) Flag::set(&sent, Status::Ok, {});
    return (status == Status::Ok || status == Status::InProgress) && wait_flag(worker_, sent) && wait_done();
  }
  bool receive_multi() {
    pool_.next = 0;
    std::vector<RecvFrame> frames;
    Flag received;
    if (worker_.tag_recv_multi(kTagMulti, kTagMaskAll, {&Pool::allocate, &pool_}, frames,
                               Callback{&Flag::set, &received}) != Status::InProgress) {
      return false;
    }
    return wait_flag(worker_, received) && send_done();
  }

  bool send_three_step() {
    const uint64_t count = sizes_.size();
    if (worker_.tag_send(peer_, &count, sizeof(count), kTagCount) != Status::Ok) return false;
    // Size and memory kind of each frame, as a program would describe them.
    std::vector<uint64_t> described;
    for (std::size_t size : sizes_) {
      described.push_back(size);
      described.push_back(static_cast<uint64_t>(MemoryKind::Host));
    }
    if (worker_.tag_send(peer_, described.data(), described.size() * sizeof(uint64_t), kTagSizes) != Status::Ok) {
      return false;
    }
    std::vector<Request*> requests;
    for (std::size_t f = 0; f < sizes_.size(); ++f) {
      Request* request = nullptr;
      const Status status = worker_.tag_send_nb(peer_, out_[f].get(), sizes_[f], kTagFrameBase + f, request);
      if (status != Status::Ok && status != Status::InProgress) return false;
      if (request != nullptr) requests.push_back(request);
    }
    for (Request* request : requests) {
      if (worker_.wait(request) != Status::Ok) return false;
    }
    return wait_done();
  }
  bool receive_three_step() {
    uint64_t count = 0;
    if (worker_.tag_recv(&count, sizeof(count), kTagCount, kTagMaskAll) != Status::Ok) return false;
    std::vector<uint64_t> described(2 * count);
    if (worker_.tag_recv(described.data(), described.size() * sizeof(uint64_t), kTagSizes, kTagMaskAll) != Status::Ok) {
      return false;
    }
    pool_.next = 0;
    std::vector<Request*> requests;
    for (uint64_t f = 0; f < count; ++f) {
      void* buffer = Pool::allocate(&pool_, described[2 * f], static_cast<MemoryKind>(described[2 * f + 1]));
      Request* request = nullptr;
      const Status status = worker_.tag_recv_nb(buffer, described[2 * f], kTagFrameBase + f, kTagMaskAll, request);
      if (status != Status::Ok && status != Status::InProgress) return false;
      if (request != nullptr) requests.push_back(request);
    }
    for (Request* request : requests) {
      if (worker_.wait(request) != Status::Ok) return false;
    }
    return send_done();
  }

 private:
  bool wait_done() { return worker_.tag_recv(nullptr, 0, kTagDone, kTagMaskAll) == Status::Ok; }
  bool send_done() { return worker_.tag_send(peer_, nullptr, 0, kTagDone) == Status::Ok; }

  Worker& worker_;
  Endpoint* peer_;
  const std::vector<std::size_t>& sizes_;
  std::vector<std::unique_ptr<unsigned char[]>> out_;
  Pool pool_;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int run(runtime::ForkJob& job, const Options& options) {
  const unsigned rank = job.rank();
  WorkerParams params;
  params.local_peers = 1;
  std::unique_ptr<Worker> worker;
  if (Worker::create(params, worker) != Status::Ok) return 1;
  std::vector<std::vector<std::byte>> addresses;
  Endpoint* peer = nullptr;
  if (job.allgather(worker->address(), addresses) != Status::Ok ||
      worker->connect(addresses[1 - rank], peer) != Status::Ok) {
    std::fprintf(stderr, "tern_multi_bench: rank %u cannot connect\n", rank);
    return 1;
  }
  const std::vector<std::size_t> sizes = frame_sizes(options);
  Bench bench(*worker, peer, sizes);
  std::vector<double> multi_us;
  std::vector<double> three_step_us;
  const unsigned rounds = options.warmup + options.iterations;
  for (unsigned round = 0; round < rounds; ++round) {
    for (const bool multi : {true, false}) {
      const unsigned pattern = 2 * round + (multi ? 0 : 1);
      if (rank == 0) bench.fill(pattern);
      job.barrier();
      const auto begin = Clock::now();
      bool ok;
      if (rank == 0) {
        ok = multi ? bench.send_multi() : bench.send_three_step();
      } else {
        ok = multi ? bench.receive_multi() : bench.receive_three_step();
        // The last round is checked after the answer left: rank 0's time, the one printed, leaves it out.
        ok = ok && (round + 1 < rounds || bench.check(pattern));
      }
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - begin).count();
      if (!ok) {
        std::fprintf(stderr, "tern_multi_bench: rank %u: the %s transfer failed\n", rank,
                     multi ? "multi" : "three-step");
        return 1;
      }
      if (round >= options.warmup) (multi ? multi_us : three_step_us).push_back(us);
    }
  }
  job.barrier();
  if (rank == 0) {
    std::size_t total = 0;
    for (std::size_t size : sizes) total += size;
    const double multi = median(multi_us);
    const double three_step = median(three_step_us);
    std::printf("# %zu frames, %zu bytes in all (%zu-%zu each), %s (rendezvous from %zu), median of %u\n",
                sizes.size(), total, options.min_size, options.max_size, worker->transport_of(peer),
                worker->rndv_threshold(peer), options.iterations);
    std::printf("%-12s %12s %10s\n", "method", "time (us)", "GB/s");
    std::printf("%-12s %12.1f %10.2f\n", "multi", multi, static_cast<double>(total) / multi / 1e3);
    std::printf("%-12s %12.1f %10.2f\n", "three-step", three_step, static_cast<double>(total) / three_step / 1e3);
    std::printf("three-step / multi: %.2f\n", three_step / multi);
  }
  return 0;
}

}  // namespace
}  // namespace tern::engine::tools

int main(int argc, char** argv) {
  using namespace tern::engine::tools;  // NOLINT: the tool's own namespace
  Options options;
  if (!parse(argc, argv, options)) {
    usage();
    return 2;
  }
  tern::runtime::ForkJob job;
  if (tern::runtime::ForkJob::start(2, job, 600) != tern::Status::Ok) {
    std::fprintf(stderr, "tern_multi_bench: cannot start the 2 processes\n");
    return 1;
  }
  return job.finish(run(job, options));
}
