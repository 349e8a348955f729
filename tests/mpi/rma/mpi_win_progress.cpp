// Passive target while the target computes outside MPI: with a progress
// thread (TERN_PROGRESS=thread or thread-blocking), a served window's target
// answers locks, puts, gets and accumulates while its own thread sleeps in
// a loop that calls no MPI function. Rank 0 is the target; it waits, without
// calling MPI, until every other rank's last put (a marker in its window)
// has landed, or gives up after kPatience seconds. Without a progress
// thread (the default) the origins would wait for rank 0 and the markers
// never come, as the README says: this program is run only with one.
#include <time.h>

#include <cstdio>
#include <vector>

#include "check.hpp"

namespace {

constexpr int kSlots = 64;
constexpr int kMarkers = 32;  // memory[kMarkers + r]: rank r's epochs are over

double now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Naps until every origin's marker is in `memory` or `seconds` have gone,
// calling nothing of MPI; whether all markers came. Its loads race by
// design with the progress thread's stores into the window (the unified
// memory model lets a program watch its window so): kept out of
// ThreadSanitizer's view, and the values are checked only after a barrier,
// which orders them.
__attribute__((no_sanitize("thread"))) bool wait_outside_mpi(long long* memory, int size, double seconds) {
  const double end = now() + seconds;
  for (;;) {
    int marked = 0;
    for (int r = 1; r < size; ++r) {
      marked += static_cast<volatile long long*>(memory)[kMarkers + r] == 1 ? 1 : 0;
    }
    if (marked == size - 1) return true;
    if (now() > end) return false;
    timespec nap{0, 1000000};
    nanosleep(&nap, nullptr);
  }
}

constexpr double kPatience = 30.0;

void run(int rank, int size, bool dynamic) {
  std::vector<long long> memory(kSlots, 0);
  MPI_Win win = MPI_WIN_NULL;
  MPI_Aint base = 0;
  if (dynamic) {
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(win, memory.data(), kSlots * sizeof(long long)) == MPI_SUCCESS);
    MPI_Get_address(memory.data(), &base);
    MPI_Bcast(&base, 1, MPI_AINT, 0, MPI_COMM_WORLD);
  } else {
    CHECK(MPI_Win_create(memory.data(), kSlots * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  }
  const MPI_Aint unit = dynamic ? static_cast<MPI_Aint>(sizeof(long long)) : 1;
  MPI_Barrier(MPI_COMM_WORLD);
  bool all_came = true;
  if (rank == 0) {
    all_came = wait_outside_mpi(memory.data(), size, kPatience);
  } else {
    long long mine = 1000 + rank;
    long long one = 1;
    long long seen = -1;
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&mine, 1, MPI_LONG_LONG, 0, base + rank * unit, 1, MPI_LONG_LONG, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    CHECK(MPI_Get(&seen, 1, MPI_LONG_LONG, 0, base + rank * unit, 1, MPI_LONG_LONG, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    CHECK(seen == mine);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    for (int i = 0; i < 10; ++i) {
      CHECK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, base, 1, MPI_LONG_LONG, MPI_SUM, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    // Last, the marker: rank 0 looks for it without calling MPI.
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&one, 1, MPI_LONG_LONG, 0, base + (kMarkers + rank) * unit, 1, MPI_LONG_LONG, win) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK(all_came);
    for (int r = 1; r < size; ++r) CHECK(memory[static_cast<std::size_t>(r)] == 1000 + r);
    CHECK(memory[0] == 10LL * (size - 1));
  }
  if (dynamic) MPI_Win_detach(win, memory.data());
  MPI_Win_free(&win);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(rank, size, false);
  run(rank, size, true);
  const int code = tern::mpi_test::conclude("mpi_win_progress");
  MPI_Finalize();
  return code;
}
