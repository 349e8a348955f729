/* The C11 type-generic interfaces: shmem_put/get/p/g/iput/iget/put_nbi/
 * get_nbi (with and without a leading context), the shmem_atomic_* generics,
 * shmem_wait_until and shmem_test; in 1.5 also the multi-variable waits and
 * tests, put_signal, the fetching nbi AMOs and the team collectives and
 * reductions. Then the complex reductions, which only C has:
 * shmem_complex{d,f}_{sum,prod}_to_all, and _reduce in 1.5. Each generic call
 * is checked to reach the routine of its argument type. */
#include <shmem.h>

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define N 16

static int g_int[N];
static long g_long[N];
static double g_double[N];
static float g_float[N];
static unsigned char g_uchar[N];
static int64_t g_int64[N];
static size_t g_size[N];
static unsigned long g_ulong[N];
static long g_flag;

static void test_rma(void) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  int src_int[N];
  double src_double[N];
  unsigned char src_uchar[N];
  int64_t src_int64[N];
  for (int i = 0; i < N; ++i) {
    src_int[i] = me * 100 + i;
    src_double[i] = me + i * 0.25;
    src_uchar[i] = (unsigned char)(me * 10 + i);
    src_int64[i] = (int64_t)me * 10000000000LL + i;
    g_int[i] = 0;
    g_double[i] = 0;
    g_uchar[i] = 0;
    g_int64[i] = 0;
    g_float[i] = 0;
    g_size[i] = 0;
  }
  shmem_barrier_all();
  shmem_put(g_int, src_int, N, right);
  shmem_put(SHMEM_CTX_DEFAULT, g_double, src_double, N, right);
  shmem_put_nbi(g_uchar, src_uchar, N, right);
  shmem_iput(g_int64, src_int64, 2, 1, N / 2, right);
  shmem_p(&g_float[3], (float)(me + 0.5f), right);
  shmem_p(SHMEM_CTX_DEFAULT, &g_size[2], (size_t)(me + 7), right);
  shmem_quiet();
  shmem_barrier_all();
  int ok = 1;
  for (int i = 0; i < N; ++i) {
    ok = ok && g_int[i] == left * 100 + i;
    ok = ok && g_double[i] == left + i * 0.25;
    ok = ok && g_uchar[i] == (unsigned char)(left * 10 + i);
    ok = ok && g_int64[i] == ((i % 2 == 0) ? (int64_t)left * 10000000000LL + i / 2 : 0);
  }
  CHECK(ok);
  CHECK(g_float[3] == (float)(left + 0.5f));
  CHECK(g_size[2] == (size_t)(left + 7));

  int got_int[N];
  double got_double[N];
  int64_t got_int64[N];
  memset(got_int, 0, sizeof(got_int));
  memset(got_int64, 0, sizeof(got_int64));
  shmem_get(got_int, g_int, N, right);
  shmem_get(SHMEM_CTX_DEFAULT, got_double, g_double, N, right);
  shmem_iget(got_int64, g_int64, 1, 2, N / 2, right);
  ok = 1;
  for (int i = 0; i < N; ++i) {
    ok = ok && got_int[i] == me * 100 + i;  /* right's copy came from me */
    ok = ok && got_double[i] == me + i * 0.25;
  }
  for (int i = 0; i < N / 2; ++i) ok = ok && got_int64[i] == (int64_t)me * 10000000000LL + i;
  CHECK(ok);
  memset(got_int, 0, sizeof(got_int));
  shmem_get_nbi(got_int, g_int, N, right);
  shmem_quiet();
  CHECK(got_int[N - 1] == me * 100 + N - 1);
  CHECK(shmem_g(&g_float[3], right) == (float)(me + 0.5f));
  CHECK(shmem_g(SHMEM_CTX_DEFAULT, &g_size[2], right) == (size_t)(me + 7));
  shmem_barrier_all();
}

