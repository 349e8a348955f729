// MPI 4.0's MPI_Isendrecv and MPI_Isendrecv_replace (ring exchanges, eager
// and rendezvous sizes, a derived type, MPI_PROC_NULL, overlap with other
// traffic), the message handle conversions, and MPI_DATATYPE_NULL with
// count 0 in point-to-point calls.
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

std::vector<int> pattern(std::size_t count, int seed) {
  std::vector<int> data(count);
  for (std::size_t i = 0; i < count; ++i) data[i] = seed * 7919 + static_cast<int>(i);
  return data;
}

void ring_isendrecv(std::size_t count) {
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  const std::vector<int> out = pattern(count, rank);
  std::vector<int> in(count, -1);
  MPI_Request request;
  CHECK(MPI_Isendrecv(out.data(), static_cast<int>(count), MPI_INT, right, 5, in.data(), static_cast<int>(count),
                      MPI_INT, left, 5, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS && request == MPI_REQUEST_NULL);
  CHECK(status.MPI_SOURCE == left && status.MPI_TAG == 5);
  int received = -1;
  MPI_Get_count(&status, MPI_INT, &received);
  CHECK(received == static_cast<int>(count));
  CHECK(in == pattern(count, left));
  // Replace: the buffer goes right and comes back filled from the left.
  std::vector<int> buffer = pattern(count, rank + 100);
  CHECK(MPI_Isendrecv_replace(buffer.data(), static_cast<int>(count), MPI_INT, right, 6, left, 6, MPI_COMM_WORLD,
                              &request) == MPI_SUCCESS);
  int flag = 0;
  while (!flag) CHECK(MPI_Test(&request, &flag, &status) == MPI_SUCCESS);
  CHECK(buffer == pattern(count, left + 100));
}

// Several exchanges in flight at once, completed by Waitall, with sends
// and receives of other tags around them.
void overlapping() {
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  constexpr int kRounds = 4;
  std::vector<std::vector<int>> in(kRounds, std::vector<int>(3, -1)), out;
  std::vector<MPI_Request> requests(kRounds + 2);
  for (int k = 0; k < kRounds; ++k) out.push_back(pattern(3, rank * 10 + k));
  for (int k = 0; k < kRounds; ++k) {
    MPI_Isendrecv(out[static_cast<std::size_t>(k)].data(), 3, MPI_INT, right, 20 + k,
                  in[static_cast<std::size_t>(k)].data(), 3, MPI_INT, left, 20 + k, MPI_COMM_WORLD,
                  &requests[static_cast<std::size_t>(k)]);
  }
  int extra_in = -1;
  MPI_Irecv(&extra_in, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &requests[kRounds]);
  MPI_Isend(&rank, 1, MPI_INT, right, 30, MPI_COMM_WORLD, &requests[kRounds + 1]);
  std::vector<MPI_Status> statuses(requests.size());
  CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data()) == MPI_SUCCESS);
  for (int k = 0; k < kRounds; ++k) {
    CHECK(in[static_cast<std::size_t>(k)] == pattern(3, left * 10 + k));
    CHECK(statuses[static_cast<std::size_t>(k)].MPI_TAG == 20 + k);
  }
  CHECK(extra_in == left);
}

// A vector type (every other int) on both sides, and MPI_PROC_NULL peers.
void derived_and_proc_null() {
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  MPI_Datatype every_other;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> out(8), in(8, -1);
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = rank * 100 + i;
  MPI_Request request;
  CHECK(MPI_Isendrecv(out.data(), 1, every_other, right, 7, in.data(), 1, every_other, left, 7, MPI_COMM_WORLD,
                      &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  for (int i = 0; i < 8; ++i) CHECK(in[static_cast<std::size_t>(i)] == (i % 2 == 0 ? left * 100 + i : -1));
  std::vector<int> buffer = out;
  CHECK(MPI_Isendrecv_replace(buffer.data(), 1, every_other, right, 8, left, 8, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  for (int i = 0; i < 8; ++i) CHECK(buffer[static_cast<std::size_t>(i)] == (i % 2 == 0 ? left * 100 + i : rank * 100 + i));
  MPI_Type_free(&every_other);
  int value = 42, got = -1;
  MPI_Status status;
  CHECK(MPI_Isendrecv(&value, 1, MPI_INT, MPI_PROC_NULL, 9, &got, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD,
                      &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  CHECK(status.MPI_SOURCE == MPI_PROC_NULL && got == -1);
  CHECK(MPI_Isendrecv_replace(&value, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && value == 42);
  // Bad arguments are refused with the call named (errors return here).
  CHECK(MPI_Isendrecv(&value, 1, MPI_INT, size, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &request) ==
        MPI_ERR_RANK);
  CHECK(MPI_Isendrecv(&value, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, nullptr) ==
        MPI_ERR_REQUEST);
}

// Zero-count messages may name MPI_DATATYPE_NULL; a non-zero count may not.
void datatype_null() {
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  MPI_Request request;
  CHECK(MPI_Irecv(nullptr, 0, MPI_DATATYPE_NULL, left, 11, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  CHECK(MPI_Send(nullptr, 0, MPI_DATATYPE_NULL, right, 11, MPI_COMM_WORLD) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS && status.MPI_SOURCE == left);
  CHECK(MPI_Sendrecv(nullptr, 0, MPI_DATATYPE_NULL, right, 12, nullptr, 0, MPI_DATATYPE_NULL, left, 12,
                     MPI_COMM_WORLD, &status) == MPI_SUCCESS);
  CHECK(status.MPI_TAG == 12);
  int value = 0;
  CHECK(MPI_Recv(&value, 1, MPI_DATATYPE_NULL, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_ERR_TYPE);
}

void message_handles() {
  CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL);
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  MPI_Request request;
  MPI_Isend(&rank, 1, MPI_INT, right, 14, MPI_COMM_WORLD, &request);
  MPI_Message message;
  MPI_Mprobe(left, 14, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
  MPI_Message converted = MPI_Message_f2c(MPI_Message_c2f(message));
  CHECK(converted == message);
  int value = -1;
  CHECK(MPI_Mrecv(&value, 1, MPI_INT, &converted, MPI_STATUS_IGNORE) == MPI_SUCCESS && value == left);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ring_isendrecv(4);
  ring_isendrecv(256 * 1024);  // rendezvous
  overlapping();
  derived_and_proc_null();
  datatype_null();
  message_handles();
  const int code = tern::mpi_test::conclude("mpi_p2p_more");
  MPI_Finalize();
  return code;
}
