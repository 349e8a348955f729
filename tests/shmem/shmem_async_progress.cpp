// Asynchronous progress through OpenSHMEM over TCP (where a remote PE's get
// is an active message its target must answer): PE 1 computes 200 ms
// without calling the library while PE 0, 50 ms into it, gets 1 MiB from it. With a
// progress thread (TERN_PROGRESS=thread or thread-blocking) the get ends
// while PE 1 still computes; without one, only after. The first argument
// says which to expect: "async" or "caller".
#include <time.h>

#include <cstdio>
#include <cstring>

#include "check.h"

namespace {

constexpr std::size_t kLength = 1u << 20;
constexpr double kComputeSeconds = 0.2;
constexpr double kSettleSeconds = 0.05;

// CLOCK_MONOTONIC: one clock for both PEs of a host.
double host_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const bool expect_async = argc > 1 && std::strcmp(argv[1], "async") == 0;
  const int me = shmem_my_pe();
  CHECK(shmem_n_pes() == 2);
  auto* source = static_cast<unsigned char*>(shmem_malloc(kLength));
  auto* computed_until = static_cast<double*>(shmem_malloc(sizeof(double)));
  for (std::size_t i = 0; i < kLength; ++i) source[i] = static_cast<unsigned char>(i * 5 + me);
  *computed_until = 0;
  shmem_barrier_all();
  if (me == 1) {
    const double until = host_seconds() + kComputeSeconds;
    volatile unsigned sink = 0;
    while (host_seconds() < until) sink = sink + 1;
    *computed_until = host_seconds();
  } else {
    static unsigned char got[kLength];
    // PE 1 may still be inside the barrier (and so answer a get at once)
    // just after PE 0 has left it: ask once it surely computes.
    const double settle_until = host_seconds() + kSettleSeconds;
    while (host_seconds() < settle_until) {
    }
    const double started = host_seconds();
    shmem_getmem(got, source, kLength, 1);
    const double done = host_seconds();
    bool intact = true;
    for (std::size_t i = 0; i < kLength; ++i) intact = intact && got[i] == static_cast<unsigned char>(i * 5 + 1);
    CHECK(intact);
    shmem_barrier_all();
    double until = 0;
    shmem_getmem(&until, computed_until, sizeof(until), 1);
    std::printf("shmem_async_progress: the 1 MiB get took %.1f ms, ending %.1f ms %s PE 1 stopped computing\n",
                (done - started) * 1e3, (done > until ? done - until : until - done) * 1e3,
                done > until ? "after" : "before");
    CHECK(expect_async ? done < until : done >= until);
  }
  if (me == 1) shmem_barrier_all();
  const int rc = tern_conclude("shmem_async_progress");
  shmem_free(computed_until);
  shmem_free(source);
  shmem_finalize();
  return rc;
}
