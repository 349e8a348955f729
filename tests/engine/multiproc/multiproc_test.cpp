// The engine across processes on this node (shm transport): every protocol
// boundary, random traffic with wildcards among 4 processes, truncation,
// synchronous sends, CMA switched off, wakeup by a peer's send, and no
// shared-memory segment left behind. Processes come from ForkJob; a child's
// failure is its exit code, gathered by rank 0.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/endpoint.hpp"
#include "tern/engine/worker.hpp"
#include "fork_ranks.hpp"
#include "tern/runtime/fork_job.hpp"

namespace tern::engine {
namespace {

using namespace multiproc;  // NOLINT: the shared job helpers

std::vector<std::size_t> boundary_sizes(Worker& worker, Endpoint* ep) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 1; s <= (16u << 20); s *= 2) sizes.push_back(s);
  sizes.push_back(0);
  // Around the one-cell limits of 8, 16 and 20 KiB cells (short header
  // 16 B, first-fragment header 40 B) and a three-cell message.
  for (std::size_t cell : {std::size_t{8192}, std::size_t{16384}, std::size_t{20480}}) {
    for (std::size_t around : {cell - 16, cell - 40, cell, 3 * cell}) {
      for (std::size_t delta : {std::size_t{0}, std::size_t{1}}) {
        sizes.push_back(around - delta);
        sizes.push_back(around + 1);
      }
    }
  }
  const std::size_t rndv = worker.rndv_threshold(ep);
  if (rndv != SIZE_MAX) {
    for (std::size_t s : {rndv - 1, rndv, rndv + 1}) sizes.push_back(s);
  }
  sizes.push_back(16u << 20);
  sizes.push_back((16u << 20) - 3);
  return sizes;
}

