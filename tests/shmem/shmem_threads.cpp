// SHMEM_THREAD_MULTIPLE: shmem_init_thread provides it; 4 threads per PE
// then do puts, gets and AMOs to other PEs at the same time, on the default
// context and on private contexts of their own; the totals are exact and
// every thread's data lands where it should.
//
// Optional argument: iterations per thread (default 200).
#include <shmem.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "check.h"

namespace {

constexpr int kThreads = 4;
constexpr int kMaxPes = 64;
int g_iterations = 200;

long g_total = 0;                        // on PE 0: everybody adds
long g_from_left = 0;                    // each PE: its left neighbour's threads add
long g_ctx_total = 0;                    // each PE: added through private contexts
long g_slots[kMaxPes * kThreads * 2];    // [writer pe][thread][2]: last values put
long g_fetch_word = 0;                   // each PE: fetch_inc by the left neighbour's threads

void worker(int thread, std::atomic<long>* fetched_sum, std::atomic<int>* bad) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  const bool have_ctx = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
  if (!have_ctx) bad->fetch_add(1);
  long sum = 0;
  long previous = -1;
  for (int k = 0; k < g_iterations; ++k) {
    shmem_long_atomic_add(&g_total, 1, 0);
    shmem_long_atomic_inc(&g_from_left, right);
    const long got = shmem_long_atomic_fetch_inc(&g_fetch_word, right);
    if (got <= previous) bad->fetch_add(1);  // one thread's fetches increase
    previous = got;
    sum += got;
    // The slot pair of this (PE, thread) on the right neighbour.
    long* slot = &g_slots[(me % kMaxPes) * kThreads * 2 + thread * 2];
    const long pair[2] = {1000L * k + thread, -(1000L * k + thread)};
    shmem_long_put(slot, pair, 2, right);
    long back[2] = {0, 0};
    shmem_quiet();
    shmem_long_get(back, slot, 2, right);
    // Only this thread writes this slot: it reads back what it wrote.
    if (back[0] != pair[0] || back[1] != pair[1]) bad->fetch_add(1);
    if (have_ctx) {
      shmem_ctx_long_atomic_add(ctx, &g_ctx_total, 2, right);
      if (k % 16 == 0) shmem_ctx_quiet(ctx);
    }
  }
  if (have_ctx) {
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
  }
  shmem_quiet();
  fetched_sum->fetch_add(sum);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = -1;
  const int rc_init = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
  CHECK(rc_init == 0);
  CHECK(provided == SHMEM_THREAD_MULTIPLE);
  int queried = -1;
  shmem_query_thread(&queried);
  CHECK(queried == provided);
  if (argc > 1) g_iterations = std::max(1, std::atoi(argv[1]));
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int left = (me + n - 1) % n;
  CHECK(n <= kMaxPes);
  shmem_barrier_all();

  if (provided == SHMEM_THREAD_MULTIPLE && n <= kMaxPes) {
    std::atomic<long> fetched_sum{0};
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t, &fetched_sum, &bad);
    for (auto& t : threads) t.join();
    CHECK(bad.load() == 0);
    shmem_barrier_all();
    const long per_pe = static_cast<long>(kThreads) * g_iterations;
    if (me == 0) CHECK(g_total == per_pe * n);
    CHECK(g_from_left == per_pe);
    CHECK(g_fetch_word == per_pe);
    CHECK(g_ctx_total == 2 * per_pe);
    // The fetches on my right neighbour's word were 0 .. per_pe-1, each once.
    CHECK(fetched_sum.load() == per_pe * (per_pe - 1) / 2);
    // The last pair each of my left neighbour's threads put.
    bool ok = true;
    for (int t = 0; t < kThreads; ++t) {
      const long* slot = &g_slots[(left % kMaxPes) * kThreads * 2 + t * 2];
      const long last = 1000L * (g_iterations - 1) + t;
      ok = ok && slot[0] == last && slot[1] == -last;
    }
    CHECK(ok);
  }
  const int rc = tern_conclude("shmem_threads");
  shmem_finalize();
  return rc;
}