static void test_amo(void) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int target = n - 1;
  g_long[0] = 0;
  g_long[1] = 0;
  g_ulong[0] = 0;
  g_ulong[1] = ~0UL;
  g_ulong[2] = 0;
  g_double[0] = 0;
  g_int[0] = 0;
  shmem_barrier_all();
  shmem_atomic_inc(&g_long[0], target);
  shmem_atomic_add(&g_long[0], 2L, target);
  (void)shmem_atomic_fetch_inc(&g_long[1], target);
  (void)shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, &g_long[1], 4L, target);
  shmem_atomic_or(&g_ulong[0], 1UL << me, target);
  shmem_atomic_and(&g_ulong[1], ~(1UL << me), target);
  shmem_atomic_xor(&g_ulong[2], 1UL << me, target);
  shmem_atomic_inc(SHMEM_CTX_DEFAULT, &g_int[0], target);
  /* compare_swap as an increment */
  long seen = shmem_atomic_fetch(&g_long[2], target);
  for (;;) {
    long old = shmem_atomic_compare_swap(&g_long[2], seen, seen + 1, target);
    if (old == seen) break;
    seen = old;
  }
  shmem_quiet();
  shmem_barrier_all();
  unsigned long bits = 0;
  for (int pe = 0; pe < n; ++pe) bits |= 1UL << pe;
  if (me == target) {
    CHECK(g_long[0] == 3L * n);
    CHECK(g_long[1] == 5L * n);
    CHECK(g_long[2] == n);
    CHECK(g_ulong[0] == bits);
    CHECK(g_ulong[1] == ~bits);
    CHECK(g_ulong[2] == bits);
    CHECK(g_int[0] == n);
  }
  shmem_barrier_all();
  /* Extended types: fetch, set, swap on double; fetching bitwise ops. */
  const int right = (me + 1) % n;
  shmem_atomic_set(&g_double[1 + me % (N - 1)], 2.5, right);
  shmem_quiet();
  CHECK(shmem_atomic_fetch(&g_double[1 + me % (N - 1)], right) == 2.5);
  CHECK(shmem_atomic_swap(&g_double[1 + me % (N - 1)], -1.0, right) == 2.5);
  CHECK(shmem_atomic_fetch(SHMEM_CTX_DEFAULT, &g_double[1 + me % (N - 1)], right) == -1.0);
  g_ulong[3 + me % (N - 3)] = 0;
  shmem_barrier_all();
  unsigned long *word = &g_ulong[3 + me % (N - 3)];
  shmem_atomic_set(word, 0xcUL, right);
  shmem_quiet();
  CHECK(shmem_atomic_fetch_and(word, 0xaUL, right) == 0xcUL);
  CHECK(shmem_atomic_fetch_or(word, 0x1UL, right) == 0x8UL);
  CHECK(shmem_atomic_fetch_xor(word, 0xfUL, right) == 0x9UL);
  CHECK(shmem_atomic_fetch(word, right) == 0x6UL);
#if TERN_SHMEM_1_5
  unsigned long fetched = 0;
  shmem_atomic_fetch_nbi(&fetched, word, right);
  shmem_quiet();
  CHECK(fetched == 0x6UL);
  shmem_atomic_swap_nbi(&fetched, word, 0x30UL, right);
  shmem_quiet();
  CHECK(fetched == 0x6UL);
  shmem_atomic_fetch_add_nbi(&fetched, word, 0x1UL, right);
  shmem_quiet();
  CHECK(fetched == 0x30UL);
  shmem_atomic_fetch_inc_nbi(&fetched, word, right);
  shmem_quiet();
  CHECK(fetched == 0x31UL);
  shmem_atomic_compare_swap_nbi(&fetched, word, 0x32UL, 0x40UL, right);
  shmem_quiet();
  CHECK(fetched == 0x32UL);
  shmem_atomic_fetch_and_nbi(&fetched, word, 0xc0UL, right);
  shmem_quiet();
  CHECK(fetched == 0x40UL);
  shmem_atomic_fetch_or_nbi(&fetched, word, 0x1UL, right);
  shmem_quiet();
  CHECK(fetched == 0x40UL);
  shmem_atomic_fetch_xor_nbi(&fetched, word, 0x41UL, right);
  shmem_quiet();
  CHECK(fetched == 0x41UL);
  CHECK(shmem_atomic_fetch(word, right) == 0UL);
#endif
  shmem_barrier_all();
}

