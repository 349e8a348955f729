/* The deprecated entry points: start_pes (twice: the second call has no
 * effect), _my_pe and _num_pes, the legacy allocators on top of it, and the
 * implicit finalization at exit (no shmem_finalize call). */
#include <shmem.h>

#include <stdint.h>

#include "check.h"

static int g_ring[64];

int main(void) {
  start_pes(0);
  const int me = _my_pe();
  const int n = _num_pes();
  start_pes(0); /* no subsequent effect */

  CHECK(n >= 1);
  CHECK(me >= 0 && me < n);
  CHECK(me == shmem_my_pe());
  CHECK(n == shmem_n_pes());
  CHECK(_my_pe() == me);
  CHECK(_num_pes() == n);
  CHECK(tern_sum_long(me) == (long)n * (n - 1) / 2);

  /* The library works after start_pes: a ring of puts on static data. */
  const int right = (me + 1) % n;
  shmem_int_p(&g_ring[me], 100 + me, right);
  shmem_barrier_all();
  const int left = (me + n - 1) % n;
  CHECK(g_ring[left] == 100 + left);

  /* And the legacy allocators. */
  long* block = (long*)shmalloc(32 * sizeof(long));
  CHECK(block != NULL);
  if (block != NULL) {
    for (int i = 0; i < 32; ++i) block[i] = 0;
    shmem_barrier_all();
    shmem_long_p(&block[me % 32], me + 1, right);
    shmem_barrier_all();
    CHECK(block[left % 32] == left + 1);
    long* bigger = (long*)shrealloc(block, 64 * sizeof(long));
    CHECK(bigger != NULL);
    if (bigger != NULL) {
      CHECK(bigger[left % 32] == left + 1);
      block = bigger;
    }
    void* aligned = shmemalign(256, 100);
    CHECK(aligned != NULL && ((uintptr_t)aligned % 256) == 0);
    shmem_barrier_all();
    shfree(aligned);
    shfree(block);
  }

  /* No shmem_finalize: start_pes finalizes implicitly at exit. */
  return tern_conclude("shmem_legacy_init");
}
