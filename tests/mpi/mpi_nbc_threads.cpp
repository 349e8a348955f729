// Non-blocking collectives under MPI_THREAD_MULTIPLE: 3 threads per rank,
// each running its own communicator's Iallreduce, Ibcast and Ialltoall (the
// engine's callbacks then move schedules from whichever thread progresses),
// several outstanding per thread, checked every round.
#include <mpi.h>

#include <thread>
#include <vector>

#include "check.hpp"

namespace {

constexpr int kThreads = 3;
constexpr int kRounds = 100;

void work(MPI_Comm comm, int thread, int rank, int size, int* failed) {
  const int sizes[] = {1, 300, 20000};
  for (int round = 0; round < kRounds; ++round) {
    const int count = sizes[(round + thread) % 3];
    std::vector<int> mine(static_cast<std::size_t>(count)), sum(static_cast<std::size_t>(count));
    std::vector<int> bcast(static_cast<std::size_t>(count)), out(static_cast<std::size_t>(size) * 4),
        in(static_cast<std::size_t>(size) * 4);
    for (int i = 0; i < count; ++i) {
      mine[static_cast<std::size_t>(i)] = rank + i + thread;
      bcast[static_cast<std::size_t>(i)] = rank == round % size ? i * 3 + round : -1;
    }
    for (int i = 0; i < size * 4; ++i) out[static_cast<std::size_t>(i)] = rank * 1000 + i + round;
    MPI_Request requests[3];
    int err = MPI_Iallreduce(mine.data(), sum.data(), count, MPI_INT, MPI_SUM, comm, &requests[0]);
    err |= MPI_Ibcast(bcast.data(), count, MPI_INT, round % size, comm, &requests[1]);
    err |= MPI_Ialltoall(out.data(), 4, MPI_INT, in.data(), 4, MPI_INT, comm, &requests[2]);
    err |= MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS) {
      ++*failed;
      return;
    }
    for (int i = 0; i < count; ++i) {
      const auto at = static_cast<std::size_t>(i);
      if (sum[at] != size * (size - 1) / 2 + size * (i + thread) || bcast[at] != i * 3 + round) {
        ++*failed;
        return;
      }
    }
    for (int r = 0; r < size; ++r) {
      for (int k = 0; k < 4; ++k) {
        if (in[static_cast<std::size_t>(r * 4 + k)] != r * 1000 + rank * 4 + k + round) {
          ++*failed;
          return;
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<MPI_Comm> comms(kThreads);
  for (MPI_Comm& comm : comms) CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS);
  int failed[kThreads] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(work, comms[static_cast<std::size_t>(t)], t, rank, size, &failed[t]);
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) CHECK(failed[t] == 0);
  for (MPI_Comm& comm : comms) CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
  const int code = tern::mpi_test::conclude("mpi_nbc_threads");
  MPI_Finalize();
  return code;
}
