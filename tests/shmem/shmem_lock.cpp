// Distributed locks under contention: every PE, many times, takes the lock
// (shmem_set_lock, or shmem_test_lock until it succeeds), does a non-atomic
// read-modify-write of a counter on one PE (a get, then a put), and releases
// it with shmem_clear_lock (which completes the critical section's stores).
// The total is exact only if the lock excludes; an "occupancy" word counts
// the PEs inside and must never be seen above zero on entry. Static and heap
// lock words, two locks nested in a fixed order.
//
// Optional argument: iterations per PE (default 100).
#include <shmem.h>

#include <algorithm>
#include <cstdlib>

#include "check.h"

namespace {

long g_lock = 0;         // static lock word (symmetric, zero-initialized)
long g_inner_lock = 0;   // taken inside g_lock
long g_counter = 0;      // on PE 0
long g_inner_counter = 0;  // on the last PE
long g_inside = 0;       // PEs inside g_lock's critical section, on PE 0

int g_iterations = 100;

void acquire(long* lock, int k) {
  if (k % 2 == 0) {
    shmem_set_lock(lock);
  } else {
    while (shmem_test_lock(lock) != 0) {
    }
  }
}

void critical_section(long* counter, int owner, long* inside, int inside_owner) {
  if (inside != nullptr) {
    const long before = shmem_long_atomic_fetch_inc(inside, inside_owner);
    CHECK(before == 0);  // nobody else in here
  }
  const long value = shmem_long_g(counter, owner);
  shmem_long_p(counter, value + 1, owner);  // completed by clear_lock
  if (inside != nullptr) shmem_long_atomic_add(inside, -1, inside_owner);
}

void test_static_locks() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int last = n - 1;
  shmem_barrier_all();
  int inner_rounds = 0;
  for (int k = 0; k < g_iterations; ++k) {
    acquire(&g_lock, k + me);
    critical_section(&g_counter, 0, &g_inside, 0);
    if (k % 5 == 0) {
      acquire(&g_inner_lock, k / 5);
      critical_section(&g_inner_counter, last, nullptr, 0);
      shmem_clear_lock(&g_inner_lock);
      ++inner_rounds;
    }
    shmem_clear_lock(&g_lock);
  }
  shmem_barrier_all();
  if (me == 0) CHECK(g_counter == static_cast<long>(n) * g_iterations);
  if (me == 0) CHECK(g_inside == 0);
  if (me == last) CHECK(g_inner_counter == static_cast<long>(n) * inner_rounds);
  // Everybody agrees, through a get.
  CHECK(shmem_long_g(&g_counter, 0) == static_cast<long>(n) * g_iterations);
  shmem_barrier_all();
}

// The lock word on the symmetric heap; the counter on the middle PE.
void test_heap_lock() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int owner = n / 2;
  long* words = static_cast<long*>(shmem_calloc(4, sizeof(long)));
  if (!CHECK(words != nullptr)) return;
  long* lock = &words[0];
  long* counter = &words[1];
  long* inside = &words[2];
  const int rounds = std::max(1, g_iterations / 2);
  for (int k = 0; k < rounds; ++k) {
    acquire(lock, k);
    critical_section(counter, owner, inside, owner);
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  if (me == owner) {
    CHECK(*counter == static_cast<long>(n) * rounds);
    CHECK(*inside == 0);
  }
  // test_lock on a free lock takes it; on a held lock it fails without
  // waiting (only one PE at a time tries here).
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me) {
      CHECK(shmem_test_lock(lock) == 0);
      shmem_clear_lock(lock);
    }
    shmem_barrier_all();
  }
  if (n > 1) {
    if (me == 0) CHECK(shmem_test_lock(lock) == 0);
    shmem_barrier_all();
    if (me == 1) CHECK(shmem_test_lock(lock) != 0);  // held by PE 0
    shmem_barrier_all();
    if (me == 0) shmem_clear_lock(lock);
    shmem_barrier_all();
    if (me == 1) {
      CHECK(shmem_test_lock(lock) == 0);
      shmem_clear_lock(lock);
    }
  }
  shmem_barrier_all();
  shmem_free(words);
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  if (argc > 1) g_iterations = std::max(1, std::atoi(argv[1]));
  test_static_locks();
  test_heap_lock();
  const int rc = tern_conclude("shmem_lock");
  shmem_finalize();
  return rc;
}
