// Point-to-point conformance on 2 to 4 ranks: sizes from 0 to 4 MiB,
// wildcards, non-overtaking order, truncation, MPI_PROC_NULL, synchronous
// sends, probes, requests, and communicator isolation.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

unsigned char pattern(std::size_t i, int salt) { return static_cast<unsigned char>((i * 131 + salt) & 0xFF); }

void sizes_round_trip() {
  const std::size_t sizes[] = {0, 1, 7, 64, 1000, 8192, 65536, 262144, 1 << 20, 4 << 20};
  for (std::size_t bytes : sizes) {
    std::vector<unsigned char> out(bytes), in(bytes + 16, 0xEE);
    for (std::size_t i = 0; i < bytes; ++i) out[i] = pattern(i, static_cast<int>(bytes));
    const int count = static_cast<int>(bytes);
    if (rank == 0) {
      CHECK(MPI_Send(out.data(), count, MPI_BYTE, 1, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
      MPI_Status status;
      CHECK(MPI_Recv(in.data(), count + 16, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
      int got = -1;
      MPI_Get_count(&status, MPI_BYTE, &got);
      CHECK(got == count);
      CHECK(status.MPI_SOURCE == 1 && status.MPI_TAG == 4);
      CHECK(std::equal(out.begin(), out.end(), in.begin()));
      CHECK(in[bytes] == 0xEE);
    } else if (rank == 1) {
      CHECK(MPI_Recv(in.data(), count, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(std::equal(out.begin(), out.end(), in.begin()));
      // Back with non-blocking calls.
      MPI_Request request;
      CHECK(MPI_Isend(in.data(), count, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
      CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(request == MPI_REQUEST_NULL);
    }
  }
  // Typed data: doubles with Irecv posted before the send.
  if (rank < 2) {
    std::vector<double> data(5000), got(5000, -1);
    for (int i = 0; i < 5000; ++i) data[i] = i * 0.5 + rank;
    MPI_Request requests[2];
    const int peer = 1 - rank;
    MPI_Irecv(got.data(), 5000, MPI_DOUBLE, peer, 11, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(data.data(), 5000, MPI_DOUBLE, peer, 11, MPI_COMM_WORLD, &requests[1]);
    MPI_Status statuses[2];
    CHECK(MPI_Waitall(2, requests, statuses) == MPI_SUCCESS);
    int count = 0;
    MPI_Get_count(&statuses[0], MPI_DOUBLE, &count);
    CHECK(count == 5000);
    CHECK(statuses[0].MPI_SOURCE == peer);
    bool same = true;
    for (int i = 0; i < 5000; ++i) same = same && got[i] == i * 0.5 + peer;
    CHECK(same);
  }
}

void wildcards() {
  if (rank == 0) {
    std::vector<bool> seen(size, false);
    for (int i = 1; i < size; ++i) {
      long value = 0;
      MPI_Status status;
      CHECK(MPI_Recv(&value, 1, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
      CHECK(status.MPI_SOURCE >= 1 && status.MPI_SOURCE < size);
      CHECK(status.MPI_TAG == 100 + status.MPI_SOURCE);
      CHECK(value == 1000L * status.MPI_SOURCE);
      if (status.MPI_SOURCE >= 1 && status.MPI_SOURCE < size) seen[status.MPI_SOURCE] = true;
    }
    for (int i = 1; i < size; ++i) CHECK(seen[i]);
  } else {
    long value = 1000L * rank;
    CHECK(MPI_Send(&value, 1, MPI_LONG, 0, 100 + rank, MPI_COMM_WORLD) == MPI_SUCCESS);
  }
  // Rank 0's wildcard receives must not see the next phase's messages.
  MPI_Barrier(MPI_COMM_WORLD);
}

// Messages from one sender with one tag arrive in the order sent, also when
// received with wildcards and when sizes alternate between eager and rendezvous.
void ordering() {
  constexpr int kMessages = 200;
  if (rank == 1) {
    std::vector<int> big(100000);
    for (int i = 0; i < kMessages; ++i) {
      if (i % 50 == 7) {
        big[0] = i;
        CHECK(MPI_Send(big.data(), 100000, MPI_INT, 0, 21, MPI_COMM_WORLD) == MPI_SUCCESS);
      } else {
        CHECK(MPI_Send(&i, 1, MPI_INT, 0, 21, MPI_COMM_WORLD) == MPI_SUCCESS);
      }
    }
  } else if (rank == 0) {
    std::vector<int> buffer(100000);
    bool in_order = true;
    for (int i = 0; i < kMessages; ++i) {
      const int source = i % 2 == 0 ? MPI_ANY_SOURCE : 1;
      const int tag = i % 3 == 0 ? MPI_ANY_TAG : 21;
      CHECK(MPI_Recv(buffer.data(), 100000, MPI_INT, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
            MPI_SUCCESS);
      in_order = in_order && buffer[0] == i;
    }
    CHECK(in_order);
  }
}

void truncation() {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (rank == 1) {
    int data[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    MPI_Send(data, 16, MPI_INT, 0, 1, comm);
    MPI_Send(data, 16, MPI_INT, 0, 2, comm);
    std::vector<char> large(1 << 20, 'x');
    MPI_Send(large.data(), 1 << 20, MPI_CHAR, 0, 3, comm);
  } else if (rank == 0) {
    int small[4] = {0, 0, 0, 0};
    int guard_after[4] = {-7, -7, -7, -7};
    (void)guard_after;
    MPI_Status status;
    int err = MPI_Recv(small, 4, MPI_INT, 1, 1, comm, &status);
    int error_class = -1;
    MPI_Error_class(err, &error_class);
    CHECK(error_class == MPI_ERR_TRUNCATE);
    CHECK(small[0] == 1 && small[3] == 4);
    MPI_Request request;
    CHECK(MPI_Irecv(small, 4, MPI_INT, 1, 2, comm, &request) == MPI_SUCCESS);
    err = MPI_Wait(&request, &status);
    CHECK(err == MPI_ERR_TRUNCATE);
    CHECK(status.MPI_ERROR == MPI_ERR_TRUNCATE);
    std::vector<char> part(1000, 0);
    err = MPI_Recv(part.data(), 1000, MPI_CHAR, 1, 3, comm, &status);
    CHECK(err == MPI_ERR_TRUNCATE);
    CHECK(part[999] == 'x');
  }
  MPI_Comm_free(&comm);
  CHECK(comm == MPI_COMM_NULL);
}

void proc_null() {
  int value = 42;
  MPI_Status status;
  CHECK(MPI_Send(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Recv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
  CHECK(status.MPI_SOURCE == MPI_PROC_NULL && status.MPI_TAG == MPI_ANY_TAG);
  int count = -1;
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == 0);
  CHECK(value == 42);
  MPI_Request requests[2];
  MPI_Isend(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[1]);
  MPI_Status statuses[2];
  CHECK(MPI_Waitall(2, requests, statuses) == MPI_SUCCESS);
  CHECK(statuses[1].MPI_SOURCE == MPI_PROC_NULL);
  CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL);
}

// An MPI_Ssend / MPI_Issend is not complete before the receiver matches it.
void synchronous() {
  for (std::size_t bytes : {std::size_t{8}, std::size_t{2} << 20}) {
    std::vector<char> data(bytes, 's');
    const int count = static_cast<int>(bytes);
    if (rank == 1) {
      MPI_Request request;
      CHECK(MPI_Issend(data.data(), count, MPI_CHAR, 0, 31, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
      int early = 0;
      for (int i = 0; i < 50 && !early; ++i) {
        MPI_Test(&request, &early, MPI_STATUS_IGNORE);
        usleep(1000);
      }
      CHECK(!early);
      int go = 1;
      MPI_Send(&go, 1, MPI_INT, 0, 32, MPI_COMM_WORLD);
      if (!early) CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      // Blocking form: returns once matched.
      CHECK(MPI_Ssend(data.data(), count, MPI_CHAR, 0, 33, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == 0) {
      int go = 0;
      MPI_Recv(&go, 1, MPI_INT, 1, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      std::vector<char> in(bytes);
      CHECK(MPI_Recv(in.data(), count, MPI_CHAR, 1, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(in == data);
      CHECK(MPI_Recv(in.data(), count, MPI_CHAR, 1, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
  }
}

void probes() {
  if (rank == 1) {
    std::vector<short> data(300, 5);
    MPI_Send(data.data(), 300, MPI_SHORT, 0, 41, MPI_COMM_WORLD);
  } else if (rank == 0) {
    int flag = 1;
    MPI_Iprobe(1, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag);
    MPI_Status status;
    CHECK(MPI_Probe(MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
    CHECK(status.MPI_SOURCE == 1 && status.MPI_TAG == 41);
    int count = 0;
    MPI_Get_count(&status, MPI_SHORT, &count);
    CHECK(count == 300);
    flag = 0;
    MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    CHECK(flag && status.MPI_TAG == 41);
    std::vector<short> in(count);
    CHECK(MPI_Recv(in.data(), count, MPI_SHORT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(in[299] == 5);
  }
}

void requests_and_ring() {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  // Sendrecv around the ring.
  int out = rank, in = -1;
  MPI_Status status;
  CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, 51, &in, 1, MPI_INT, left, 51, MPI_COMM_WORLD, &status) ==
        MPI_SUCCESS);
  CHECK(in == left && status.MPI_SOURCE == left);
  // Many requests at once, completed with Testall.
  constexpr int kCount = 64;
  std::vector<int> outs(kCount), ins(kCount, -1);
  std::vector<MPI_Request> requests(2 * kCount);
  for (int i = 0; i < kCount; ++i) {
    outs[i] = rank * 1000 + i;
    MPI_Irecv(&ins[i], 1, MPI_INT, left, 52, MPI_COMM_WORLD, &requests[i]);
  }
  for (int i = 0; i < kCount; ++i) MPI_Isend(&outs[i], 1, MPI_INT, right, 52, MPI_COMM_WORLD, &requests[kCount + i]);
  int flag = 0;
  while (!flag) CHECK(MPI_Testall(2 * kCount, requests.data(), &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  bool ordered = true;
  for (int i = 0; i < kCount; ++i) ordered = ordered && ins[i] == left * 1000 + i;
  CHECK(ordered);
  // Request_free on a send, MPI_Test on a null request. The freed send may
  // still be queued when this function returns (nothing here learns that
  // `right` received it), so its buffer must outlive the function: static.
  static int freed_send_value;
  freed_send_value = rank;
  MPI_Request request;
  MPI_Isend(&freed_send_value, 1, MPI_INT, right, 53, MPI_COMM_WORLD, &request);
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS && request == MPI_REQUEST_NULL);
  MPI_Recv(&in, 1, MPI_INT, left, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(in == left);
  flag = 0;
  CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
}

// A message on a duplicate communicator never matches a receive on the original.
void isolation() {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int result = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  CHECK(result == MPI_CONGRUENT);
  if (rank == 1) {
    int a = 1, b = 2;
    MPI_Send(&a, 1, MPI_INT, 0, 0, dup);
    MPI_Send(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  } else if (rank == 0) {
    int value = 0;
    MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(value == 2);
    MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
    CHECK(value == 1);
  }
  MPI_Comm_free(&dup);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    std::printf("mpi_p2p: needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  sizes_round_trip();
  wildcards();
  ordering();
  truncation();
  proc_null();
  synchronous();
  probes();
  requests_and_ring();
  isolation();
  const int code = tern::mpi_test::conclude("mpi_p2p");
  MPI_Finalize();
  return code;
}
