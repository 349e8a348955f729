// MPI_THREAD_MULTIPLE: 4 threads per rank, each ping-ponging on its own tag
// with the same thread number on the partner rank, blocking and
// non-blocking, with sizes across the protocol boundaries.
#include <mpi.h>

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
  const int code = tern::mpi_test::conclude("mpi_thread_multiple");
  MPI_Finalize();
  return code;
}
