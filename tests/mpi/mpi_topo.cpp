// Cartesian topologies against a serial model of the grid: Dims_create's
// factorizations, Cart_create (with ranks left out), Cart_get/rank/coords,
// Cart_shift at periodic and non-periodic edges with a halo exchange,
// Cart_sub, Cartdim_get, Topo_test, Cart_map, and the errors.
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

void dims_create() {
  auto dims_of = [](int nodes, std::vector<int> dims) {
    MPI_Dims_create(nodes, static_cast<int>(dims.size()), dims.data());
    return dims;
  };
  CHECK(dims_of(6, {0, 0}) == (std::vector<int>{3, 2}));
  CHECK(dims_of(12, {0, 0}) == (std::vector<int>{4, 3}));
  CHECK(dims_of(7, {0, 0}) == (std::vector<int>{7, 1}));
  CHECK(dims_of(24, {0, 0, 0}) == (std::vector<int>{4, 3, 2}));
  CHECK(dims_of(16, {0, 0, 0, 0}) == (std::vector<int>{2, 2, 2, 2}));
  CHECK(dims_of(12, {0, 3, 0}) == (std::vector<int>{2, 3, 2}));
  CHECK(dims_of(1, {0, 0}) == (std::vector<int>{1, 1}));
  std::vector<int> bad = {5, 0};
  CHECK(MPI_Dims_create(12, 2, bad.data()) == MPI_ERR_DIMS);
  std::vector<int> fixed = {2, 3};
  CHECK(MPI_Dims_create(6, 2, fixed.data()) == MPI_SUCCESS && fixed == (std::vector<int>{2, 3}));
  CHECK(MPI_Dims_create(0, 2, fixed.data()) == MPI_ERR_ARG);
}

