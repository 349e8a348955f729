// Cancelled sends (MPI_Cancel of a send, MPI 4.0 section 3.8.4): a send no
// receive has matched is cancelled, whatever its protocol waits for
// (rendezvous, synchronous, persistent), MPI_Wait returns, and
// MPI_Test_cancelled says so; a send that was matched, or that needed
// nothing more from its receiver (an eager send already out), completes
// normally and is received. Then
// MPICH's cancelrecv pattern: the same tags carry the next messages, and a
// receive never gets a cancelled one. Pairs of ranks (0 sends to 1, 2 to 3).
#include <mpi.h>

#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

constexpr int kLarge = 2 * 1024 * 1024;  // rendezvous on every transport, metered or not

bool cancelled(MPI_Request& request) {
  MPI_Status status;
  MPI_Wait(&request, &status);
  int flag = -1;
  MPI_Test_cancelled(&status, &flag);
  return flag != 0;
}

void sender(int peer, std::vector<char>& large) {
  // Nobody will receive these: each is cancelled.
  MPI_Request request;
  MPI_Isend(large.data(), kLarge, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  CHECK(cancelled(request));
  int small = 11;
  MPI_Issend(&small, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  CHECK(cancelled(request));
  MPI_Request persistent;
  MPI_Send_init(large.data(), kLarge, MPI_CHAR, peer, 6, MPI_COMM_WORLD, &persistent);
  MPI_Start(&persistent);
  MPI_Cancel(&persistent);
  CHECK(cancelled(persistent));
  MPI_Request_free(&persistent);
  // An eager send needs nothing from its receiver: it is normally out before
  // the cancel comes and is not cancelled. One still queued behind earlier
  // traffic (a loaded, oversubscribed machine) is not matched yet, and the
  // standard lets its cancel succeed; the receiver then gets it again.
  int eager = 33;
  MPI_Isend(&eager, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  if (cancelled(request)) MPI_Send(&eager, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
  // A synchronous send the receiver has taken (it says so) is not cancelled.
  int matched = 44;
  MPI_Issend(&matched, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &request);
  int taken = 0;
  MPI_Recv(&taken, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Cancel(&request);
  CHECK(!cancelled(request));
  // The tags of the cancelled sends carry the next messages.
  for (int tag : {1, 2, 6}) {
    int next = 100 + tag;
    MPI_Send(&next, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
  }
}

void receiver(int peer, std::vector<char>& large) {
  int eager = 0;
  MPI_Recv(&eager, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(eager == 33);
  int matched = 0;
  MPI_Recv(&matched, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(matched == 44);
  int taken = 1;
  MPI_Send(&taken, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
  for (int tag : {1, 2, 6}) {
    std::memset(large.data(), 0, large.size());
    MPI_Status status;
    MPI_Recv(large.data(), kLarge, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &status);
    int count = -1;
    MPI_Get_count(&status, MPI_CHAR, &count);
    int next = 0;
    std::memcpy(&next, large.data(), sizeof(next));
    CHECK(count == static_cast<int>(sizeof(int)));  // not the cancelled message
    CHECK(next == 100 + tag);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> large(kLarge, 'x');
  if (rank + 1 < size || rank % 2 == 1) {
    if (rank % 2 == 0) {
      sender(rank + 1, large);
    } else {
      receiver(rank - 1, large);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const int rc = tern::mpi_test::conclude("mpi_cancel_send");
  MPI_Finalize();
  return rc;
}