TEST(EngineMultiProcess, TwoRanksEveryProtocolBoundary) {
  int rc = run_job(2, [](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    const unsigned peer = 1 - ctx.rank;
    auto sizes = boundary_sizes(w, ctx.peers[peer]);
    std::vector<unsigned char> out(16u << 20), in((16u << 20) + 64);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::size_t length = sizes[i];
      const bool prepost = (i % 2) == 0;
      if (ctx.rank == 0) {
        fill(out, length, i);
        RANK_CHECK(w.tag_send(ctx.peers[1], out.data(), length, make_tag(0, 1)) == Status::Ok);
        TagRecvInfo info;
        RANK_CHECK(w.tag_recv(in.data(), length, make_tag(1, 2), ~uint64_t{0}, &info) == Status::Ok);
        RANK_CHECK(info.length == length);
        RANK_CHECK(verify(in.data(), length, i + 1000));
      } else {
        Request* recv = nullptr;
        TagRecvInfo info;
        in[length] = 0xab;
        if (prepost) {
          // Usually posted before the message arrives; done at once otherwise.
          Status s = w.tag_recv_nb(in.data(), length, make_tag(0, 1), ~uint64_t{0}, recv, &info);
          if (s == Status::InProgress) s = w.wait(recv);
          RANK_CHECK(s == Status::Ok);
        } else {
          // Let the message arrive unexpected first.
          while (w.tag_probe(make_tag(0, 1), ~uint64_t{0}, info) != Status::Ok) w.progress();
          RANK_CHECK(info.length == length);
          RANK_CHECK(w.tag_recv(in.data(), length, make_tag(0, 1), ~uint64_t{0}, &info) == Status::Ok);
        }
        RANK_CHECK(verify(in.data(), length, i));
        RANK_CHECK(in[length] == 0xab);
        fill(out, length, i + 1000);
        RANK_CHECK(w.tag_send(ctx.peers[0], out.data(), length, make_tag(1, 2)) == Status::Ok);
      }
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

// Between the metered threshold and the drained threshold each message of a
// ping-pong goes eager or rendezvous as the endpoint's meter decides, and
// the meter tries the other protocol now and then: a run of such messages
// takes both, above the streaming rendezvous threshold (where rendezvous is
// the default) and below it (where eager is).
int mid_size_ping_pong(Context& ctx, bool below_streaming_threshold) {
  Worker& w = *ctx.worker;
  const unsigned peer = 1 - ctx.rank;
  const std::size_t rndv = w.rndv_threshold(ctx.peers[peer]);
  RANK_CHECK(rndv != SIZE_MAX);
  const std::size_t length = below_streaming_threshold ? rndv - rndv / 4 : rndv + rndv / 2;
  std::vector<unsigned char> out(length), in(length + 1);
  constexpr int kMessages = 100;
  for (int i = 0; i < kMessages; ++i) {
    const uint64_t tag = make_tag(ctx.rank, static_cast<uint32_t>(i));
    const uint64_t peer_tag = make_tag(peer, static_cast<uint32_t>(i));
    if ((i % 2 == 0) == (ctx.rank == 0)) {
      fill(out, length, static_cast<std::size_t>(i));
      RANK_CHECK(w.tag_send(ctx.peers[peer], out.data(), length, tag) == Status::Ok);
    } else {
      TagRecvInfo info;
      in[length] = 0x5a;
      if (i % 3 == 0) {
        // Unexpected first: eager fragments or an RTS wait for the receive.
        while (w.tag_probe(peer_tag, ~uint64_t{0}, info) != Status::Ok) w.progress();
      }
      RANK_CHECK(w.tag_recv(in.data(), length, peer_tag, ~uint64_t{0}, &info) == Status::Ok);
      RANK_CHECK(info.length == length);
      RANK_CHECK(verify(in.data(), length, static_cast<std::size_t>(i)));
      RANK_CHECK(in[length] == 0x5a);
    }
  }
  // Both protocols carried some of this rank's sends.
  const ProtocolMeter& meter = *ctx.peers[peer]->meter;
  RANK_CHECK(meter.eager_ns_per_kib(length) != 0);
  RANK_CHECK(meter.rendezvous_ns_per_kib(length) != 0);
  return 0;
}

TEST(EngineMultiProcess, MidSizeMessagesArriveWholeByEitherProtocol) {
  EXPECT_EQ(run_job(2, [](Context& ctx) { return mid_size_ping_pong(ctx, false); }), 0);
  EXPECT_EQ(run_job(2, [](Context& ctx) { return mid_size_ping_pong(ctx, true); }), 0);
}

TEST(EngineMultiProcess, FourRanksRandomSizesTagsAndWildcards) {
  int rc = run_job(4, [](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    constexpr int kPerPeer = 150;
    constexpr std::size_t kMaxLength = 96 * 1024;
    std::mt19937_64 rng(1234 + ctx.rank);
    // Sends: random sizes and user tags 0..3 to every peer, all non-blocking.
    std::vector<std::vector<unsigned char>> buffers;
    std::vector<Request*> sends;
    std::vector<std::vector<unsigned>> sent_count(ctx.size, std::vector<unsigned>(4, 0));
    for (int i = 0; i < kPerPeer; ++i) {
      for (unsigned dest = 0; dest < ctx.size; ++dest) {
        if (dest == ctx.rank) continue;
        const uint32_t user_tag = static_cast<uint32_t>(rng() % 4);
        std::size_t length = rng() % 4 == 0 ? rng() % kMaxLength : rng() % 300;
        const uint64_t seed = (uint64_t{ctx.rank} << 40) | (uint64_t{dest} << 32) | (user_tag << 24) |
                              sent_count[dest][user_tag]++;
        buffers.emplace_back(length);
        fill(buffers.back(), length, seed);
        Request* request = nullptr;
        Status s = w.tag_send_nb(ctx.peers[dest], buffers.back().data(), length, make_tag(ctx.rank, user_tag),
                                 request);
        RANK_CHECK(s == Status::Ok || s == Status::InProgress);
        if (request != nullptr) sends.push_back(request);
      }
    }
    // Receives: the first half with full wildcards, the rest by (source, tag).
    std::vector<std::vector<unsigned>> next(ctx.size, std::vector<unsigned>(4, 0));
    std::vector<unsigned char> in(kMaxLength);
    const int total = kPerPeer * static_cast<int>(ctx.size - 1);
    auto check = [&](const TagRecvInfo& info) -> bool {
      const unsigned source = static_cast<unsigned>(info.sender_tag >> 32);
      const uint32_t user_tag = static_cast<uint32_t>(info.sender_tag & 0xffffffff);
      if (source >= ctx.size || user_tag >= 4) return false;
      const uint64_t seed = (uint64_t{source} << 40) | (uint64_t{ctx.rank} << 32) | (user_tag << 24) |
                            next[source][user_tag]++;
      return verify(in.data(), info.length, seed);
    };
    int received = 0;
    for (; received < total / 2; ++received) {
      TagRecvInfo info;
      RANK_CHECK(w.tag_recv(in.data(), in.size(), 0, kAnySourceAnyTag, &info) == Status::Ok);
      RANK_CHECK(check(info));
    }
    while (received < total) {
      // Exact (source, tag) receives for whatever remains, in source order.
      bool any = false;
      for (unsigned source = 0; source < ctx.size && received < total; ++source) {
        if (source == ctx.rank) continue;
        for (uint32_t user_tag = 0; user_tag < 4; ++user_tag) {
          TagRecvInfo info;
          w.progress();
          if (w.tag_probe(make_tag(source, user_tag), ~uint64_t{0}, info) != Status::Ok) continue;
          RANK_CHECK(w.tag_recv(in.data(), in.size(), make_tag(source, user_tag), ~uint64_t{0}, &info) ==
                     Status::Ok);
          RANK_CHECK(check(info));
          ++received;
          any = true;
        }
      }
      if (!any) std::this_thread::yield();
    }
    for (Request* request : sends) RANK_CHECK(w.wait(request) == Status::Ok);
    TagRecvInfo info;
    w.progress();
    RANK_CHECK(w.tag_probe(0, kAnySourceAnyTag, info) == Status::NotFound);
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineMultiProcess, TruncationAcrossProcesses) {
  int rc = run_job(2, [](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    const std::size_t rndv = w.rndv_threshold(ctx.peers[1 - ctx.rank]);
    const std::size_t sizes[] = {100, 50000, rndv == SIZE_MAX ? std::size_t{1} << 20 : rndv * 4};
    for (std::size_t length : sizes) {
      if (ctx.rank == 0) {
        std::vector<unsigned char> out(length);
        fill(out, length, length);
        RANK_CHECK(w.tag_send(ctx.peers[1], out.data(), length, make_tag(0, 7)) == Status::Ok);
      } else {
        const std::size_t room = length / 3;
        std::vector<unsigned char> in(length, 0xee);
        TagRecvInfo info;
        RANK_CHECK(w.tag_recv(in.data(), room, make_tag(0, 7), ~uint64_t{0}, &info) == Status::Truncated);
        RANK_CHECK(info.length == length);
        RANK_CHECK(verify(in.data(), room, length));
        for (std::size_t i = room; i < length; ++i) RANK_CHECK(in[i] == 0xee);
      }
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineMultiProcess, SynchronousSendWaitsForTheMatch) {
  int rc = run_job(2, [](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    for (std::size_t length : {std::size_t{8}, std::size_t{40000}}) {
      std::vector<unsigned char> buffer(length);
      if (ctx.rank == 0) {
        fill(buffer, length, 5);
        Request* send = nullptr;
        RANK_CHECK(w.tag_send_nb(ctx.peers[1], buffer.data(), length, make_tag(0, 3), send, kSendSync) ==
                   Status::InProgress);
        auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
        while (std::chrono::steady_clock::now() < until) RANK_CHECK(w.test(send) == Status::InProgress);
        ctx.job->barrier();  // the receiver posts only after this
        RANK_CHECK(w.wait(send) == Status::Ok);
      } else {
        ctx.job->barrier();
        RANK_CHECK(w.tag_recv(buffer.data(), length, make_tag(0, 3), ~uint64_t{0}) == Status::Ok);
        RANK_CHECK(verify(buffer.data(), length, 5));
      }
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineMultiProcess, CmaOffCopiesLargeMessagesThroughTheFifo) {
  int rc = run_job(
      2,
      [](Context& ctx) -> int {
        Worker& w = *ctx.worker;
        RANK_CHECK(w.rndv_threshold(ctx.peers[1 - ctx.rank]) == SIZE_MAX);
        const std::size_t length = 4u << 20;
        std::vector<unsigned char> buffer(length);
        if (ctx.rank == 0) {
          fill(buffer, length, 9);
          RANK_CHECK(w.tag_send(ctx.peers[1], buffer.data(), length, make_tag(0, 1)) == Status::Ok);
        } else {
          RANK_CHECK(w.tag_recv(buffer.data(), length, make_tag(0, 1), ~uint64_t{0}) == Status::Ok);
          RANK_CHECK(verify(buffer.data(), length, 9));
        }
        return 0;
      },
      [](WorkerParams& params) { params.config.cma = runtime::Switch::Off; });
  EXPECT_EQ(rc, 0);
}

TEST(EngineMultiProcess, SleepingReceiverIsWokenByAPeerSend) {
  int rc = run_job(2, [](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    // Absorb connection traffic (hellos) before anyone sleeps.
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    while (std::chrono::steady_clock::now() < until) w.progress();
    ctx.job->barrier();
    if (ctx.rank == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      uint64_t value = 42;
      RANK_CHECK(w.tag_send(ctx.peers[1], &value, sizeof(value), make_tag(0, 1)) == Status::Ok);
    } else {
      while (w.progress() != 0) {
      }
      const auto start = std::chrono::steady_clock::now();
      TagRecvInfo info;
      int sleeps = 0;
      while (w.tag_probe(make_tag(0, 1), ~uint64_t{0}, info) != Status::Ok) {
        RANK_CHECK(w.wait_event() == Status::Ok);  // no timeout: only an event returns
        ++sleeps;
        while (w.progress() != 0) {
        }
      }
      const auto slept = std::chrono::steady_clock::now() - start;
      RANK_CHECK(sleeps >= 1);
      RANK_CHECK(slept >= std::chrono::milliseconds(200));
      uint64_t value = 0;
      RANK_CHECK(w.tag_recv(&value, sizeof(value), make_tag(0, 1), ~uint64_t{0}) == Status::Ok);
      RANK_CHECK(value == 42);
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(EngineMultiProcess, RendezvousFromMappedMemory) {
  int rc = run_job(2, [](Context& ctx) -> int {
    Worker& w = *ctx.worker;
    Endpoint* peer = ctx.peers[1 - ctx.rank];
    // Buffers from mem_alloc take the rendezvous as soon as a message needs
    // more than one FIFO cell; the receiver copies straight from the mapping.
    RANK_CHECK(w.rndv_threshold(peer, true) < w.rndv_threshold(peer));
    const std::size_t largest = 16u << 20;
    auto* mapped = static_cast<unsigned char*>(w.mem_alloc(largest + 64));
    RANK_CHECK(mapped != nullptr);
    std::vector<unsigned char> plain(largest + 64);
    const std::size_t sizes[] = {8192, 8193, 65536 + 5, 1u << 20, largest};
    std::vector<unsigned char> pattern(largest);
    for (std::size_t length : sizes) {
      for (int into_mapped = 0; into_mapped < 2; ++into_mapped) {
        const uint64_t seed = length * 2 + static_cast<uint64_t>(into_mapped);
        if (ctx.rank == 0) {
          fill(pattern, length, seed);
          std::memcpy(mapped, pattern.data(), length);
          RANK_CHECK(w.tag_send(peer, mapped, length, make_tag(0, 4)) == Status::Ok);
        } else {
          unsigned char* into = into_mapped != 0 ? mapped : plain.data();
          into[length] = 0x5c;
          TagRecvInfo info;
          RANK_CHECK(w.tag_recv(into, length, make_tag(0, 4), ~uint64_t{0}, &info) == Status::Ok);
          RANK_CHECK(info.length == length);
          RANK_CHECK(verify(into, length, seed));
          RANK_CHECK(into[length] == 0x5c);
        }
      }
    }
    // Truncated: only what fits is copied.
    if (ctx.rank == 0) {
      fill(pattern, 1u << 20, 77);
      std::memcpy(mapped, pattern.data(), 1u << 20);
      RANK_CHECK(w.tag_send(peer, mapped, 1u << 20, make_tag(0, 5)) == Status::Ok);
    } else {
      std::memset(mapped, 0xee, 1u << 20);
      RANK_CHECK(w.tag_recv(mapped, 1000, make_tag(0, 5), ~uint64_t{0}) == Status::Truncated);
      RANK_CHECK(verify(mapped, 1000, 77));
      for (std::size_t i = 1000; i < (1u << 20); ++i) RANK_CHECK(mapped[i] == 0xee);
    }
    ctx.job->barrier();
    w.mem_free(mapped);
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

std::vector<std::string> tern_segments(const std::string& job_id) {
  std::vector<std::string> found;
  if (DIR* dir = opendir("/dev/shm")) {
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.rfind("tern-" + job_id, 0) == 0) found.push_back(name);
    }
    closedir(dir);
  }
  return found;
}

TEST(EngineMultiProcess, NoSegmentLeftOnceAllPeersAttached) {
  int rc = run_job(3, [](Context& ctx) -> int {
    const char* job_id = std::getenv("TERN_JOB_ID");
    RANK_CHECK(job_id != nullptr);
    // Every rank has attached to every other (connect), so all names are gone
    // while the job still runs.
    ctx.job->barrier();
    auto left = tern_segments(job_id);
    for (const auto& name : left) std::fprintf(stderr, "rank %u: still in /dev/shm: %s\n", ctx.rank, name.c_str());
    RANK_CHECK(left.empty());
    // And the mappings still work.
    uint64_t value = ctx.rank;
    const unsigned next = (ctx.rank + 1) % ctx.size;
    const unsigned prev = (ctx.rank + ctx.size - 1) % ctx.size;
    RANK_CHECK(ctx.worker->tag_send(ctx.peers[next], &value, sizeof(value), make_tag(ctx.rank, 0)) == Status::Ok);
    RANK_CHECK(ctx.worker->tag_recv(&value, sizeof(value), make_tag(prev, 0), ~uint64_t{0}) == Status::Ok);
    RANK_CHECK(value == prev);
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace tern::engine