// A dims[0] x dims[1] grid, periodic in dimension 1 only, on the first
// prod(dims) ranks.
void grid_2d() {
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int periods[2] = {0, 1};
  MPI_Comm cart;
  CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart) == MPI_SUCCESS);
  int status = -1;
  CHECK(MPI_Topo_test(cart, &status) == MPI_SUCCESS && status == MPI_CART);
  CHECK(MPI_Topo_test(MPI_COMM_WORLD, &status) == MPI_SUCCESS && status == MPI_UNDEFINED);
  int ndims = -1;
  CHECK(MPI_Cartdim_get(cart, &ndims) == MPI_SUCCESS && ndims == 2);
  int got_dims[2], got_periods[2], coords[2];
  CHECK(MPI_Cart_get(cart, 2, got_dims, got_periods, coords) == MPI_SUCCESS);
  CHECK(got_dims[0] == dims[0] && got_dims[1] == dims[1] && got_periods[0] == 0 && got_periods[1] == 1);
  int cart_rank = -1;
  MPI_Comm_rank(cart, &cart_rank);
  CHECK(cart_rank == rank);  // order kept
  CHECK(coords[0] == rank / dims[1] && coords[1] == rank % dims[1]);
  for (int r = 0; r < size; ++r) {
    int c[2];
    CHECK(MPI_Cart_coords(cart, r, 2, c) == MPI_SUCCESS && c[0] == r / dims[1] && c[1] == r % dims[1]);
    int back = -1;
    CHECK(MPI_Cart_rank(cart, c, &back) == MPI_SUCCESS && back == r);
  }
  const int wrapped[2] = {0, -1};  // periodic dimension wraps
  int found = -1;
  CHECK(MPI_Cart_rank(cart, wrapped, &found) == MPI_SUCCESS && found == dims[1] - 1);
  const int off[2] = {dims[0], 0};
  CHECK(MPI_Cart_rank(cart, off, &found) == MPI_ERR_ARG);
  // Shifts: dimension 0 ends at the edges, dimension 1 wraps.
  int source = -5, dest = -5;
  CHECK(MPI_Cart_shift(cart, 0, 1, &source, &dest) == MPI_SUCCESS);
  CHECK(source == (coords[0] == 0 ? MPI_PROC_NULL : rank - dims[1]));
  CHECK(dest == (coords[0] == dims[0] - 1 ? MPI_PROC_NULL : rank + dims[1]));
  CHECK(MPI_Cart_shift(cart, 1, 1, &source, &dest) == MPI_SUCCESS);
  const int row = coords[0] * dims[1];
  CHECK(dest == row + (coords[1] + 1) % dims[1]);
  CHECK(source == row + (coords[1] - 1 + dims[1]) % dims[1]);
  // Halo exchange along the ring of dimension 1: each receives its left
  // neighbour's rank.
  int from_left = -1;
  CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, dest, 3, &from_left, 1, MPI_INT, source, 3, cart, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  CHECK(from_left == source);
  CHECK(MPI_Cart_shift(cart, 2, 1, &source, &dest) == MPI_ERR_DIMS);
  // Rows: keep dimension 1.
  const int keep_columns[2] = {0, 1};
  MPI_Comm rows;
  CHECK(MPI_Cart_sub(cart, keep_columns, &rows) == MPI_SUCCESS);
  int row_size = 0, row_rank = -1;
  MPI_Comm_size(rows, &row_size);
  MPI_Comm_rank(rows, &row_rank);
  CHECK(row_size == dims[1] && row_rank == coords[1]);
  CHECK(MPI_Cartdim_get(rows, &ndims) == MPI_SUCCESS && ndims == 1);
  int row_dims[1], row_periods[1], row_coords[1];
  CHECK(MPI_Cart_get(rows, 1, row_dims, row_periods, row_coords) == MPI_SUCCESS);
  CHECK(row_dims[0] == dims[1] && row_periods[0] == 1 && row_coords[0] == coords[1]);
  int row_sum = 0;
  MPI_Allreduce(&rank, &row_sum, 1, MPI_INT, MPI_SUM, rows);
  CHECK(row_sum == dims[1] * row + dims[1] * (dims[1] - 1) / 2);
  MPI_Comm_free(&rows);
  // Nothing kept: each rank alone in a 0-dimensional grid.
  const int keep_none[2] = {0, 0};
  MPI_Comm alone;
  CHECK(MPI_Cart_sub(cart, keep_none, &alone) == MPI_SUCCESS);
  int alone_size = 0;
  MPI_Comm_size(alone, &alone_size);
  CHECK(alone_size == 1);
  CHECK(MPI_Cartdim_get(alone, &ndims) == MPI_SUCCESS && ndims == 0);
  MPI_Comm_free(&alone);
  // A duplicate keeps the topology.
  MPI_Comm copy;
  MPI_Comm_dup(cart, &copy);
  CHECK(MPI_Topo_test(copy, &status) == MPI_SUCCESS && status == MPI_CART);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&cart);
}

// A 1-D grid smaller than the job: the ranks beyond it get MPI_COMM_NULL.
void partial_grid() {
  const int cells = size > 1 ? size - 1 : 1;
  const int periods[1] = {1};
  MPI_Comm ring;
  CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &cells, periods, 0, &ring) == MPI_SUCCESS);
  int newrank = -2;
  CHECK(MPI_Cart_map(MPI_COMM_WORLD, 1, &cells, periods, &newrank) == MPI_SUCCESS);
  if (rank < cells) {
    CHECK(ring != MPI_COMM_NULL && newrank == rank);
    int ring_size = 0;
    MPI_Comm_size(ring, &ring_size);
    CHECK(ring_size == cells);
    int source = -5, dest = -5;
    CHECK(MPI_Cart_shift(ring, 0, 2, &source, &dest) == MPI_SUCCESS);
    CHECK(dest == (rank + 2) % cells && source == ((rank - 2) % cells + cells) % cells);
    MPI_Comm_free(&ring);
  } else {
    CHECK(ring == MPI_COMM_NULL && newrank == MPI_UNDEFINED);
  }
  const int too_many = size + 1;
  MPI_Comm none;
  CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &too_many, periods, 0, &none) == MPI_ERR_TOPOLOGY);
  const int negative = -1;
  CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &negative, periods, 0, &none) == MPI_ERR_DIMS);
  int ndims = 0;
  CHECK(MPI_Cartdim_get(MPI_COMM_WORLD, &ndims) == MPI_ERR_TOPOLOGY);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  dims_create();
  grid_2d();
  partial_grid();
  const int code = tern::mpi_test::conclude("mpi_topo");
  MPI_Finalize();
  return code;
}
