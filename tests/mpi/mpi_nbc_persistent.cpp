// Persistent collectives (MPI 4, MPI_*_init) on 1 to 4 ranks: made once,
// started several times with new data (MPI_Start and MPI_Startall, with
// persistent point-to-point requests beside them), each round checked
// against the blocking form; blocking collectives between the rounds; an
// inactive request completes at once and an active one cannot be started
// again; MPI_Request_free ends them.
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

using Ints = std::vector<int>;
std::size_t at(int i) { return static_cast<std::size_t>(i); }

constexpr int kCount = 37;
constexpr int kRounds = 4;

void fill(Ints& v, int round, int salt) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (rank + 1) * 100 + static_cast<int>(i) * 3 + round * 17 + salt;
}

void each_alone() {
  Ints bcast(kCount), mine(kCount), sum(kCount), max(kCount), all(at(kCount * size)), gathered(at(kCount * size)),
      exchanged(at(kCount * size)), outgoing(at(kCount * size)), scanned(kCount), exscanned(kCount, -1),
      block(kCount);
  const int root = size - 1;
  MPI_Request requests[10];
  CHECK(MPI_Bcast_init(bcast.data(), kCount, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &requests[0]) ==
        MPI_SUCCESS);
  CHECK(MPI_Allreduce_init(mine.data(), sum.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[1]) == MPI_SUCCESS);
  CHECK(MPI_Reduce_init(mine.data(), max.data(), kCount, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &requests[2]) == MPI_SUCCESS);
  CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &requests[3]) == MPI_SUCCESS);
  CHECK(MPI_Allgather_init(mine.data(), kCount, MPI_INT, all.data(), kCount, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[4]) == MPI_SUCCESS);
  CHECK(MPI_Gather_init(mine.data(), kCount, MPI_INT, gathered.data(), kCount, MPI_INT, root, MPI_COMM_WORLD,
                        MPI_INFO_NULL, &requests[5]) == MPI_SUCCESS);
  CHECK(MPI_Alltoall_init(outgoing.data(), kCount, MPI_INT, exchanged.data(), kCount, MPI_INT, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &requests[6]) == MPI_SUCCESS);
  CHECK(MPI_Scan_init(mine.data(), scanned.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                      &requests[7]) == MPI_SUCCESS);
  CHECK(MPI_Exscan_init(mine.data(), exscanned.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &requests[8]) == MPI_SUCCESS);
  CHECK(MPI_Reduce_scatter_block_init(outgoing.data(), block.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &requests[9]) == MPI_SUCCESS);
  // Not started: complete at once, handles kept.
  int flag = 0;
  CHECK(MPI_Testall(10, requests, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK(flag);
  for (MPI_Request request : requests) CHECK(request != MPI_REQUEST_NULL);

  for (int round = 0; round < kRounds; ++round) {
    fill(mine, round, 0);
    fill(outgoing, round, 1);
    if (rank == root) fill(bcast, round, 2);
    if (round % 2 == 0) {
      CHECK(MPI_Startall(10, requests) == MPI_SUCCESS);
    } else {
      for (MPI_Request& request : requests) CHECK(MPI_Start(&request) == MPI_SUCCESS);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Start(&requests[1]) == MPI_ERR_REQUEST);  // active already
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    // A blocking collective while they run.
    Ints expect_sum(kCount);
    CHECK(MPI_Allreduce(mine.data(), expect_sum.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Waitall(10, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (MPI_Request request : requests) CHECK(request != MPI_REQUEST_NULL);

    CHECK(sum == expect_sum);
    Ints expect(kCount);
    if (rank == root) expect = bcast;
    CHECK(MPI_Bcast(expect.data(), kCount, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(bcast == expect);
    CHECK(MPI_Reduce(mine.data(), expect.data(), kCount, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) CHECK(max == expect);
    Ints expect_all(at(kCount * size));
    CHECK(MPI_Allgather(mine.data(), kCount, MPI_INT, expect_all.data(), kCount, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(all == expect_all);
    if (rank == root) CHECK(gathered == expect_all);
    CHECK(MPI_Alltoall(outgoing.data(), kCount, MPI_INT, expect_all.data(), kCount, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(exchanged == expect_all);
    CHECK(MPI_Scan(mine.data(), expect.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(scanned == expect);
    Ints expect_ex(kCount, -1);
    CHECK(MPI_Exscan(mine.data(), expect_ex.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank > 0) CHECK(exscanned == expect_ex);
    CHECK(MPI_Reduce_scatter_block(outgoing.data(), expect.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(block == expect);
  }
  for (MPI_Request& request : requests) CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
  for (MPI_Request request : requests) CHECK(request == MPI_REQUEST_NULL);
}

// A persistent collective and persistent point-to-point requests in one
// MPI_Startall, driven to completion by MPI_Test.
void mixed_with_p2p() {
  Ints token(1), got(1, -1), sum(1);
  MPI_Request requests[3];
  CHECK(MPI_Send_init(token.data(), 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Recv_init(got.data(), 1, MPI_INT, (rank - 1 + size) % size, 5, MPI_COMM_WORLD, &requests[1]) ==
        MPI_SUCCESS);
  CHECK(MPI_Allreduce_init(token.data(), sum.data(), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[2]) == MPI_SUCCESS);
  for (int round = 0; round < kRounds; ++round) {
    token[0] = rank * 10 + round;
    CHECK(MPI_Startall(3, requests) == MPI_SUCCESS);
    int done = 0;
    const double deadline = MPI_Wtime() + 30;
    while (!done && MPI_Wtime() < deadline) {
      CHECK(MPI_Testall(3, requests, &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    }
    CHECK(done);
    CHECK(got[0] == ((rank - 1 + size) % size) * 10 + round);
    CHECK(sum[0] == 10 * size * (size - 1) / 2 + size * round);
    int flag = 0;
    MPI_Status status;
    CHECK(MPI_Request_get_status(requests[2], &flag, &status) == MPI_SUCCESS);
    CHECK(flag);
  }
  for (MPI_Request& request : requests) CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  each_alone();
  mixed_with_p2p();
  const int code = tern::mpi_test::conclude("mpi_nbc_persistent");
  MPI_Finalize();
  return code;
}
