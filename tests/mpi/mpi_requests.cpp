// Requests beyond Wait/Test, matched probes, persistent, ready and buffered
// sends, MPI_Alloc_mem: conformance on 2 to 4 ranks.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

// Waitany returns the index of a completed request; Testany/Waitsome/Testsome
// report what is done; null and inactive entries are skipped.
void any_and_some() {
  if (rank >= 2) return;
  const int peer = 1 - rank;
  if (rank == 0) {
    int values[3] = {-1, -1, -1};
    MPI_Request requests[4];
    requests[0] = MPI_REQUEST_NULL;
    for (int i = 0; i < 3; ++i) MPI_Irecv(&values[i], 1, MPI_INT, peer, 100 + i, MPI_COMM_WORLD, &requests[i + 1]);
    // Only tag 102 is sent first.
    MPI_Send(&rank, 0, MPI_INT, peer, 99, MPI_COMM_WORLD);
    int index = -1;
    MPI_Status status;
    CHECK(MPI_Waitany(4, requests, &index, &status) == MPI_SUCCESS);
    CHECK(index == 3);
    CHECK(status.MPI_TAG == 102 && status.MPI_SOURCE == peer);
    CHECK(values[2] == 1002);
    CHECK(requests[3] == MPI_REQUEST_NULL);
    int flag = -1;
    CHECK(MPI_Testany(4, requests, &index, &flag, &status) == MPI_SUCCESS);
    CHECK(flag == 0 && index == MPI_UNDEFINED);
    MPI_Send(&rank, 0, MPI_INT, peer, 98, MPI_COMM_WORLD);  // now the other two
    int outcount = 0, indices[4];
    MPI_Status statuses[4];
    int completed = 0;
    while (completed < 2) {
      CHECK(MPI_Waitsome(4, requests, &outcount, indices, statuses) == MPI_SUCCESS);
      CHECK(outcount >= 1 && outcount <= 2);
      for (int i = 0; i < outcount; ++i) {
        CHECK(indices[i] == 1 || indices[i] == 2);
        CHECK(statuses[i].MPI_TAG == 100 + indices[i] - 1);
      }
      completed += outcount;
    }
    CHECK(values[0] == 1000 && values[1] == 1001);
    CHECK(MPI_Waitsome(4, requests, &outcount, indices, statuses) == MPI_SUCCESS);
    CHECK(outcount == MPI_UNDEFINED);
    CHECK(MPI_Waitany(4, requests, &index, &status) == MPI_SUCCESS);
    CHECK(index == MPI_UNDEFINED);
    CHECK(MPI_Testany(4, requests, &index, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(flag == 1 && index == MPI_UNDEFINED);
    // Testsome polls until a receive arrives.
    int value = -1;
    MPI_Request one;
    MPI_Irecv(&value, 1, MPI_INT, peer, 103, MPI_COMM_WORLD, &one);
    MPI_Send(&rank, 0, MPI_INT, peer, 97, MPI_COMM_WORLD);
    outcount = 0;
    while (outcount == 0) CHECK(MPI_Testsome(1, &one, &outcount, indices, statuses) == MPI_SUCCESS);
    CHECK(outcount == 1 && indices[0] == 0 && value == 1003 && one == MPI_REQUEST_NULL);
    // Request_get_status leaves the request.
    MPI_Irecv(&value, 1, MPI_INT, peer, 104, MPI_COMM_WORLD, &one);
    MPI_Send(&rank, 0, MPI_INT, peer, 96, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) CHECK(MPI_Request_get_status(one, &flag, &status) == MPI_SUCCESS);
    CHECK(one != MPI_REQUEST_NULL && status.MPI_TAG == 104);
    int count = -1;
    MPI_Get_elements(&status, MPI_INT, &count);
    CHECK(count == 1);
    CHECK(MPI_Wait(&one, &status) == MPI_SUCCESS);
    CHECK(one == MPI_REQUEST_NULL && value == 1004);
    CHECK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &status) == MPI_SUCCESS && flag == 1);
  } else {
    int v = 1002;
    MPI_Recv(nullptr, 0, MPI_INT, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, peer, 102, MPI_COMM_WORLD);
    MPI_Recv(nullptr, 0, MPI_INT, peer, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    v = 1001;
    MPI_Send(&v, 1, MPI_INT, peer, 101, MPI_COMM_WORLD);
    v = 1000;
    MPI_Send(&v, 1, MPI_INT, peer, 100, MPI_COMM_WORLD);
    MPI_Recv(nullptr, 0, MPI_INT, peer, 97, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    v = 1003;
    MPI_Send(&v, 1, MPI_INT, peer, 103, MPI_COMM_WORLD);
    MPI_Recv(nullptr, 0, MPI_INT, peer, 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    v = 1004;
    MPI_Send(&v, 1, MPI_INT, peer, 104, MPI_COMM_WORLD);
  }
}

// A receive that never matches is canceled; a send completes normally.
void cancel() {
  int value = -1;
  MPI_Request request;
  CHECK(MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 4001, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  CHECK(MPI_Cancel(&request) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  int flag = 0;
  CHECK(MPI_Test_cancelled(&status, &flag) == MPI_SUCCESS);
  CHECK(flag == 1);
  CHECK(value == -1);
  // Sends are not cancellable: they complete normally and are received.
  if (size >= 2 && rank < 2) {
    const int peer = 1 - rank;
    int out = 7 + rank, in = -1;
    MPI_Request send;
    CHECK(MPI_Isend(&out, 1, MPI_INT, peer, 4000, MPI_COMM_WORLD, &send) == MPI_SUCCESS);
    CHECK(MPI_Cancel(&send) == MPI_SUCCESS);
    CHECK(MPI_Wait(&send, &status) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&status, &flag) == MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK(MPI_Recv(&in, 1, MPI_INT, peer, 4000, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
    CHECK(in == 7 + peer);
    CHECK(MPI_Test_cancelled(&status, &flag) == MPI_SUCCESS && flag == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Two senders interleave; the receiver mprobes with MPI_ANY_SOURCE and each
// sender's messages keep their order.
void matched_probe() {
  constexpr int kMessages = 50;
  const int senders = size >= 3 ? 2 : 1;
  if (rank == 0) {
    int next[3] = {0, 0, 0};
    for (int i = 0; i < kMessages * senders; ++i) {
      MPI_Message message = MPI_MESSAGE_NULL;
      MPI_Status status;
      if (i % 2 == 0) {
        CHECK(MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &message, &status) == MPI_SUCCESS);
      } else {
        int flag = 0;
        while (!flag) CHECK(MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &message, &status) == MPI_SUCCESS);
      }
      CHECK(message != MPI_MESSAGE_NULL);
      const int source = status.MPI_SOURCE;
      CHECK(source >= 1 && source <= senders);
      int count = -1;
      MPI_Get_count(&status, MPI_INT, &count);
      std::vector<int> data(count > 0 ? count : 1, -1);
      MPI_Status rstatus;
      if (i % 3 == 0) {
        MPI_Request request;
        CHECK(MPI_Imrecv(data.data(), count, MPI_INT, &message, &request) == MPI_SUCCESS);
        CHECK(MPI_Wait(&request, &rstatus) == MPI_SUCCESS);
      } else {
        CHECK(MPI_Mrecv(data.data(), count, MPI_INT, &message, &rstatus) == MPI_SUCCESS);
      }
      CHECK(message == MPI_MESSAGE_NULL);
      CHECK(rstatus.MPI_SOURCE == source && rstatus.MPI_TAG == 5);
      CHECK(count == 1 + next[source] % 5 * 1000);
      CHECK(data[0] == source * 10000 + next[source]);
      CHECK(data[count - 1] == source * 10000 + next[source]);
      ++next[source];
    }
    CHECK(next[1] == kMessages);
    // MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
    MPI_Message message;
    MPI_Status status;
    CHECK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &message, &status) == MPI_SUCCESS);
    CHECK(message == MPI_MESSAGE_NO_PROC && status.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(MPI_Mrecv(nullptr, 0, MPI_INT, &message, &status) == MPI_SUCCESS);
    CHECK(message == MPI_MESSAGE_NULL && status.MPI_SOURCE == MPI_PROC_NULL);
  } else if (rank <= senders) {
    for (int i = 0; i < kMessages; ++i) {
      std::vector<int> data(1 + i % 5 * 1000, rank * 10000 + i);
      CHECK(MPI_Send(data.data(), static_cast<int>(data.size()), MPI_INT, 0, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Both ranks of the pair have got here (a barrier of two).
void handshake(int peer) {
  MPI_Sendrecv(nullptr, 0, MPI_INT, peer, 60, nullptr, 0, MPI_INT, peer, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// Persistent send/receive restarted many times with changing data.
void persistent() {
  if (rank >= 2) return;
  const int peer = 1 - rank;
  constexpr int kRounds = 1000;
  constexpr int kCount = 2048;
  std::vector<int> out(kCount), in(kCount);
  MPI_Request requests[2];
  CHECK(MPI_Recv_init(in.data(), kCount, MPI_INT, peer, 6, MPI_COMM_WORLD, &requests[0]) == MPI_SUCCESS);
  if (rank == 0) {
    CHECK(MPI_Send_init(out.data(), kCount, MPI_INT, peer, 6, MPI_COMM_WORLD, &requests[1]) == MPI_SUCCESS);
  } else {
    CHECK(MPI_Ssend_init(out.data(), kCount, MPI_INT, peer, 6, MPI_COMM_WORLD, &requests[1]) == MPI_SUCCESS);
  }
  // Inactive persistent requests complete at once, handle kept.
  MPI_Status status;
  const MPI_Request kept = requests[0];
  CHECK(MPI_Wait(&requests[0], &status) == MPI_SUCCESS);
  CHECK(requests[0] == kept);
  int bad = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kCount; ++i) out[i] = round * 7 + i + rank;
    if (round % 2 == 0) {
      CHECK(MPI_Startall(2, requests) == MPI_SUCCESS);
    } else {
      CHECK(MPI_Start(&requests[0]) == MPI_SUCCESS);
      CHECK(MPI_Start(&requests[1]) == MPI_SUCCESS);
    }
    MPI_Status statuses[2];
    CHECK(MPI_Waitall(2, requests, statuses) == MPI_SUCCESS);
    for (int i = 0; i < kCount; ++i) bad += in[i] != round * 7 + i + peer;
    bad += statuses[0].MPI_SOURCE != peer;
  }
  CHECK(bad == 0);
  CHECK(requests[0] != MPI_REQUEST_NULL && requests[1] != MPI_REQUEST_NULL);
  // Ready sends into posted persistent receives.
  int value = -1;
  MPI_Start(&requests[0]);
  handshake(peer);
  (void)value;
  std::vector<int> ready(kCount, 42 + rank);
  CHECK(MPI_Rsend(ready.data(), kCount, MPI_INT, peer, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Wait(&requests[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(in[0] == 42 + peer && in[kCount - 1] == 42 + peer);
  MPI_Request irsend;
  MPI_Start(&requests[0]);
  handshake(peer);
  CHECK(MPI_Irsend(ready.data(), 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &irsend) == MPI_SUCCESS);
  int flag = 0;
  while (!flag) CHECK(MPI_Test(&requests[0], &flag, &status) == MPI_SUCCESS);
  CHECK(MPI_Wait(&irsend, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  int count = 0;
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == 1);
  CHECK(MPI_Request_free(&requests[0]) == MPI_SUCCESS && requests[0] == MPI_REQUEST_NULL);
  CHECK(MPI_Request_free(&requests[1]) == MPI_SUCCESS && requests[1] == MPI_REQUEST_NULL);
  // MPI_PROC_NULL persistent requests.
  MPI_Request null_request;
  CHECK(MPI_Recv_init(in.data(), 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &null_request) == MPI_SUCCESS);
  CHECK(MPI_Start(&null_request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&null_request, &status) == MPI_SUCCESS && status.MPI_SOURCE == MPI_PROC_NULL);
  CHECK(MPI_Request_free(&null_request) == MPI_SUCCESS);
}

// Buffered sends: the call returns once the data is copied.
void buffered() {
  if (rank >= 2) return;
  const int peer = 1 - rank;
  constexpr int kCount = 1 << 20;  // 4 MiB: sent by rendezvous
  std::vector<int> data(kCount), got(kCount);
  std::vector<char> buffer(2 * (kCount * sizeof(int) + MPI_BSEND_OVERHEAD));
  CHECK(MPI_Buffer_attach(buffer.data(), static_cast<int>(buffer.size())) == MPI_SUCCESS);
  if (rank == 0) {
    for (int i = 0; i < kCount; ++i) data[i] = i;
    CHECK(MPI_Bsend(data.data(), kCount, MPI_INT, peer, 8, MPI_COMM_WORLD) == MPI_SUCCESS);
    std::fill(data.begin(), data.end(), -5);  // the copy went out, not this
    MPI_Request request;
    CHECK(MPI_Ibsend(data.data(), kCount, MPI_INT, peer, 9, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    std::fill(data.begin(), data.end(), -6);
    // Both blocks are in use until the receiver takes them: a third does not fit.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int err = MPI_Bsend(data.data(), kCount, MPI_INT, peer, 10, MPI_COMM_WORLD);
    CHECK(err == MPI_ERR_BUFFER);
    int error_class = -1;
    MPI_Error_class(err, &error_class);
    CHECK(error_class == MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Send(data.data(), 0, MPI_INT, peer, 11, MPI_COMM_WORLD);  // now receive
  } else {
    MPI_Recv(nullptr, 0, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(MPI_Recv(got.data(), kCount, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    bool same = true;
    for (int i = 0; i < kCount; ++i) same = same && got[i] == i;
    CHECK(same);
    CHECK(MPI_Recv(got.data(), kCount, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got[0] == -5 && got[kCount - 1] == -5);
  }
  handshake(peer);
  // Persistent buffered sends, many rounds through the same buffer.
  int value = 0;
  MPI_Request request;
  CHECK(MPI_Bsend_init(&value, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  for (int round = 0; round < 100; ++round) {
    value = round * 3 + rank;
    CHECK(MPI_Start(&request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    int in = -1;
    CHECK(MPI_Recv(&in, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(in == round * 3 + peer);
  }
  MPI_Request_free(&request);
  void* detached = nullptr;
  int detached_size = 0;
  CHECK(MPI_Buffer_detach(&detached, &detached_size) == MPI_SUCCESS);
  CHECK(detached == buffer.data() && detached_size == static_cast<int>(buffer.size()));
  // Without a buffer: MPI_ERR_BUFFER.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Bsend(&value, 1, MPI_INT, peer, 13, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// Sendrecv_replace around a ring.
void sendrecv_replace() {
  std::vector<double> data(3000);
  for (int i = 0; i < 3000; ++i) data[i] = rank * 1000.0 + i;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status status;
  CHECK(MPI_Sendrecv_replace(data.data(), 3000, MPI_DOUBLE, right, 14, left, 14, MPI_COMM_WORLD, &status) ==
        MPI_SUCCESS);
  CHECK(status.MPI_SOURCE == left);
  bool same = true;
  for (int i = 0; i < 3000; ++i) same = same && data[i] == left * 1000.0 + i;
  CHECK(same);
}

// MPI_Alloc_mem buffers for a 4 MiB message.
void alloc_mem() {
  constexpr int kBytes = 4 << 20;
  unsigned char* buffer = nullptr;
  CHECK(MPI_Alloc_mem(kBytes, MPI_INFO_NULL, &buffer) == MPI_SUCCESS);
  CHECK(buffer != nullptr);
  if (buffer == nullptr) return;
  if (rank < 2 && size >= 2) {
    const int peer = 1 - rank;
    if (rank == 0) {
      for (int i = 0; i < kBytes; ++i) buffer[i] = static_cast<unsigned char>(i * 7 + 3);
      CHECK(MPI_Send(buffer, kBytes, MPI_BYTE, peer, 15, MPI_COMM_WORLD) == MPI_SUCCESS);
      CHECK(MPI_Recv(buffer, kBytes, MPI_BYTE, peer, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      bool same = true;
      for (int i = 0; i < kBytes; ++i) same = same && buffer[i] == static_cast<unsigned char>(i * 7 + 4);
      CHECK(same);
    } else {
      MPI_Status status;
      CHECK(MPI_Recv(buffer, kBytes, MPI_BYTE, peer, 15, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
      int count = 0;
      MPI_Get_elements(&status, MPI_BYTE, &count);
      CHECK(count == kBytes);
      bool same = true;
      for (int i = 0; i < kBytes; ++i) same = same && buffer[i] == static_cast<unsigned char>(i * 7 + 3);
      CHECK(same);
      for (int i = 0; i < kBytes; ++i) ++buffer[i];
      CHECK(MPI_Send(buffer, kBytes, MPI_BYTE, peer, 16, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
  }
  CHECK(MPI_Free_mem(buffer) == MPI_SUCCESS);
  // Handle conversions are the identity.
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
  CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  CHECK(MPI_Group_f2c(MPI_Group_c2f(group)) == group);
  MPI_Group_free(&group);
}

// Waitall over every kind of handle: null, a send done at once, receives
// that complete out of order, one truncated, and one from MPI_PROC_NULL. An
// invalid handle anywhere fails the call before any request is touched; a
// failed receive gives MPI_ERR_IN_STATUS with every request still ended.
void waitall_mixed() {
  if (rank >= 2) return;
  const int peer = 1 - rank;
  if (rank == 1) {
    int token = 0;
    MPI_Recv(&token, 1, MPI_INT, peer, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int later = 2002;
    const int two[2] = {2001, 2001};
    MPI_Send(&later, 1, MPI_INT, peer, 202, MPI_COMM_WORLD);
    MPI_Send(two, 2, MPI_INT, peer, 201, MPI_COMM_WORLD);
    // Only once rank 0 posted its receives, so that they wait in the engine.
    MPI_Recv(&token, 1, MPI_INT, peer, 205, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(two, 2, MPI_INT, peer, 203, MPI_COMM_WORLD);
    MPI_Send(&later, 1, MPI_INT, peer, 204, MPI_COMM_WORLD);
    return;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int token = 7, truncated = -1, later = -1, nothing = -1;
  MPI_Request requests[6];
  requests[0] = MPI_REQUEST_NULL;
  CHECK(MPI_Irecv(&truncated, 1, MPI_INT, peer, 201, MPI_COMM_WORLD, &requests[2]) == MPI_SUCCESS);
  CHECK(MPI_Irecv(&nothing, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[3]) == MPI_SUCCESS);
  CHECK(MPI_Irecv(&later, 1, MPI_INT, peer, 202, MPI_COMM_WORLD, &requests[4]) == MPI_SUCCESS);
  requests[5] = 12345;  // invalid
  MPI_Request before[6];
  CHECK(MPI_Isend(&token, 1, MPI_INT, peer, 200, MPI_COMM_WORLD, &requests[1]) == MPI_SUCCESS);
  std::memcpy(before, requests, sizeof(requests));
  CHECK(MPI_Waitall(6, requests, MPI_STATUSES_IGNORE) == MPI_ERR_REQUEST);
  CHECK(std::memcmp(before, requests, sizeof(requests)) == 0);

  MPI_Status statuses[5];
  for (MPI_Status& status : statuses) status.MPI_ERROR = -1;
  CHECK(MPI_Waitall(5, requests, statuses) == MPI_ERR_IN_STATUS);
  for (int i = 0; i < 5; ++i) CHECK(requests[i] == MPI_REQUEST_NULL);
  CHECK(statuses[0].MPI_ERROR == MPI_SUCCESS && statuses[0].MPI_SOURCE == MPI_ANY_SOURCE);
  CHECK(statuses[1].MPI_ERROR == MPI_SUCCESS);
  CHECK(statuses[2].MPI_ERROR == MPI_ERR_TRUNCATE && statuses[2].MPI_TAG == 201 && truncated == 2001);
  CHECK(statuses[3].MPI_ERROR == MPI_SUCCESS && statuses[3].MPI_SOURCE == MPI_PROC_NULL && nothing == -1);
  CHECK(statuses[4].MPI_ERROR == MPI_SUCCESS && statuses[4].MPI_TAG == 202 && later == 2002);
  // Without statuses, a send done at once (here: to MPI_PROC_NULL) ends too.
  MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK(MPI_Isend(&token, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &sends[1]) == MPI_SUCCESS);
  CHECK(sends[1] != MPI_REQUEST_NULL);
  CHECK(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK(sends[0] == MPI_REQUEST_NULL && sends[1] == MPI_REQUEST_NULL);
  // Without statuses, receives end the same way: a truncated one still
  // gives MPI_ERR_IN_STATUS, and both requests are ended.
  int small = -1, fine = -1;
  MPI_Request receives[2];
  CHECK(MPI_Irecv(&small, 1, MPI_INT, peer, 203, MPI_COMM_WORLD, &receives[0]) == MPI_SUCCESS);
  CHECK(MPI_Irecv(&fine, 1, MPI_INT, peer, 204, MPI_COMM_WORLD, &receives[1]) == MPI_SUCCESS);
  CHECK(MPI_Send(&token, 1, MPI_INT, peer, 205, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Waitall(2, receives, MPI_STATUSES_IGNORE) == MPI_ERR_IN_STATUS);
  CHECK(receives[0] == MPI_REQUEST_NULL && receives[1] == MPI_REQUEST_NULL);
  CHECK(small == 2001 && fine == 2002);
  CHECK(MPI_Irecv(&fine, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &receives[0]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(1, receives, MPI_STATUSES_IGNORE) == MPI_SUCCESS && receives[0] == MPI_REQUEST_NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// Bad arguments give the right class under MPI_ERRORS_RETURN.
void errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int index = 0, flag = 0, outcount = 0, indices[1];
  MPI_Request bogus[1] = {12345};
  CHECK(MPI_Waitany(1, bogus, &index, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
  CHECK(MPI_Testany(1, bogus, &index, &flag, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
  CHECK(MPI_Waitsome(1, bogus, &outcount, indices, MPI_STATUSES_IGNORE) == MPI_ERR_REQUEST);
  CHECK(MPI_Testsome(-1, bogus, &outcount, indices, MPI_STATUSES_IGNORE) == MPI_ERR_COUNT);
  CHECK(MPI_Cancel(&bogus[0]) == MPI_ERR_REQUEST);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Start(&request) == MPI_ERR_REQUEST);
  CHECK(MPI_Send_init(&flag, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &request) == MPI_ERR_RANK);
  CHECK(MPI_Recv_init(&flag, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &request) == MPI_ERR_TAG);
  CHECK(MPI_Rsend(&flag, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Bsend(&flag, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
  MPI_Message message = 777;
  CHECK(MPI_Mrecv(&flag, 1, MPI_INT, &message, MPI_STATUS_IGNORE) == MPI_ERR_ARG);
  CHECK(MPI_Mprobe(0, 0, MPI_COMM_NULL, &message, MPI_STATUS_IGNORE) == MPI_ERR_COMM);
  CHECK(MPI_Get_elements(nullptr, MPI_INT, &flag) == MPI_ERR_ARG);
  // Starting an active request.
  if (size >= 2) {
    int value = 0;
    CHECK(MPI_Recv_init(&value, 1, MPI_INT, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    CHECK(MPI_Start(&request) == MPI_SUCCESS);
    CHECK(MPI_Start(&request) == MPI_ERR_REQUEST);
    CHECK(MPI_Cancel(&request) == MPI_SUCCESS);
    MPI_Status status;
    CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&status, &flag) == MPI_SUCCESS && flag == 1);
    CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size >= 2) {
    any_and_some();
    MPI_Barrier(MPI_COMM_WORLD);
    cancel();
    matched_probe();
    persistent();
    MPI_Barrier(MPI_COMM_WORLD);
    buffered();
    MPI_Barrier(MPI_COMM_WORLD);
    waitall_mixed();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  sendrecv_replace();
  alloc_mem();
  errors();
  const int code = tern::mpi_test::conclude("mpi_requests");
  MPI_Finalize();
  return code;
}
