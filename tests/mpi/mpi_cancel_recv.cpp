// Cancelled receives leave matching as if never posted: a rank posts several
// receives, cancels some, then receives again on the same tags (MPICH's
// cancelrecv pattern), with eager and rendezvous sizes, persistent receives
// and wildcards. Rank pairs (0,1), (2,3) run it side by side.
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

std::vector<int> pattern(std::size_t count, int seed) {
  std::vector<int> data(count);
  for (std::size_t i = 0; i < count; ++i) data[i] = seed * 1000003 + static_cast<int>(i);
  return data;
}

// The receiver posts tags 0..3, cancels 1 and 3 before anything is sent,
// tells the sender to go, and the sender sends tags 0..3 once each; tags 1
// and 3 then land in fresh blocking receives.
void cancel_then_receive(std::size_t count, int round) {
  const int peer = rank ^ 1;
  if (peer >= size) return;
  const int go_tag = 50 + round;
  if (rank % 2 == 1) {
    std::vector<std::vector<int>> buffers(4, std::vector<int>(count, -1));
    MPI_Request requests[4];
    for (int tag = 0; tag < 4; ++tag) {
      CHECK(MPI_Irecv(buffers[tag].data(), static_cast<int>(count), MPI_INT, peer, tag, MPI_COMM_WORLD,
                      &requests[tag]) == MPI_SUCCESS);
    }
    for (int tag : {1, 3}) {
      CHECK(MPI_Cancel(&requests[tag]) == MPI_SUCCESS);
      MPI_Status status;
      CHECK(MPI_Wait(&requests[tag], &status) == MPI_SUCCESS);
      int cancelled = 0;
      MPI_Test_cancelled(&status, &cancelled);
      CHECK(cancelled == 1);
      CHECK(requests[tag] == MPI_REQUEST_NULL);
    }
    MPI_Send(nullptr, 0, MPI_INT, peer, go_tag, MPI_COMM_WORLD);
    for (int tag : {3, 1}) {  // out of order: matching is by tag
      MPI_Status status;
      CHECK(MPI_Recv(buffers[tag].data(), static_cast<int>(count), MPI_INT, peer, tag, MPI_COMM_WORLD, &status) ==
            MPI_SUCCESS);
      CHECK(status.MPI_TAG == tag && status.MPI_SOURCE == peer);
    }
    MPI_Status statuses[4];
    CHECK(MPI_Waitall(4, requests, statuses) == MPI_SUCCESS);
    for (int tag = 0; tag < 4; ++tag) CHECK(buffers[tag] == pattern(count, tag + 10 * round));
  } else {
    MPI_Recv(nullptr, 0, MPI_INT, peer, go_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // Non-blocking: the receiver takes tag 3 before tag 1, and a blocking
    // send of a large message may wait for its receive.
    std::vector<std::vector<int>> data;
    MPI_Request requests[4];
    for (int tag = 0; tag < 4; ++tag) {
      data.push_back(pattern(count, tag + 10 * round));
      CHECK(MPI_Isend(data.back().data(), static_cast<int>(count), MPI_INT, peer, tag, MPI_COMM_WORLD,
                      &requests[tag]) == MPI_SUCCESS);
    }
    CHECK(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  }
}

// A cancelled MPI_ANY_TAG receive must not take the message meant for the
// next receive; a cancelled persistent receive restarts and receives.
void wildcard_and_persistent() {
  const int peer = rank ^ 1;
  if (peer >= size) return;
  if (rank % 2 == 1) {
    int any = -1;
    MPI_Request wildcard;
    MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wildcard);
    MPI_Cancel(&wildcard);
    MPI_Status status;
    MPI_Wait(&wildcard, &status);
    int cancelled = 0;
    MPI_Test_cancelled(&status, &cancelled);
    CHECK(cancelled == 1);
    int value = -1;
    MPI_Request persistent;
    MPI_Recv_init(&value, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &persistent);
    MPI_Start(&persistent);
    MPI_Cancel(&persistent);
    MPI_Wait(&persistent, &status);
    MPI_Test_cancelled(&status, &cancelled);
    CHECK(cancelled == 1);
    CHECK(persistent != MPI_REQUEST_NULL);  // inactive, still usable
    MPI_Send(nullptr, 0, MPI_INT, peer, 60, MPI_COMM_WORLD);
    MPI_Start(&persistent);
    MPI_Wait(&persistent, &status);
    MPI_Test_cancelled(&status, &cancelled);
    CHECK(cancelled == 0);
    CHECK(value == 77);
    MPI_Request_free(&persistent);
    CHECK(any == -1);
    MPI_Recv(&value, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(value == 88);
  } else {
    MPI_Recv(nullptr, 0, MPI_INT, peer, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int seven = 77, eight = 88;
    MPI_Send(&seven, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    MPI_Send(&eight, 1, MPI_INT, peer, 8, MPI_COMM_WORLD);
  }
}

// Many rounds of post, cancel some, receive on the same tags: nothing is
// left behind in matching.
void repeated_rounds() {
  const int peer = rank ^ 1;
  if (peer >= size) return;
  for (int round = 0; round < 20; ++round) cancel_then_receive(round % 2 == 0 ? 4 : 100, round);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cancel_then_receive(16, 100);
  cancel_then_receive(64 * 1024, 101);  // rendezvous
  wildcard_and_persistent();
  repeated_rounds();
  MPI_Barrier(MPI_COMM_WORLD);
  const int code = tern::mpi_test::conclude("mpi_cancel_recv");
  MPI_Finalize();
  return code;
}
