/* Checks for the OpenSHMEM conformance programs, usable from C11 and C++20:
 * count failed checks per PE, report each on stderr with its line, and agree
 * on the outcome at the end (PE 0 prints "<name>: PASS on <n> PEs" or
 * "<name>: FAIL (<k> failed checks)").
 *
 * Only <shmem.h> is used. Parts of the suite that need OpenSHMEM 1.5 (teams,
 * signals, team-based collectives, the wider AMO types, ...) are guarded by
 * TERN_SHMEM_1_5, so that the programs also build against a 1.4 library (such
 * as Open MPI's) and check what it has. */
#ifndef TERN_TESTS_SHMEM_CHECK_H
#define TERN_TESTS_SHMEM_CHECK_H

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 105
#define TERN_SHMEM_1_5 1
#else
#define TERN_SHMEM_1_5 0
#endif

#ifdef __cplusplus
#define TERN_CHECK_UNUSED [[maybe_unused]]
#else
#define TERN_CHECK_UNUSED __attribute__((unused))
#endif

/* Failed checks on this PE. Updated atomically: threads may check too. */
TERN_CHECK_UNUSED static int tern_check_failures = 0;
/* Only the first few failures of a PE are printed; all are counted. */
#define TERN_CHECK_PRINT_LIMIT 25

TERN_CHECK_UNUSED static int tern_check_fail(const char* what, int line) {
  int seen = __atomic_fetch_add(&tern_check_failures, 1, __ATOMIC_RELAXED);
  if (seen < TERN_CHECK_PRINT_LIMIT) {
    fprintf(stderr, "pe %d: check failed at line %d: %s\n", shmem_my_pe(), line, what);
    fflush(stderr);
  } else if (seen == TERN_CHECK_PRINT_LIMIT) {
    fprintf(stderr, "pe %d: further failed checks are counted but not printed\n", shmem_my_pe());
    fflush(stderr);
  }
  return 0;
}

/* CHECK(condition): counts and reports a failure; evaluates to the outcome. */
#define CHECK(condition) ((condition) ? 1 : tern_check_fail(#condition, __LINE__))

/* Symmetric scratch for the final agreement (and for tern_sum_long below). */
TERN_CHECK_UNUSED static long tern_check_sum_in = 0;
TERN_CHECK_UNUSED static long tern_check_sum_out = 0;
#if !TERN_SHMEM_1_5
TERN_CHECK_UNUSED static long tern_check_pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
TERN_CHECK_UNUSED static long tern_check_psync[SHMEM_REDUCE_SYNC_SIZE];
TERN_CHECK_UNUSED static int tern_check_psync_ready = 0;
#endif

/* The sum of `value` over all PEs (collective over the world). */
TERN_CHECK_UNUSED static long tern_sum_long(long value) {
  tern_check_sum_in = value;
  tern_check_sum_out = 0;
#if TERN_SHMEM_1_5
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &tern_check_sum_out, &tern_check_sum_in, 1);
#else
  if (!tern_check_psync_ready) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) tern_check_psync[i] = SHMEM_SYNC_VALUE;
    tern_check_psync_ready = 1;
  }
  shmem_barrier_all(); /* every pSync initialised, the previous call over */
  shmem_long_sum_to_all(&tern_check_sum_out, &tern_check_sum_in, 1, 0, 0, shmem_n_pes(),
                        tern_check_pwrk, tern_check_psync);
#endif
  long result = tern_check_sum_out;
  shmem_barrier_all();
  return result;
}

/* Sums the failures over all PEs; PE 0 prints the verdict. Returns the exit
 * code for main (the caller then calls shmem_finalize). */
TERN_CHECK_UNUSED static int tern_conclude(const char* name) {
  shmem_barrier_all();
  long total = tern_sum_long(__atomic_load_n(&tern_check_failures, __ATOMIC_RELAXED));
  if (shmem_my_pe() == 0) {
    if (total == 0) {
      printf("%s: PASS on %d PEs\n", name, shmem_n_pes());
    } else {
      printf("%s: FAIL (%ld failed checks)\n", name, total);
    }
    fflush(stdout);
  }
  fflush(stderr);
  return total == 0 ? 0 : 1;
}

/* The job id under ternrun (names the job's /dev/shm entries), or "". */
TERN_CHECK_UNUSED static const char* tern_job_id(void) {
  const char* job = getenv("TERN_JOB_ID");
  return job != NULL ? job : "";
}

#endif /* TERN_TESTS_SHMEM_CHECK_H */