static void test_p2p(void) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  g_int[5] = 0;
  g_long[5] = 0;
  g_size[5] = 0;
  g_flag = 0;
  CHECK(shmem_test(&g_int[5], SHMEM_CMP_NE, 0) == 0);
  shmem_barrier_all();
  shmem_p(&g_int[5], 3, right);
  shmem_p(&g_long[5], 4L, right);
  shmem_p(&g_size[5], (size_t)5, right);
  shmem_atomic_set(&g_flag, 9L, right);
  shmem_quiet();
  shmem_wait_until(&g_int[5], SHMEM_CMP_EQ, 3);
  shmem_wait_until(&g_long[5], SHMEM_CMP_GE, 4L);
  while (!shmem_test(&g_size[5], SHMEM_CMP_GT, (size_t)4)) {
  }
  shmem_wait(&g_flag, 0L); /* legacy: returns once the value differs */
  CHECK(g_int[5] == 3 && g_long[5] == 4 && g_size[5] == 5 && g_flag == 9);
  shmem_barrier_all();
#if TERN_SHMEM_1_5
  for (int i = 0; i < N; ++i) g_long[i] = i;
  size_t indices[N];
  int status[N] = {0};
  long wanted[N];
  for (int i = 0; i < N; ++i) wanted[i] = i;
  CHECK(shmem_test_all(g_long, N, NULL, SHMEM_CMP_GE, 0L) == 1);
  CHECK(shmem_test_any(g_long, N, NULL, SHMEM_CMP_EQ, 7L) == 7);
  CHECK(shmem_test_some(g_long, N, indices, status, SHMEM_CMP_GE, 14L) == 2);
  CHECK(shmem_test_all_vector(g_long, N, NULL, SHMEM_CMP_EQ, wanted) == 1);
  CHECK(shmem_test_any_vector(g_long, N, NULL, SHMEM_CMP_NE, wanted) == SIZE_MAX);
  CHECK(shmem_test_some_vector(g_long, N, indices, NULL, SHMEM_CMP_LE, wanted) == N);
  shmem_wait_until_all(g_long, N, NULL, SHMEM_CMP_LT, 100L);
  CHECK(shmem_wait_until_any(g_long, N, NULL, SHMEM_CMP_EQ, 3L) == 3);
  CHECK(shmem_wait_until_some(g_long, N, indices, NULL, SHMEM_CMP_EQ, 4L) == 1 && indices[0] == 4);
  shmem_wait_until_all_vector(g_long, N, NULL, SHMEM_CMP_EQ, wanted);
  CHECK(shmem_wait_until_any_vector(g_long, N, NULL, SHMEM_CMP_EQ, wanted) < N);
  CHECK(shmem_wait_until_some_vector(g_long, N, indices, NULL, SHMEM_CMP_EQ, wanted) == N);
  shmem_barrier_all();
  /* put_signal, generic. */
  static uint64_t sig = 0;
  sig = 0;
  for (int i = 0; i < N; ++i) g_double[i] = 0;
  shmem_barrier_all();
  double out[N];
  for (int i = 0; i < N; ++i) out[i] = me * 2.0 + i;
  shmem_put_signal(g_double, out, N, &sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, g_int, (int *)g_int, 0, &sig, 1, SHMEM_SIGNAL_ADD, right);
  CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 2) == 2);
  const int left = (me + n - 1) % n;
  CHECK(g_double[N - 1] == left * 2.0 + N - 1);
  shmem_quiet();
  shmem_barrier_all();
#endif
}

#if TERN_SHMEM_1_5
static void test_team_collectives(void) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  static long src[N * 64], dst[N * 64];
  static double dsrc[N], ddst[N];
  for (int i = 0; i < N; ++i) {
    src[i] = me * 100 + i;
    dsrc[i] = me + i;
  }
  shmem_barrier_all();
  CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, N, n - 1) == 0);
  CHECK(dst[N - 1] == (n - 1) * 100 + N - 1);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, 2) == 0);
  CHECK(dst[2 * (n - 1) + 1] == (n - 1) * 100 + 1);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_collect(SHMEM_TEAM_WORLD, dst, src, 1) == 0);
  CHECK(dst[n - 1] == (n - 1) * 100);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  for (int pe = 0; pe < n && pe < 64; ++pe) src[pe] = me * 1000 + pe;
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, 1) == 0);
  int ok = 1;
  for (int pe = 0; pe < n && pe < 64; ++pe) ok = ok && dst[pe] == pe * 1000 + me;
  CHECK(ok);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, 1, 1) == 0);
  CHECK(dst[0] == me);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, N) == 0);
  CHECK(ddst[1] == n * (n - 1) / 2.0 + n);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0);
  CHECK(dst[0] == (n - 1) * 1000);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  static unsigned long usrc[1], udst[1];
  usrc[0] = 1UL << me;
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, udst, usrc, 1) == 0);
  CHECK(udst[0] == (n >= 64 ? ~0UL : (1UL << n) - 1));
  shmem_team_sync(SHMEM_TEAM_WORLD);
}
#endif

