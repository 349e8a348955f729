// Non-blocking barrier, broadcast, reduce and allreduce on 1 to 4 ranks,
// checked against the blocking forms: every root, counts from 0 up, in
// place, an operation that does not commute, a derived datatype; several
// outstanding at once and completed by every request call; interleaved
// with blocking collectives and point-to-point traffic on the same
// communicator; moved on by MPI_Test alone while a rank computes; on split
// communicators.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

const int kCounts[] = {0, 1, 7, 1000, 20000};

std::vector<int> pattern(int who, int count, int salt) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = (who + 1) * 7919 + i * 31 + salt;
  return v;
}

// a op b = a: associative, not commutative; a wrong order shows.
void first_of(void* in, void* inout, int* len, MPI_Datatype*) {
  std::memcpy(inout, in, static_cast<std::size_t>(*len) * sizeof(int));
}

void bcast_reduce(MPI_Comm comm) {
  int r = 0, n = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  for (int count : kCounts) {
    for (int root = 0; root < n; ++root) {
      std::vector<int> data =
          r == root ? pattern(root, count, 1) : std::vector<int>(static_cast<std::size_t>(count), -1);
      MPI_Request request = MPI_REQUEST_NULL;
      CHECK(MPI_Ibcast(data.data(), count, MPI_INT, root, comm, &request) == MPI_SUCCESS);
      CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(request == MPI_REQUEST_NULL);
      CHECK(data == pattern(root, count, 1));

      const std::vector<int> mine = pattern(r, count, 2);
      for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_BXOR}) {
        std::vector<int> expect(static_cast<std::size_t>(count), -2), got(static_cast<std::size_t>(count), -3);
        CHECK(MPI_Reduce(mine.data(), expect.data(), count, MPI_INT, op, root, comm) == MPI_SUCCESS);
        CHECK(MPI_Ireduce(mine.data(), got.data(), count, MPI_INT, op, root, comm, &request) == MPI_SUCCESS);
        CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (r == root) CHECK(got == expect);
        // In place at the root.
        std::vector<int> inout = mine;
        CHECK(MPI_Ireduce(r == root ? MPI_IN_PLACE : mine.data(), r == root ? inout.data() : nullptr, count, MPI_INT,
                          op, root, comm, &request) == MPI_SUCCESS);
        CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (r == root) CHECK(inout == expect);
      }
    }
    const std::vector<int> mine = pattern(r, count, 3);
    std::vector<int> expect(static_cast<std::size_t>(count)), got(static_cast<std::size_t>(count), -1);
    CHECK(MPI_Allreduce(mine.data(), expect.data(), count, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK(MPI_Iallreduce(mine.data(), got.data(), count, MPI_INT, MPI_SUM, comm, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == expect);
    std::vector<int> inout = mine;
    CHECK(MPI_Iallreduce(MPI_IN_PLACE, inout.data(), count, MPI_INT, MPI_SUM, comm, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(inout == expect);
    // Doubles: every rank's values are small integers, so sums are exact.
    std::vector<double> dmine(static_cast<std::size_t>(count)), dgot(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) dmine[static_cast<std::size_t>(i)] = r * 0.5 + i;
    CHECK(MPI_Iallreduce(dmine.data(), dgot.data(), count, MPI_DOUBLE, MPI_SUM, comm, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    bool ok = true;
    for (int i = 0; i < count; ++i) ok = ok && dgot[static_cast<std::size_t>(i)] == 0.25 * n * (n - 1) + double(i) * n;
    CHECK(ok);
  }
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibarrier(comm, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
}

void noncommutative() {
  MPI_Op first = MPI_OP_NULL;
  CHECK(MPI_Op_create(first_of, 0, &first) == MPI_SUCCESS);
  for (int count : {1, 5}) {
    const std::vector<int> mine = pattern(rank, count, 4);
    std::vector<int> got(static_cast<std::size_t>(count), -1);
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK(MPI_Iallreduce(mine.data(), got.data(), count, MPI_INT, first, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == pattern(0, count, 4));
    const int root = size - 1;
    std::fill(got.begin(), got.end(), -1);
    CHECK(MPI_Ireduce(mine.data(), got.data(), count, MPI_INT, first, root, MPI_COMM_WORLD, &request) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (rank == root) CHECK(got == pattern(0, count, 4));
  }
  CHECK(MPI_Op_free(&first) == MPI_SUCCESS);
}

// Every other int of 2 * count: packed at the start, unpacked at the end.
void derived() {
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_vector(4, 1, 2, MPI_INT, &strided) == MPI_SUCCESS);
  CHECK(MPI_Type_commit(&strided) == MPI_SUCCESS);
  std::vector<int> data(7, -1);
  if (rank == 0) data = {10, -1, 11, -1, 12, -1, 13};
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast(data.data(), 1, strided, 0, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK((data == std::vector<int>{10, -1, 11, -1, 12, -1, 13}));
  std::vector<int> mine = {rank, 77, rank * 2, 77, rank * 3, 77, rank * 4};
  std::vector<int> sum(7, 55);
  CHECK(MPI_Iallreduce(mine.data(), sum.data(), 1, strided, MPI_SUM, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  const int total = size * (size - 1) / 2;
  CHECK((sum == std::vector<int>{total, 55, 2 * total, 55, 3 * total, 55, 4 * total}));
  CHECK(MPI_Iallreduce(MPI_IN_PLACE, mine.data(), 1, strided, MPI_SUM, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK((mine == std::vector<int>{total, 77, 2 * total, 77, 3 * total, 77, 4 * total}));
  CHECK(MPI_Type_free(&strided) == MPI_SUCCESS);
}

// A struct with a hole, and a user operation on it: counts summed, the
// largest value kept.
struct Sample {
  int count;
  double value;
};
void combine_samples(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const Sample*>(in);
  auto* b = static_cast<Sample*>(inout);
  for (int i = 0; i < *len; ++i) {
    b[i].value = a[i].value > b[i].value ? a[i].value : b[i].value;
    b[i].count += a[i].count;
  }
}

// User operations on a derived type: the operands rebuilt in the type's
// layout for each call, against the blocking forms.
void derived_user_ops() {
  MPI_Datatype sample = MPI_DATATYPE_NULL;
  const int lengths[2] = {1, 1};
  const MPI_Aint offsets[2] = {offsetof(Sample, count), offsetof(Sample, value)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  CHECK(MPI_Type_create_struct(2, lengths, offsets, types, &sample) == MPI_SUCCESS);
  CHECK(MPI_Type_commit(&sample) == MPI_SUCCESS);
  // Not commutative: in rank order; commutative: binomial.
  for (int commute : {0, 1}) {
    MPI_Op combine = MPI_OP_NULL;
    CHECK(MPI_Op_create(combine_samples, commute, &combine) == MPI_SUCCESS);
    const int count = 5;
    std::vector<Sample> mine(count), expect(count), got(count);
    for (int i = 0; i < count; ++i) {
      mine[static_cast<std::size_t>(i)] = Sample{(rank * 3 + i) % 7 + 1, rank + i * 0.5};
    }
    auto same = [](const std::vector<Sample>& a, const std::vector<Sample>& b) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].count != b[i].count || a[i].value != b[i].value) return false;
      }
      return true;
    };
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK(MPI_Allreduce(mine.data(), expect.data(), count, sample, combine, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Iallreduce(mine.data(), got.data(), count, sample, combine, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(same(got, expect));
    for (int root = 0; root < size; ++root) {
      CHECK(MPI_Reduce(mine.data(), expect.data(), count, sample, combine, root, MPI_COMM_WORLD) == MPI_SUCCESS);
      CHECK(MPI_Ireduce(mine.data(), got.data(), count, sample, combine, root, MPI_COMM_WORLD, &request) ==
            MPI_SUCCESS);
      CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      if (rank == root) CHECK(same(got, expect));
    }
    CHECK(MPI_Scan(mine.data(), expect.data(), count, sample, combine, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Iscan(mine.data(), got.data(), count, sample, combine, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(same(got, expect));
    CHECK(MPI_Op_free(&combine) == MPI_SUCCESS);
  }
  CHECK(MPI_Type_free(&sample) == MPI_SUCCESS);
}

// Four collectives outstanding, blocking ones and user messages (any tag,
// any source) between their start and their completion.
void outstanding_and_interleaved() {
  const int count = 300;
  std::vector<int> bcast = rank == 1 % size ? pattern(9, count, 0) : std::vector<int>(count, 0);
  const std::vector<int> mine = pattern(rank, count, 5);
  std::vector<int> sum(count), max(count), blocking_sum(count);
  MPI_Request requests[4];
  CHECK(MPI_Ibcast(bcast.data(), count, MPI_INT, 1 % size, MPI_COMM_WORLD, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Iallreduce(mine.data(), sum.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[1]) ==
        MPI_SUCCESS);
  CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &requests[2]) == MPI_SUCCESS);
  CHECK(MPI_Ireduce(mine.data(), max.data(), count, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &requests[3]) ==
        MPI_SUCCESS);
  CHECK(MPI_Allreduce(mine.data(), blocking_sum.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  // A ring of user messages on the same communicator, received with wildcards.
  int token = rank * 100, got = -1;
  MPI_Status status;
  CHECK(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &status) == MPI_SUCCESS);
  CHECK(got == ((rank - 1 + size) % size) * 100);
  CHECK(status.MPI_TAG == 3);
  CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
  // Completed last to first, through the array calls.
  int index = -1;
  CHECK(MPI_Waitany(1, &requests[3], &index, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(index == 0);
  int flag = 0;
  while (!flag) CHECK(MPI_Request_get_status(requests[2], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  int outcount = 0, indices[4];
  CHECK(MPI_Waitsome(3, requests, &outcount, indices, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK(outcount >= 1);
  flag = 0;
  while (!flag) CHECK(MPI_Testall(4, requests, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  for (MPI_Request request : requests) CHECK(request == MPI_REQUEST_NULL);
  CHECK(bcast == pattern(9, count, 0));
  CHECK(sum == blocking_sum);
  if (rank == 0) {
    CHECK(max == pattern(size - 1, count, 5));
  }
}

// A rank that only calls MPI_Test between pieces of work still forwards the
// broadcast to the ranks below it and completes (rank 2 of 4 forwards to 3):
// each MPI_Test moves the schedule on. Then the same with the reduction.
void test_driven() {
  const int count = 50000;
  std::vector<double> data(count, rank == 0 ? 2.5 : 0.0);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast(data.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  volatile double work = 0;
  int flag = 0;
  long tests = 0;
  const double deadline = MPI_Wtime() + 30;
  while (!flag && MPI_Wtime() < deadline) {
    for (int i = 0; i < 2000; ++i) work = work + i * 0.5;
    CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    ++tests;
  }
  CHECK(flag);
  CHECK(std::all_of(data.begin(), data.end(), [](double v) { return v == 2.5; }));
  std::vector<double> sum(count);
  for (double& v : data) v = rank + 1;
  CHECK(MPI_Iallreduce(data.data(), sum.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  flag = 0;
  while (!flag && MPI_Wtime() < deadline) {
    for (int i = 0; i < 2000; ++i) work = work + i * 0.5;
    CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  CHECK(flag);
  const double expect = size * (size + 1) / 2.0;
  CHECK(std::all_of(sum.begin(), sum.end(), [expect](double v) { return v == expect; }));
}

// With a progress thread (`async`) a schedule moves on while its rank
// computes without calling MPI: rank 2 of 4 forwards the broadcast to rank
// 3 at once. Without one (`caller`) rank 3 waits until rank 2 calls MPI.
void background(bool async) {
  if (size < 4) return;
  constexpr double kCompute = 1.0;
  std::vector<int> data(100, rank == 0 ? 7 : 0);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request request = MPI_REQUEST_NULL;
  const double start = MPI_Wtime();
  CHECK(MPI_Ibcast(data.data(), 100, MPI_INT, 0, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  if (rank == 2) {
    while (MPI_Wtime() - start < kCompute) {
    }
  }
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  const double waited = MPI_Wtime() - start;
  CHECK(std::all_of(data.begin(), data.end(), [](int v) { return v == 7; }));
  if (rank == 3) {
    if (async) {
      CHECK(waited < kCompute / 2);
    } else {
      CHECK(waited >= kCompute * 0.9);
    }
  }
}

// A blocking call progresses the schedules that wait on this rank: rank 2
// of 4 forwards the broadcast to rank 3 while it sits in MPI_Barrier, which
// rank 3 enters only once its broadcast is done (without that progress the
// job would hang). Large enough to go by rendezvous.
void blocking_calls_progress() {
  if (size != 4) return;
  const int count = 100000;
  std::vector<int> data(count, rank == 0 ? 5 : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast(data.data(), count, MPI_INT, 0, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  if (rank == 2) {
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  } else {
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
  }
  CHECK(std::all_of(data.begin(), data.end(), [](int v) { return v == 5; }));
}

void split_communicators() {
  MPI_Comm half = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half) == MPI_SUCCESS);
  bcast_reduce(half);
  // Freed while a collective on it runs: the collective still completes.
  int half_size = 0, one = 1, sum = 0;
  MPI_Comm_size(half, &half_size);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half, &request) == MPI_SUCCESS);
  CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(sum == half_size);
}

void argument_errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int value = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast(&value, 1, MPI_INT, size, MPI_COMM_WORLD, &request) == MPI_ERR_ROOT);
  CHECK(MPI_Iallreduce(&value, &value, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request) == MPI_ERR_COUNT);
  CHECK(MPI_Iallreduce(&value, &value, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &request) == MPI_ERR_OP);
  CHECK(MPI_Ibarrier(MPI_COMM_WORLD, nullptr) == MPI_ERR_REQUEST);
  CHECK(request == MPI_REQUEST_NULL);
  // A predefined operation on a struct mixing basic types is not defined.
  MPI_Datatype mixed = MPI_DATATYPE_NULL;
  const int lengths[2] = {1, 1};
  const MPI_Aint offsets[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  CHECK(MPI_Type_create_struct(2, lengths, offsets, types, &mixed) == MPI_SUCCESS);
  CHECK(MPI_Type_commit(&mixed) == MPI_SUCCESS);
  double cell[2] = {0, 0}, out[2] = {0, 0};
  CHECK(MPI_Iallreduce(cell, out, 1, mixed, MPI_SUM, MPI_COMM_WORLD, &request) == MPI_ERR_OP);
  CHECK(request == MPI_REQUEST_NULL);
  CHECK(MPI_Type_free(&mixed) == MPI_SUCCESS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bcast_reduce(MPI_COMM_WORLD);
  noncommutative();
  derived();
  derived_user_ops();
  outstanding_and_interleaved();
  test_driven();
  blocking_calls_progress();
  split_communicators();
  argument_errors();
  if (argc > 1) background(std::strcmp(argv[1], "async") == 0);
  const int code = tern::mpi_test::conclude("mpi_nbc");
  MPI_Finalize();
  return code;
}
