// The network path of the OpenSHMEM calls (see net.hpp).
#include "net.hpp"

#include <poll.h>

#include <cstring>
#include <string>
#include <vector>

#include "state.hpp"
#include "tern/runtime/log.hpp"

namespace tern::shmem {
namespace {

namespace rma = engine::rma;

constexpr const char* kRmaKey = "tern.shmem.rma";

engine::Worker& worker() { return g_state->job->worker(); }

[[noreturn]] void net_failed(const char* function, const char* what, int pe, Status status) {
  State& s = *g_state;
  const std::string host = s.net[static_cast<std::size_t>(pe)].endpoint != nullptr
                               ? worker().peer_host(s.net[static_cast<std::size_t>(pe)].endpoint)
                               : std::string("?");
  fail(function, "%s PE %d (on host %s) failed: %s", what, pe, host.c_str(), to_string(status));
}

// `pe`'s address of this PE's symmetric `address`, and the region it is in.
uint64_t translate(const char* function, const void* address, std::size_t bytes, int pe,
                   const rma::RemoteRegion*& region) {
  State& s = *g_state;
  const SymmetricPlace place = locate(s, address, bytes);
  if (place.region == Region::None) not_symmetric(function, address, bytes);
  NetPeer& peer = s.net[static_cast<std::size_t>(pe)];
  region = place.region == Region::Heap ? peer.heap : peer.data;
  if (region == nullptr) unreachable_pe(function, pe);
  return region->base() + place.offset;
}

// Waits with the library's own backoff (which progresses the worker), not
// the engine's: a round trip needs the target scheduled, and the engine's
// longer spinning keeps it off a shared core (4 PEs on 2 cores: shmem_coll
// took minutes instead of seconds).
Status wait_for(engine::Request* request) {
  // With several threads, or a progress thread (TERN_PROGRESS), another
  // one's progress may complete the request under the worker's lock: look
  // at it under that lock too (test()).
  if (g_state->thread_level == SHMEM_THREAD_MULTIPLE ||
      worker().progress_mode() != runtime::ProgressMode::Caller) {
    wait_until([&] { return worker().test(request) != Status::InProgress; });
  } else {
    wait_until([&] { return request->done(); });
  }
  const Status status = request->status();
  worker().release(request);
  return status;
}

// Issues with `issue` (retrying WouldBlock while progressing) and waits.
template <typename Issue>
Status run(Issue&& issue) {
  engine::Request* request = nullptr;
  Status status;
  while ((status = issue(request)) == Status::WouldBlock) (void)net_progress();
  if (status == Status::InProgress) status = wait_for(request);
  return status;
}

void mark_written(int pe) noexcept {
  g_state->net[static_cast<std::size_t>(pe)].written.store(true, std::memory_order_relaxed);
  g_state->net_written.store(true, std::memory_order_relaxed);
}

}  // namespace

void net_publish(State& s) {
  engine::Worker& w = s.job->worker();
  std::vector<std::byte> blob;
  if (rma::Registration::create(w, s.heap_region->base(), s.heap_region->length(), s.heap_rma) == Status::Ok) {
    blob = s.heap_rma->packed_key();
    if (s.data_region != nullptr &&
        rma::Registration::create(w, s.data_region->base(), s.data_region->length(), s.data_rma) == Status::Ok) {
      blob.insert(blob.end(), s.data_rma->packed_key().begin(), s.data_rma->packed_key().end());
    }
  }
  if (s.job->bootstrap().put(kRmaKey, blob) != Status::Ok) {
    TERN_LOG(Warn, "shmem: could not publish the RMA keys: PEs on other hosts will not reach this one");
  }
}

void net_connect(State& s) {
  s.net.reset(new NetPeer[static_cast<std::size_t>(s.n_pes)]);
  runtime::Bootstrap& boot = s.job->bootstrap();
  std::vector<std::byte> blob;
  for (int pe = 0; pe < s.n_pes; ++pe) {
    if (pe == s.my_pe || s.peers[static_cast<std::size_t>(pe)].heap != nullptr) continue;
    NetPeer& peer = s.net[static_cast<std::size_t>(pe)];
    engine::Endpoint* endpoint = nullptr;
    if (s.job->endpoint(static_cast<unsigned>(pe), endpoint) != Status::Ok) {
      TERN_LOG(Warn, "shmem: PE %d is not reachable: %s", pe, s.job->last_error().c_str());
      continue;
    }
    if (!rma::supported(s.job->worker(), endpoint)) {
      TERN_LOG(Warn, "shmem: PE %d is reached by %s, which has no RMA, and its memory is not mapped here", pe,
               s.job->worker().describe(endpoint).c_str());
      continue;
    }
    // One key for the heap, a second for static data when the peer has any.
    constexpr std::size_t kKey = 40;
    if (boot.get(static_cast<unsigned>(pe), kRmaKey, blob) != Status::Ok ||
        (blob.size() != kKey && blob.size() != 2 * kKey) ||
        rma::RemoteRegion::unpack(std::span(blob).first(kKey), peer.heap) != Status::Ok) {
      TERN_LOG(Warn, "shmem: PE %d published no usable RMA key", pe);
      continue;
    }
    if (blob.size() == 2 * kKey && rma::RemoteRegion::unpack(std::span(blob).subspan(kKey), peer.data) != Status::Ok) {
      TERN_LOG(Warn, "shmem: PE %d's static data key is malformed: its static data stays unreachable", pe);
    }
    if (peer.heap->length() != s.heap_size) {
      TERN_LOG(Warn, "shmem: PE %d's heap is %zu bytes, this one's %zu (SHMEM_SYMMETRIC_SIZE differs)", pe,
               peer.heap->length(), s.heap_size);
    }
    peer.endpoint = endpoint;
    s.net_pes.push_back(pe);
  }
  s.has_net = !s.net_pes.empty();
}

void net_release(State& s) noexcept {
  if (s.net != nullptr) {
    for (int pe : s.net_pes) {
      rma::RemoteRegion::destroy(s.net[static_cast<std::size_t>(pe)].heap);
      rma::RemoteRegion::destroy(s.net[static_cast<std::size_t>(pe)].data);
    }
  }
  s.net.reset();
  s.net_pes.clear();
  s.has_net = false;
  rma::Registration::destroy(s.data_rma);
  rma::Registration::destroy(s.heap_rma);
  s.data_rma = s.heap_rma = nullptr;
}

void net_put(const char* function, const void* dest, const void* source, std::size_t bytes, int pe) {
  if (bytes == 0) return;
  const rma::RemoteRegion* region = nullptr;
  const uint64_t address = translate(function, dest, bytes, pe, region);
  engine::Endpoint* endpoint = g_state->net[static_cast<std::size_t>(pe)].endpoint;
  mark_written(pe);
  const Status status = run([&](engine::Request*& request) {
    return rma::put_nb(worker(), endpoint, source, bytes, *region, address, request);
  });
  if (status != Status::Ok) net_failed(function, "a put to", pe, status);
}

void net_get(const char* function, void* dest, const void* source, std::size_t bytes, int pe) {
  if (bytes == 0) return;
  const rma::RemoteRegion* region = nullptr;
  const uint64_t address = translate(function, source, bytes, pe, region);
  engine::Endpoint* endpoint = g_state->net[static_cast<std::size_t>(pe)].endpoint;
  const Status status = run([&](engine::Request*& request) {
    return rma::get_nb(worker(), endpoint, dest, bytes, *region, address, request);
  });
  if (status != Status::Ok) net_failed(function, "a get from", pe, status);
}

uint64_t net_atomic(const char* function, rma::AtomicOp op, unsigned size, const void* target, uint64_t operand,
                    uint64_t compare, int pe) {
  const rma::RemoteRegion* region = nullptr;
  const uint64_t address = translate(function, target, size, pe, region);
  if (address % size != 0) {
    fail(function, "address %p is not aligned for a %u-byte atomic", target, size);
  }
  engine::Endpoint* endpoint = g_state->net[static_cast<std::size_t>(pe)].endpoint;
  mark_written(pe);
  uint64_t old = 0;
  const Status status = run([&](engine::Request*& request) {
    return rma::atomic_nb(worker(), endpoint, op, size, operand, compare, *region, address, &old, request);
  });
  if (status != Status::Ok) net_failed(function, "an atomic on", pe, status);
  return old;
}

uint64_t net_heap_word(int pe, std::size_t heap_offset) {
  uint64_t value = 0;
  net_get("shmem (synchronization)", &value, reinterpret_cast<const void*>(g_state->heap_base + heap_offset),
          sizeof(value), pe);
  return value;
}

void net_heap_add(int pe, std::size_t heap_offset, uint64_t value) {
  (void)net_atomic("shmem (synchronization)", rma::AtomicOp::Add, sizeof(uint64_t),
                   reinterpret_cast<const void*>(g_state->heap_base + heap_offset), value, 0, pe);
}

void net_quiet_slow() {
  State& s = *g_state;
  if (!s.net_written.exchange(false, std::memory_order_acq_rel)) return;
  // Every flush goes out first, then all are waited for: one round trip in all.
  std::vector<std::pair<int, engine::Request*>> waiting;
  for (int pe : s.net_pes) {
    NetPeer& peer = s.net[static_cast<std::size_t>(pe)];
    if (!peer.written.exchange(false, std::memory_order_acq_rel)) continue;
    engine::Request* request = nullptr;
    Status status;
    while ((status = rma::flush_nb(worker(), peer.endpoint, request)) == Status::WouldBlock) (void)net_progress();
    if (status == Status::InProgress) {
      waiting.emplace_back(pe, request);
    } else if (status != Status::Ok) {
      net_failed("shmem_quiet", "completing the puts to", pe, status);
    }
  }
  for (auto& [pe, request] : waiting) {
    const Status status = wait_for(request);
    if (status != Status::Ok) net_failed("shmem_quiet", "completing the puts to", pe, status);
  }
}

unsigned net_progress() noexcept { return g_state->job->worker().progress(); }

void net_nap(const timespec& nap) noexcept {
  engine::Worker& w = g_state->job->worker();
  if (w.arm() != Status::Ok) return;  // events are waiting: progress first
  pollfd wakeup{w.efd(), POLLIN, 0};
  (void)ppoll(&wakeup, 1, &nap, nullptr);
}

}  // namespace tern::shmem
