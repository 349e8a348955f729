// MPI_THREAD_MULTIPLE: 4 threads per rank, each ping-ponging on its own tag
// with the same thread number on the partner rank, blocking and
// non-blocking, with sizes across the protocol boundaries. Then requests
// that outlive the threads that made them: short-lived threads post
// receives and sends to their own rank and exit, and the main thread
// completes them all (each thread keeps request slots of its own, which go
// back to the pool when it exits).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "check.hpp"

namespace {

using tern::mpi_test::check;

constexpr int kThreads = 4;
constexpr int kRounds = 200;

void ping_pong(int thread, int rank, int size, int* failed) {
  const int partner = rank ^ 1;
  if (partner >= size) return;  // an odd last rank has nobody to talk to
  const int sizes[] = {8, 4000, 70000, 600000};
  std::vector<unsigned char> out(600000), in(600000);
  for (int round = 0; round < kRounds; ++round) {
    const int bytes = sizes[(round + thread) % 4];
    for (int i = 0; i < bytes; i += 97) out[i] = static_cast<unsigned char>(thread * 31 + round + i);
    MPI_Status status;
    int err;
    if (rank < partner) {
      err = MPI_Send(out.data(), bytes, MPI_BYTE, partner, thread, MPI_COMM_WORLD);
      if (err == MPI_SUCCESS) err = MPI_Recv(in.data(), bytes, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &status);
    } else {
      MPI_Request request;
      err = MPI_Irecv(in.data(), bytes, MPI_BYTE, partner, thread, MPI_COMM_WORLD, &request);
      if (err == MPI_SUCCESS) err = MPI_Wait(&request, &status);
      if (err == MPI_SUCCESS) err = MPI_Send(in.data(), bytes, MPI_BYTE, partner, thread, MPI_COMM_WORLD);
    }
    if (err != MPI_SUCCESS) {
      ++*failed;
      return;
    }
    if (rank < partner) {
      int count = -1;
      MPI_Get_count(&status, MPI_BYTE, &count);
      if (count != bytes || status.MPI_TAG != thread || status.MPI_SOURCE != partner) ++*failed;
      for (int i = 0; i < bytes; i += 97) {
        if (in[i] != static_cast<unsigned char>(thread * 31 + round + i)) {
          ++*failed;
          return;
        }
      }
    }
  }
}

constexpr int kGenerations = 40;
constexpr int kPerThread = 50;

// Each generation's threads post kPerThread receives and sends to this rank
// and leave them to the main thread; returns the number of failures.
int requests_outliving_threads(int rank) {
  int failed = 0;
  for (int generation = 0; generation < kGenerations; ++generation) {
    std::vector<MPI_Request> receives(kThreads * kPerThread), sends(kThreads * kPerThread);
    std::vector<int> in(kThreads * kPerThread, -1), out(kThreads * kPerThread);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          const int k = t * kPerThread + i;
          out[k] = generation * 100000 + k;
          const int tag = 1000 + k;
          if (MPI_Irecv(&in[k], 1, MPI_INT, rank, tag, MPI_COMM_WORLD, &receives[k]) != MPI_SUCCESS ||
              MPI_Isend(&out[k], 1, MPI_INT, rank, tag, MPI_COMM_WORLD, &sends[k]) != MPI_SUCCESS) {
            receives[k] = sends[k] = MPI_REQUEST_NULL;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    // Live requests have handles of their own.
    std::vector<MPI_Request> live;
    for (MPI_Request r : receives) {
      if (r != MPI_REQUEST_NULL) live.push_back(r);
    }
    std::sort(live.begin(), live.end());
    if (std::adjacent_find(live.begin(), live.end()) != live.end()) ++failed;
    if (MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS ||
        MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
      ++failed;
    }
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (in[k] != out[k]) ++failed;
    }
  }
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  check(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE provided", __LINE__);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> failed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(ping_pong, t, rank, size, &failed[t]);
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) check(failed[t] == 0, "thread ping-pong", __LINE__);
  check(requests_outliving_threads(rank) == 0, "requests completed by a thread other than the one that made them",
        __LINE__);
  const int code = tern::mpi_test::conclude("mpi_thread_multiple");
  MPI_Finalize();
  return code;
}
