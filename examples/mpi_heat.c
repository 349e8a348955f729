/* Heat diffusion on a periodic 2-D grid split over a Cartesian topology.
 *
 * Shows: MPI_Dims_create and MPI_Cart_create to lay the ranks out,
 * MPI_Cart_shift to find the neighbours, halo exchange with MPI_Sendrecv
 * (rows contiguous, columns through a vector datatype), MPI_Iallreduce
 * (running while the rank counts its warm cells), MPI_Allreduce and
 * MPI_Scan for global figures, and MPI_Info hints on a communicator.
 *
 * Heat is kept in integer units so that every MPI library prints the same
 * figures whatever order its reductions add in:
 *   build/bin/mpicc -O2 examples/mpi_heat.c -o mpi_heat && build/bin/ternrun -n 4 ./mpi_heat
 *   mpicc.openmpi -O2 examples/mpi_heat.c -o mpi_heat.ompi && mpirun.openmpi -n 4 ./mpi_heat.ompi
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kGrid = 48, kSteps = 100, kReportEvery = 25 };

/* The block of one rank, with a halo of one cell on each side. */
typedef struct {
  int rows, cols;
  long long *cells; /* (rows + 2) x (cols + 2) */
} Block;

static long long *at(Block *block, int row, int col) { return &block->cells[row * (block->cols + 2) + col]; }

/* Initial heat: a few hot spots, as a function of the global position. */
static long long initial_heat(int row, int col) {
  if ((row - 12) * (row - 12) + (col - 30) * (col - 30) < 40) return 1 << 20;
  if (row > 30 && row < 36 && col > 5 && col < 20) return 1 << 18;
  return 0;
}

static void exchange_halo(Block *block, MPI_Comm grid, MPI_Datatype column) {
  int up, down, left, right;
  MPI_Cart_shift(grid, 0, 1, &up, &down);
  MPI_Cart_shift(grid, 1, 1, &left, &right);
  const int rows = block->rows, cols = block->cols;
  /* Rows are contiguous: the first real row goes up, the last comes from below. */
  MPI_Sendrecv(at(block, 1, 1), cols, MPI_LONG_LONG, up, 0, at(block, rows + 1, 1), cols, MPI_LONG_LONG, down, 0, grid,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(at(block, rows, 1), cols, MPI_LONG_LONG, down, 1, at(block, 0, 1), cols, MPI_LONG_LONG, up, 1, grid,
               MPI_STATUS_IGNORE);
  /* Columns are strided: one vector datatype describes them. */
  MPI_Sendrecv(at(block, 1, 1), 1, column, left, 2, at(block, 1, cols + 1), 1, column, right, 2, grid,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(at(block, 1, cols), 1, column, right, 3, at(block, 1, 0), 1, column, left, 3, grid,
               MPI_STATUS_IGNORE);
}

/* One Jacobi step: each cell keeps half its heat and takes an eighth of
 * each neighbour's, in integer units (the rounding loss is part of the model). */
static void step(Block *block, long long *next) {
  for (int r = 1; r <= block->rows; ++r) {
    for (int c = 1; c <= block->cols; ++c) {
      const long long around = *at(block, r - 1, c) + *at(block, r + 1, c) + *at(block, r, c - 1) + *at(block, r, c + 1);
      next[(r - 1) * block->cols + (c - 1)] = *at(block, r, c) / 2 + around / 8;
    }
  }
  for (int r = 1; r <= block->rows; ++r) {
    for (int c = 1; c <= block->cols; ++c) *at(block, r, c) = next[(r - 1) * block->cols + (c - 1)];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* The grid of ranks: as square as the job allows, periodic both ways. */
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int periods[2] = {1, 1};
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  int coords[2];
  MPI_Cart_coords(grid, rank, 2, coords);
  if (kGrid % dims[0] != 0 || kGrid % dims[1] != 0) {
    if (rank == 0) fprintf(stderr, "mpi_heat: %d ranks do not split a %d x %d grid evenly\n", size, kGrid, kGrid);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* Hints travel with the communicator; this program only names its use. */
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_source", "true");
  MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
  MPI_Comm_set_info(grid, hints);
  int nkeys = 0;
  MPI_Info_get_nkeys(hints, &nkeys);
  if (rank == 0) {
    printf("mpi_heat: %d x %d grid on %d x %d ranks, %d hints:", kGrid, kGrid, dims[0], dims[1], nkeys);
    for (int i = 0; i < nkeys; ++i) {
      char key[MPI_MAX_INFO_KEY + 1];
      MPI_Info_get_nthkey(hints, i, key);
      printf(" %s", key);
    }
    printf("\n");
  }
  MPI_Info_free(&hints);

  Block block = {kGrid / dims[0], kGrid / dims[1], NULL};
  block.cells = calloc((size_t)(block.rows + 2) * (size_t)(block.cols + 2), sizeof(long long));
  long long *next = malloc((size_t)block.rows * (size_t)block.cols * sizeof(long long));
  for (int r = 1; r <= block.rows; ++r) {
    for (int c = 1; c <= block.cols; ++c) {
      *at(&block, r, c) = initial_heat(coords[0] * block.rows + r - 1, coords[1] * block.cols + c - 1);
    }
  }
  MPI_Datatype column;
  MPI_Type_vector(block.rows, 1, block.cols + 2, MPI_LONG_LONG, &column);
  MPI_Type_commit(&column);

  for (int n = 1; n <= kSteps; ++n) {
    exchange_halo(&block, grid, column);
    step(&block, next);
    if (n % kReportEvery != 0) continue;
    long long local[2] = {0, 0}; /* total heat, hottest cell */
    for (int r = 1; r <= block.rows; ++r) {
      for (int c = 1; c <= block.cols; ++c) {
        const long long heat = *at(&block, r, c);
        local[0] += heat;
        if (heat > local[1]) local[1] = heat;
      }
    }
    long long total = 0, hottest = 0, warm_up_to_me = 0, warm_total = 0;
    MPI_Request figures[2];
    MPI_Iallreduce(&local[0], &total, 1, MPI_LONG_LONG, MPI_SUM, grid, &figures[0]);
    MPI_Iallreduce(&local[1], &hottest, 1, MPI_LONG_LONG, MPI_MAX, grid, &figures[1]);
    long long warm = 0; /* cells above 1/64 of a hot spot, counted meanwhile */
    for (int r = 1; r <= block.rows; ++r) {
      for (int c = 1; c <= block.cols; ++c) warm += *at(&block, r, c) > (1 << 14);
    }
    /* The last rank's inclusive prefix is the total: a scan and a reduction agree. */
    MPI_Scan(&warm, &warm_up_to_me, 1, MPI_LONG_LONG, MPI_SUM, grid);
    MPI_Allreduce(&warm, &warm_total, 1, MPI_LONG_LONG, MPI_SUM, grid);
    long long last_prefix = warm_up_to_me;
    MPI_Bcast(&last_prefix, 1, MPI_LONG_LONG, size - 1, grid);
    MPI_Waitall(2, figures, MPI_STATUSES_IGNORE);
    if (rank == 0) {
      printf("step %3d: total heat %lld, hottest cell %lld, warm cells %lld (scan %s)\n", n, total, hottest,
             warm_total, last_prefix == warm_total ? "agrees" : "DISAGREES");
    }
  }

  MPI_Type_free(&column);
  free(next);
  free(block.cells);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
