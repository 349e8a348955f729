/* shmemx.h: Tern's extensions (shmemx_wtime, shmemx_nodename) and the
 * signed bitwise team reductions that programs written for Sandia OpenSHMEM
 * call, checked against a serial reduction of every PE's values; negative
 * values, so that a reduction done on the unsigned type of another width
 * would show. A C11 program: the header must serve C. */
#define _POSIX_C_SOURCE 200809L
#include <shmemx.h>

#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define N 9

/* Every PE's element i: distinct bits per PE and element, with the sign bit
 * set on every other element. */
#define VALUE(T, pe, i) ((T)((((i) % 2) ? -1 : 1) * (T)(((pe) * 37 + (i) * 11 + 3) & 0x7f)))

#define DEFINE_CHECK(T, NAME)                                                         \
  static T g_##NAME##_source[N];                                                      \
  static T g_##NAME##_dest[3][N];                                                     \
  static void check_##NAME(void) {                                                    \
    const int me = shmem_my_pe(), n = shmem_n_pes();                                  \
    for (int i = 0; i < N; ++i) g_##NAME##_source[i] = VALUE(T, me, i);               \
    shmem_team_sync(SHMEM_TEAM_WORLD);                                                \
    CHECK(shmem_##NAME##_and_reduce(SHMEM_TEAM_WORLD, g_##NAME##_dest[0], g_##NAME##_source, N) == 0); \
    CHECK(shmem_##NAME##_or_reduce(SHMEM_TEAM_WORLD, g_##NAME##_dest[1], g_##NAME##_source, N) == 0);  \
    CHECK(shmem_##NAME##_xor_reduce(SHMEM_TEAM_WORLD, g_##NAME##_dest[2], g_##NAME##_source, N) == 0); \
    for (int i = 0; i < N; ++i) {                                                     \
      T and_ = VALUE(T, 0, i), or_ = VALUE(T, 0, i), xor_ = VALUE(T, 0, i);           \
      for (int pe = 1; pe < n; ++pe) {                                                \
        and_ &= VALUE(T, pe, i);                                                      \
        or_ |= VALUE(T, pe, i);                                                       \
        xor_ ^= VALUE(T, pe, i);                                                      \
      }                                                                               \
      CHECK(g_##NAME##_dest[0][i] == and_);                                           \
      CHECK(g_##NAME##_dest[1][i] == or_);                                            \
      CHECK(g_##NAME##_dest[2][i] == xor_);                                           \
    }                                                                                 \
    shmem_team_sync(SHMEM_TEAM_WORLD);                                                \
  }

DEFINE_CHECK(short, short)
DEFINE_CHECK(int, int)
DEFINE_CHECK(long, long)
DEFINE_CHECK(long long, longlong)

static void check_wtime(void) {
  const double start = shmemx_wtime();
  CHECK(start > 0);
  const struct timespec pause = {0, 2000000};
  nanosleep(&pause, NULL);
  const double elapsed = shmemx_wtime() - start;
  CHECK(elapsed >= 0.0015 && elapsed < 5);
}

static void check_nodename(void) {
  char host[HOST_NAME_MAX + 1] = {0};
  CHECK(gethostname(host, sizeof(host)) == 0);
  const char* name = shmemx_nodename();
  if (CHECK(name != NULL)) CHECK(strcmp(name, host) == 0);
  CHECK(shmemx_nodename() == name); /* the library's string, not a new one per call */
}

int main(void) {
  shmem_init();
  check_wtime();
  check_nodename();
  check_short();
  check_int();
  check_long();
  check_longlong();
  const int rc = tern_conclude("shmem_extensions");
  shmem_finalize();
  return rc;
}
