// Allreduce of long vectors (the reduce-scatter + allgather path on
// power-of-two rank counts, reduce + broadcast otherwise), with counts that do
// not divide evenly by the number of ranks, checked element by element.
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "check.hpp"

using tern::mpi_test::check;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int count : {8192, 100003, 262147}) {
    std::vector<double> values(static_cast<std::size_t>(count)), sums(values.size());
    for (int i = 0; i < count; ++i) values[i] = rank * 0.5 + i % 1000;
    check(MPI_Allreduce(values.data(), sums.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce SUM", __LINE__);
    bool sums_right = true;
    for (int i = 0; i < count && sums_right; ++i) {
      const double expected = 0.5 * (size * (size - 1) / 2) + static_cast<double>(size) * (i % 1000);
      sums_right = sums[i] == expected;
    }
    check(sums_right, "SUM of doubles", __LINE__);

    std::vector<int> mine(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) mine[i] = (i * 7 + rank * 13) % 101;
    check(MPI_Allreduce(MPI_IN_PLACE, mine.data(), count, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce MAX in place", __LINE__);
    bool max_right = true;
    for (int i = 0; i < count && max_right; ++i) {
      int expected = 0;
      for (int r = 0; r < size; ++r) expected = std::max(expected, (i * 7 + r * 13) % 101);
      max_right = mine[i] == expected;
    }
    check(max_right, "MAX of ints", __LINE__);
  }
  const int code = tern::mpi_test::conclude("mpi_allreduce_large");
  MPI_Finalize();
  return code;
}
