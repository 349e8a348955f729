// Bad input that must end the job cleanly: the library reports the error,
// naming the call, and the job exits non-zero (it does not hang, and it does
// not return as if nothing happened). One case per run, chosen by argv[1]:
//
//   nonsym_put   shmem_putmem to a stack variable (not symmetric)
//   nonsym_get   shmem_getmem from a stack variable
//   heap_overrun shmem_putmem of 1 TiB into a 64-byte heap block
//   pe_put       shmem_putmem to a PE out of range
//   pe_amo       shmem_long_atomic_inc on a PE out of range
//   team         shmem_team_sync on SHMEM_TEAM_INVALID (1.5): the library may
//                abort, or return nonzero; then this program ends the job
//   global_exit  shmem_global_exit(7) on PE 0 while the others wait
//   global_exit_zero  shmem_global_exit(0): the job ends with exit code 0
//
// PE 0 does the bad call; the other PEs wait in a barrier that never
// completes, so the job only ends if the error ends it. If the bad call
// returns, the program says so ("BAD_INPUT_NOT_REJECTED") and exits 0, which
// the test (tests/shmem/expect_failure.sh) reports as a failure.
#include <shmem.h>

#include <cstdio>
#include <cstring>

#include "check.h"

namespace {

long g_symmetric[8];

void not_rejected(const char* call) {
  std::printf("shmem_bad_input: %s returned: BAD_INPUT_NOT_REJECTED\n", call);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const char* which = argc > 1 ? argv[1] : "";
  if (me == 0) {
    std::printf("shmem_bad_input: job %s case %s\n", tern_job_id(), which);
    std::fflush(stdout);
  }
  shmem_barrier_all();
  if (me == 0) {
    long on_stack[8] = {0};
    const long source[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const int right = (me + 1) % n;
    if (std::strcmp(which, "nonsym_put") == 0) {
      shmem_putmem(on_stack, source, sizeof(source), right);
      shmem_quiet();
      not_rejected("shmem_putmem");
    } else if (std::strcmp(which, "nonsym_get") == 0) {
      long into[8];
      shmem_getmem(into, on_stack, sizeof(into), right);
      not_rejected("shmem_getmem");
    } else if (std::strcmp(which, "heap_overrun") == 0) {
      // Starts in a heap block, runs a TiB past it: out of bounds, and said so.
      auto* block = static_cast<char*>(shmem_malloc(64));
      shmem_putmem(block, source, std::size_t{1} << 40, right);
      shmem_quiet();
      not_rejected("shmem_putmem");
    } else if (std::strcmp(which, "pe_put") == 0) {
      shmem_putmem(g_symmetric, source, sizeof(source), n + 5);
      shmem_quiet();
      not_rejected("shmem_putmem");
    } else if (std::strcmp(which, "pe_amo") == 0) {
      shmem_long_atomic_inc(&g_symmetric[0], -2);
      shmem_quiet();
      not_rejected("shmem_long_atomic_inc");
    } else if (std::strcmp(which, "team") == 0) {
#if TERN_SHMEM_1_5
      const int rc = shmem_team_sync(SHMEM_TEAM_INVALID);
      if (rc != 0) {
        std::printf("shmem_bad_input: shmem_team_sync rejected SHMEM_TEAM_INVALID (returned %d)\n", rc);
        std::fflush(stdout);
        shmem_global_exit(3);
      }
      not_rejected("shmem_team_sync");
#else
      std::printf("shmem_bad_input: shmem_team_sync needs OpenSHMEM 1.5\n");
      std::fflush(stdout);
      shmem_global_exit(3);
#endif
    } else if (std::strcmp(which, "global_exit") == 0) {
      std::printf("shmem_bad_input: calling shmem_global_exit(7)\n");
      std::fflush(stdout);
      shmem_global_exit(7);
      not_rejected("shmem_global_exit");
    } else if (std::strcmp(which, "global_exit_zero") == 0) {
      std::printf("shmem_bad_input: calling shmem_global_exit(0)\n");
      std::fflush(stdout);
      shmem_global_exit(0);
      not_rejected("shmem_global_exit");
    } else {
      std::printf("shmem_bad_input: unknown case '%s'\n", which);
      std::fflush(stdout);
      shmem_global_exit(2);
    }
    shmem_finalize();
    return 0;
  }
  // The others wait for PE 0, which never comes.
  shmem_barrier_all();
  std::printf("shmem_bad_input: pe %d passed a barrier PE 0 never entered: BAD_INPUT_NOT_REJECTED\n", me);
  shmem_finalize();
  return 0;
}
