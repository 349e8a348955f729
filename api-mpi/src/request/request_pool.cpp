// The slots of MPI requests. Under MPI_THREAD_MULTIPLE each thread keeps a
// few free slots of its own, so that a request it takes and ends (nearly
// every receive of a thread that waits for its own) costs no lock: the
// pool's mutex was two of the eight atomic operations a THREAD_MULTIPLE
// rank spent per small message received.
#include <mutex>
#include <new>

#include "state.hpp"

namespace tern::mpi {

namespace {

constexpr int kThreadSlots = 64;  // kept by a thread at most
constexpr int kRefill = 32;       // taken from the free list at a time

// The live pool, under its own mutex: a thread that exits after
// MPI_Finalize must not touch the pool that was.
std::mutex g_live_mutex;
RequestPool* g_live = nullptr;

struct ThreadSlots {
  RequestPool* pool = nullptr;  // whose positions these are
  int count = 0;
  int positions[kThreadSlots];

  // A pool other than the one these came from: they are not ours to use.
  void serve(RequestPool* current) noexcept {
    if (pool != current) {
      pool = current;
      count = 0;
    }
  }
  ~ThreadSlots() {
    std::lock_guard<std::mutex> live(g_live_mutex);
    if (pool != nullptr && pool == g_live) pool->return_positions(positions, count);
  }
};

// Initial-exec: found with one load, where the default model for a shared
// library calls __tls_get_addr at each get and put (19.9-21.2 against
// 17.7-18.7 M messages/s in osu_mr_mt -t 1:1). The library already needs
// static TLS, so this changes nothing about where it can be loaded.
ThreadSlots& thread_slots() {
  static thread_local ThreadSlots slots __attribute__((tls_model("initial-exec")));
  return slots;
}

}  // namespace

RequestPool::RequestPool() {
  std::lock_guard<std::mutex> live(g_live_mutex);
  g_live = this;
}

RequestPool::~RequestPool() {
  std::lock_guard<std::mutex> live(g_live_mutex);
  if (g_live == this) g_live = nullptr;
}

int RequestPool::take_positions(int* out, int count) {
  if (free_head_ == 0) {
    const int chunk = chunk_count_.load(std::memory_order_relaxed);
    if (chunk == kMaxChunks) return 0;
    chunks_[chunk].reset(new (std::nothrow) RequestSlot[kChunkSize]);
    if (!chunks_[chunk]) return 0;
    for (int i = kChunkSize - 1; i >= 0; --i) {
      chunks_[chunk][i].next_free = free_head_;
      free_head_ = chunk * kChunkSize + i + 1;
    }
    chunk_count_.store(chunk + 1, std::memory_order_release);
  }
  int taken = 0;
  while (taken < count && free_head_ != 0) {
    out[taken++] = free_head_;
    free_head_ = slot_at(free_head_)->next_free;
  }
  return taken;
}

MPI_Request RequestPool::get_slow(RequestSlot*& slot) {
  int position = 0;
  if (take_positions(&position, 1) == 0) return MPI_REQUEST_NULL;
  return take(position, slot);
}

MPI_Request RequestPool::get_shared(RequestSlot*& slot) {
  ThreadSlots& mine = thread_slots();
  mine.serve(this);
  if (mine.count == 0) {
    std::lock_guard<std::mutex> lock(mutex);
    mine.count = take_positions(mine.positions, kRefill);
    if (mine.count == 0) return MPI_REQUEST_NULL;
  }
  return take(mine.positions[--mine.count], slot);
}

void RequestPool::put_shared(MPI_Request handle) {
  const int position = retire(handle);
  ThreadSlots& mine = thread_slots();
  mine.serve(this);
  if (mine.count == kThreadSlots) {
    // Half back to the free list, for the threads that only take.
    std::lock_guard<std::mutex> lock(mutex);
    for (int i = kThreadSlots / 2; i < kThreadSlots; ++i) link_free(mine.positions[i]);
    mine.count = kThreadSlots / 2;
  }
  mine.positions[mine.count++] = position;
}

void RequestPool::return_positions(const int* positions, int count) {
  std::lock_guard<std::mutex> lock(mutex);
  for (int i = 0; i < count; ++i) link_free(positions[i]);
}

}  // namespace tern::mpi
