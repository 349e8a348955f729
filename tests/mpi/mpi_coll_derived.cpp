// The collectives beyond Bcast/Gather/Scatter with derived datatypes:
// Allgather(v), Alltoall(v), Gatherv, Scatterv through pack/unpack against the
// contiguous results; Reduce/Allreduce/Reduce_scatter_block on types of one
// basic type against a serial computation; mixed structs refused.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0, size = 1;
constexpr int K = 5;

// Every other double: K doubles over 2K slots (extent resized to 2K).
MPI_Datatype strided_doubles() {
  MPI_Datatype v, r;
  MPI_Type_vector(K, 1, 2, MPI_DOUBLE, &v);
  MPI_Type_create_resized(v, 0, static_cast<MPI_Aint>(2 * K * sizeof(double)), &r);
  MPI_Type_commit(&r);
  MPI_Type_free(&v);
  return r;
}

double value(int r, int i) { return r * 1000.0 + i + 0.25; }

void test_allgather() {
  MPI_Datatype t = strided_doubles();
  std::vector<double> strided(2 * K, -1.0), contiguous(K);
  for (int i = 0; i < K; ++i) strided[2 * i] = contiguous[i] = value(rank, i);
  std::vector<double> expect(static_cast<std::size_t>(K * size));
  MPI_Allgather(contiguous.data(), K, MPI_DOUBLE, expect.data(), K, MPI_DOUBLE, MPI_COMM_WORLD);
  // Derived send, contiguous receive.
  std::vector<double> got(static_cast<std::size_t>(K * size), -2.0);
  CHECK(MPI_Allgather(strided.data(), 1, t, got.data(), K, MPI_DOUBLE, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(got == expect);
  // Contiguous send, derived receive: rank r's block in the even slots of block r.
  std::vector<double> wide(static_cast<std::size_t>(2 * K * size), -3.0);
  CHECK(MPI_Allgather(contiguous.data(), K, MPI_DOUBLE, wide.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < K; ++i) {
      CHECK(wide[static_cast<std::size_t>(2 * K * r + 2 * i)] == expect[static_cast<std::size_t>(K * r + i)]);
      CHECK(wide[static_cast<std::size_t>(2 * K * r + 2 * i + 1)] == -3.0);
    }
  }
  // In place with a derived receive type.
  std::vector<double> inplace(static_cast<std::size_t>(2 * K * size), -4.0);
  for (int i = 0; i < K; ++i) inplace[static_cast<std::size_t>(2 * K * rank + 2 * i)] = value(rank, i);
  CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < K; ++i) CHECK(inplace[static_cast<std::size_t>(2 * K * r + 2 * i)] == value(r, i));
  }
  // Allgatherv: rank r contributes r + 1 elements of the derived type.
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = r + 1;
    displs[static_cast<std::size_t>(r)] = total;
    total += r + 1;
  }
  std::vector<double> mine(static_cast<std::size_t>(2 * K * (rank + 1)), -1.0);
  for (int j = 0; j < rank + 1; ++j) {
    for (int i = 0; i < K; ++i) mine[static_cast<std::size_t>(2 * K * j + 2 * i)] = value(rank, j * K + i);
  }
  std::vector<double> allv(static_cast<std::size_t>(K * total), -5.0);
  std::vector<int> dcounts(static_cast<std::size_t>(size)), ddispls(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    dcounts[static_cast<std::size_t>(r)] = counts[static_cast<std::size_t>(r)] * K;
    ddispls[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r)] * K;
  }
  CHECK(MPI_Allgatherv(mine.data(), rank + 1, t, allv.data(), dcounts.data(), ddispls.data(), MPI_DOUBLE,
                       MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < (r + 1) * K; ++k) {
      CHECK(allv[static_cast<std::size_t>(ddispls[static_cast<std::size_t>(r)] + k)] == value(r, k));
    }
  }
  // Gatherv to the last rank with a derived receive type, Scatterv back.
  const int root = size - 1;
  std::vector<double> gathered(static_cast<std::size_t>(2 * K * total), -6.0);
  CHECK(MPI_Gatherv(contiguous.data(), K, MPI_DOUBLE, gathered.data(), std::vector<int>(size, 1).data(),
                    displs.data(), t, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank == root) {
    for (int r = 0; r < size; ++r) {
      for (int i = 0; i < K; ++i) {
        CHECK(gathered[static_cast<std::size_t>(2 * K * displs[static_cast<std::size_t>(r)] + 2 * i)] ==
              value(r, i));
      }
    }
  }
  std::vector<double> back(K, -7.0);
  CHECK(MPI_Scatterv(gathered.data(), std::vector<int>(size, 1).data(), displs.data(), t, back.data(), K,
                     MPI_DOUBLE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(back == contiguous);
  MPI_Type_free(&t);
}

void test_alltoall() {
  MPI_Datatype t = strided_doubles();
  // Block for rank d: K values; strided in `wide`, packed in `flat`.
  std::vector<double> wide(static_cast<std::size_t>(2 * K * size), -1.0), flat(static_cast<std::size_t>(K * size));
  for (int d = 0; d < size; ++d) {
    for (int i = 0; i < K; ++i) {
      const double v = value(rank, d * K + i);
      wide[static_cast<std::size_t>(2 * K * d + 2 * i)] = v;
      flat[static_cast<std::size_t>(K * d + i)] = v;
    }
  }
  std::vector<double> expect(static_cast<std::size_t>(K * size));
  MPI_Alltoall(flat.data(), K, MPI_DOUBLE, expect.data(), K, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < K; ++i) CHECK(expect[static_cast<std::size_t>(K * s + i)] == value(s, rank * K + i));
  }
  std::vector<double> got(static_cast<std::size_t>(K * size), -2.0);
  CHECK(MPI_Alltoall(wide.data(), 1, t, got.data(), K, MPI_DOUBLE, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(got == expect);
  std::vector<double> got_wide(static_cast<std::size_t>(2 * K * size), -3.0);
  CHECK(MPI_Alltoall(wide.data(), 1, t, got_wide.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < K; ++i) {
      CHECK(got_wide[static_cast<std::size_t>(2 * K * s + 2 * i)] == expect[static_cast<std::size_t>(K * s + i)]);
      CHECK(got_wide[static_cast<std::size_t>(2 * K * s + 2 * i + 1)] == -3.0);
    }
  }
  // In place.
  std::vector<double> inplace = wide;
  CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < K; ++i) {
      CHECK(inplace[static_cast<std::size_t>(2 * K * s + 2 * i)] == expect[static_cast<std::size_t>(K * s + i)]);
    }
  }
  MPI_Type_free(&t);
}

void test_reductions() {
  // Vector of doubles: K doubles at stride 3 (not resized), count 2.
  MPI_Datatype v;
  MPI_Type_vector(K, 1, 3, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(v, &lb, &extent);
  const int per = static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(double)));  // 3K - 2
  const int count = 2;
  const std::size_t len = static_cast<std::size_t>(per * count);
  auto contribution = [&](int r, int slot) { return (r + 1) * 0.5 + slot * 3.0; };
  std::vector<double> in(len, -100.0), out(len, -1.0);
  for (std::size_t j = 0; j < len; ++j) in[j] = contribution(rank, static_cast<int>(j));
  CHECK(MPI_Allreduce(in.data(), out.data(), count, v, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int c = 0; c < count; ++c) {
    for (int s = 0; s < per; ++s) {
      const std::size_t j = static_cast<std::size_t>(c * per + s);
      if (s % 3 == 0) {
        double sum = 0.0;
        for (int r = 0; r < size; ++r) sum += contribution(r, static_cast<int>(j));
        CHECK(out[j] == sum);
      } else {
        CHECK(out[j] == -1.0);  // gaps untouched
      }
    }
  }
  // In place, MAX.
  std::vector<double> io = in;
  CHECK(MPI_Allreduce(MPI_IN_PLACE, io.data(), count, v, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (std::size_t j = 0; j < len; ++j) {
    CHECK(io[j] == (j % static_cast<std::size_t>(per) % 3 == 0 ? contribution(size - 1, static_cast<int>(j)) : in[j]));
  }
  // Reduce to rank 0.
  std::vector<double> red(len, -1.0);
  CHECK(MPI_Reduce(in.data(), red.data(), count, v, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank == 0) CHECK(red == out);
  // Reduce_scatter_block: one element of an indexed-of-int type per rank.
  MPI_Datatype idx;
  const int lens[2] = {1, 2}, disps[2] = {0, 3};
  MPI_Type_indexed(2, lens, disps, MPI_INT, &idx);
  MPI_Type_commit(&idx);
  MPI_Type_get_extent(idx, &lb, &extent);
  const int ext = static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(int)));  // 5
  std::vector<int> send(static_cast<std::size_t>(ext * size)), recv(static_cast<std::size_t>(ext), -1);
  for (std::size_t j = 0; j < send.size(); ++j) send[j] = rank + static_cast<int>(j);
  CHECK(MPI_Reduce_scatter_block(send.data(), recv.data(), 1, idx, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int s = 0; s < ext; ++s) {
    const int j = rank * ext + s;
    const bool data = s == 0 || s == 3 || s == 4;
    CHECK(recv[static_cast<std::size_t>(s)] == (data ? size * j + size * (size - 1) / 2 : -1));
  }
  MPI_Type_free(&idx);
  // MAXLOC on a contiguous type of pairs.
  MPI_Datatype pairs;
  MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pairs);
  MPI_Type_commit(&pairs);
  struct { double v; int i; } pin[2], pout[2];
  pin[0] = {static_cast<double>(rank), rank};
  pin[1] = {static_cast<double>(-rank), rank};
  CHECK(MPI_Allreduce(pin, pout, 1, pairs, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(pout[0].v == size - 1 && pout[0].i == size - 1);
  CHECK(pout[1].v == 0.0 && pout[1].i == 0);
  MPI_Type_free(&pairs);
  MPI_Type_free(&v);
}

void test_refused() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct Mixed {
    double d;
    int i;
  };
  MPI_Datatype mixed;
  const int lens[2] = {1, 1};
  const MPI_Aint disps[2] = {offsetof(Mixed, d), offsetof(Mixed, i)};
  const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, lens, disps, types, &mixed);
  MPI_Type_commit(&mixed);
  Mixed a[2] = {{1.0, 1}, {2.0, 2}}, b[2] = {};
  CHECK(MPI_Allreduce(a, b, 2, mixed, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(MPI_Reduce(a, b, 2, mixed, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_ERR_UNSUPPORTED_OPERATION);
  // Mixed structs still travel in the data-movement collectives.
  std::vector<Mixed> all(static_cast<std::size_t>(size));
  Mixed me{rank * 1.5, rank};
  CHECK(MPI_Allgather(&me, 1, mixed, all.data(), 1, mixed, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) CHECK(all[static_cast<std::size_t>(r)].d == r * 1.5 && all[static_cast<std::size_t>(r)].i == r);
  MPI_Type_free(&mixed);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_allgather();
  test_alltoall();
  test_reductions();
  test_refused();
  const int rc = ::tern::mpi_test::conclude("mpi_coll_derived");
  MPI_Finalize();
  return rc;
}
