// Collectives on 1 to 4 ranks checked against a serial computation of what
// every rank contributed: barrier, bcast from every root, reduce and
// allreduce (SUM, PROD, MAX, MIN on int, long, float, double; in place too),
// gather and allgather.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

// Contribution of `r` at index `i`: small integers, so float sums and
// products are exact and any summation order gives the same bits.
template <typename T>
T value_of(int r, std::size_t i) {
  return static_cast<T>(static_cast<int>((i * 7 + static_cast<std::size_t>(r) * 3) % 5) - 1 + r);
}

template <typename T>
T reference(MPI_Op op, std::size_t i) {
  T result = value_of<T>(0, i);
  for (int r = 1; r < size; ++r) {
    const T v = value_of<T>(r, i);
    if (op == MPI_SUM) result = static_cast<T>(result + v);
    if (op == MPI_PROD) result = static_cast<T>(result * v);
    if (op == MPI_MAX) result = std::max(result, v);
    if (op == MPI_MIN) result = std::min(result, v);
  }
  return result;
}

template <typename T>
void reductions(MPI_Datatype type) {
  for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{70000}}) {
    std::vector<T> mine(count);
    for (std::size_t i = 0; i < count; ++i) mine[i] = value_of<T>(rank, i);
    for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN}) {
      const int n = static_cast<int>(count);
      std::vector<T> out(count, T(-99));
      CHECK(MPI_Allreduce(mine.data(), out.data(), n, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
      bool ok = true;
      for (std::size_t i = 0; i < count; ++i) ok = ok && out[i] == reference<T>(op, i);
      CHECK(ok);
      // In place.
      std::vector<T> inout = mine;
      CHECK(MPI_Allreduce(MPI_IN_PLACE, inout.data(), n, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
      CHECK(inout == out);
      // Reduce to every root.
      for (int root = 0; root < size; ++root) {
        std::vector<T> at_root(count, T(-99));
        CHECK(MPI_Reduce(mine.data(), at_root.data(), n, type, op, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        if (rank == root) CHECK(at_root == out);
      }
    }
  }
}

void bcasts() {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{65536},
                            std::size_t{1} << 20}) {
    for (int root = 0; root < size; ++root) {
      std::vector<unsigned char> data(bytes);
      for (std::size_t i = 0; i < bytes; ++i) {
        data[i] = rank == root ? static_cast<unsigned char>(i * 3 + root) : 0;
      }
      CHECK(MPI_Bcast(data.data(), static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
      bool ok = true;
      for (std::size_t i = 0; i < bytes; ++i) ok = ok && data[i] == static_cast<unsigned char>(i * 3 + root);
      CHECK(ok);
    }
  }
}

void gathers() {
  for (int count : {1, 5, 20000}) {
    std::vector<int> mine(count);
    for (int i = 0; i < count; ++i) mine[i] = rank * 100000 + i;
    std::vector<int> expected(static_cast<std::size_t>(count) * size);
    for (int r = 0; r < size; ++r) {
      for (int i = 0; i < count; ++i) expected[static_cast<std::size_t>(r) * count + i] = r * 100000 + i;
    }
    for (int root = 0; root < size; ++root) {
      std::vector<int> all(expected.size(), -1);
      CHECK(MPI_Gather(mine.data(), count, MPI_INT, all.data(), count, MPI_INT, root, MPI_COMM_WORLD) ==
            MPI_SUCCESS);
      if (rank == root) CHECK(all == expected);
    }
    std::vector<int> all(expected.size(), -1);
    CHECK(MPI_Allgather(mine.data(), count, MPI_INT, all.data(), count, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(all == expected);
    std::vector<int> in_place(expected.size(), -1);
    std::copy(mine.begin(), mine.end(), in_place.begin() + static_cast<std::ptrdiff_t>(rank) * count);
    CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place.data(), count, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(in_place == expected);
  }
}

void barriers() {
  for (int i = 0; i < 100; ++i) CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
  // Collectives on a duplicate and on MPI_COMM_SELF.
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int one = 1, total = 0;
  CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS);
  CHECK(total == size);
  CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF) == MPI_SUCCESS);
  CHECK(total == 1);
  CHECK(MPI_Barrier(dup) == MPI_SUCCESS);
  MPI_Comm_free(&dup);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  barriers();
  bcasts();
  reductions<int>(MPI_INT);
  reductions<long>(MPI_LONG);
  reductions<float>(MPI_FLOAT);
  reductions<double>(MPI_DOUBLE);
  gathers();
  const int code = tern::mpi_test::conclude("mpi_coll");
  MPI_Finalize();
  return code;
}