/* Complex sums and products: (1 + i*pe) summed, and a product of units. */
static double _Complex g_cd_src[N], g_cd_dst[N];
static float _Complex g_cf_src[N], g_cf_dst[N];
static double _Complex g_cd_work[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static float _Complex g_cf_work[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long g_psync[SHMEM_REDUCE_SYNC_SIZE];

static void test_complex(void) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) g_psync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < N; ++i) {
    g_cd_src[i] = (double)(1 + i) + (double)me * I;
    g_cf_src[i] = (float)(2 + i) - (float)me * I;
  }
  double _Complex sum_d[N], prod_d[N];
  float _Complex sum_f[N];
  for (int i = 0; i < N; ++i) {
    sum_d[i] = 0;
    prod_d[i] = 1;
    sum_f[i] = 0;
    for (int pe = 0; pe < n; ++pe) {
      sum_d[i] += (double)(1 + i) + (double)pe * I;
      prod_d[i] *= (pe % 2 == 0) ? I : -1.0;
      sum_f[i] += (float)(2 + i) - (float)pe * I;
    }
  }
  shmem_barrier_all();
  shmem_complexd_sum_to_all(g_cd_dst, g_cd_src, N, 0, 0, n, g_cd_work, g_psync);
  int ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && g_cd_dst[i] == sum_d[i];
  CHECK(ok);
  shmem_barrier_all();
  shmem_complexf_sum_to_all(g_cf_dst, g_cf_src, N, 0, 0, n, g_cf_work, g_psync);
  ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && g_cf_dst[i] == sum_f[i];
  CHECK(ok);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) g_cd_src[i] = (me % 2 == 0) ? I : -1.0;
  shmem_barrier_all();
  shmem_complexd_prod_to_all(g_cd_dst, g_cd_src, N, 0, 0, n, g_cd_work, g_psync);
  ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && g_cd_dst[i] == prod_d[i];
  CHECK(ok);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) g_cf_src[i] = (me % 2 == 0) ? 2.0f * I : 1.0f;
  shmem_barrier_all();
  shmem_complexf_prod_to_all(g_cf_dst, g_cf_src, N, 0, 0, n, g_cf_work, g_psync);
  float _Complex prod_f = 1;
  for (int pe = 0; pe < n; ++pe) prod_f *= (pe % 2 == 0) ? 2.0f * I : 1.0f;
  CHECK(g_cf_dst[N - 1] == prod_f);
  shmem_barrier_all();
#if TERN_SHMEM_1_5
  for (int i = 0; i < N; ++i) g_cd_src[i] = (double)(1 + i) + (double)me * I;
  shmem_barrier_all();
  CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, g_cd_dst, g_cd_src, N) == 0);
  ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && g_cd_dst[i] == sum_d[i];
  CHECK(ok);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  for (int i = 0; i < N; ++i) g_cf_src[i] = (me % 2 == 0) ? 2.0f * I : 1.0f;
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, g_cf_dst, g_cf_src, N) == 0);
  CHECK(g_cf_dst[0] == prod_f);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, g_cd_dst, g_cd_src, 1) == 0); /* generic, complex */
  CHECK(g_cd_dst[0] == sum_d[0]);
  shmem_team_sync(SHMEM_TEAM_WORLD);
#endif
}

int main(void) {
  shmem_init();
  test_rma();
  test_amo();
  test_p2p();
#if TERN_SHMEM_1_5
  test_team_collectives();
#endif
  test_complex();
  const int rc = tern_conclude("shmem_generic");
  shmem_finalize();
  return rc;
}
