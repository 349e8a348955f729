/* MPI used where the standard says it may not be, and a rank that aborts.
 * mpi_misuse MODE:
 *   before   MPI_Comm_rank before MPI_Init
 *   after    MPI_Comm_size after MPI_Finalize
 *   twice    MPI_Init called a second time
 *   allowed  the calls allowed before MPI_Init and after MPI_Finalize
 *   init     MPI_Init, then one line with rank and size (run with a launcher
 *            environment Tern cannot speak to, MPI_Init must end it)
 *   abort    the last rank calls MPI_Abort(7) while the others wait for a
 *            message that never comes: the launcher must end them all
 * Under MPI_ERRORS_ARE_FATAL the misuses end the process with a non-zero
 * code and a message naming the call; "survived" is printed when they do
 * not. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int survived(const char* mode) {
  printf("mpi_misuse: %s survived\n", mode);
  return 0;
}

static int allowed(void) {
  int flag = -1, version = 0, subversion = 0, length = 0;
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  for (int round = 0; round < 2; ++round) {
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != round) return 1;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != round) return 1;
    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS || version < 3) return 1;
    if (MPI_Get_library_version(library, &length) != MPI_SUCCESS || length <= 0) return 1;
    if (round == 0) {
      MPI_Init(NULL, NULL);
      MPI_Finalize();
    }
  }
  printf("mpi_misuse: allowed calls ok\n");
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int rank = -1, size = -1;
  if (strcmp(mode, "before") == 0) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return survived(mode);
  }
  if (strcmp(mode, "allowed") == 0) return allowed();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "init") == 0) {
    printf("mpi_misuse: rank %d of %d started\n", rank, size);
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "twice") == 0) {
    MPI_Init(&argc, &argv);
    return survived(mode);
  }
  if (strcmp(mode, "after") == 0) {
    MPI_Finalize();
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return survived(mode);
  }
  if (strcmp(mode, "abort") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
      MPI_Abort(MPI_COMM_WORLD, 7);
    } else {
      int never = 0;
      MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return survived(mode);
  }
  fprintf(stderr, "mpi_misuse: unknown mode '%s'\n", mode);
  MPI_Finalize();
  return 2;
}
