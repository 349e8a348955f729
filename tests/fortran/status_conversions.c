/* The C status conversions (mpi.h, through mpi_fortran.h): C, Fortran-integer and mpi_f08
 * statuses hold the same fields, and the Fortran IGNORE sentinels are
 * refused. Runs alone (no MPI_Init needed). */
#include <mpi_fortran.h>
#include <stdio.h>

static int failures = 0;

static void check(int condition, const char *what) {
  if (!condition) {
    printf("FAIL: %s\n", what);
    ++failures;
  }
}

int main(void) {
  MPI_Status c = {0};
  c.MPI_SOURCE = 3;
  c.MPI_TAG = 44;
  c.MPI_ERROR = MPI_ERR_TRUNCATE;
  MPI_Fint f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
  check(MPI_Status_c2f(&c, f) == MPI_SUCCESS, "MPI_Status_c2f");
  check(f[0] == 3 && f[1] == 44 && f[2] == MPI_ERR_TRUNCATE, "Fortran status fields 1-3");
  MPI_F08_status f08;
  check(MPI_Status_f2f08(f, &f08) == MPI_SUCCESS && f08.MPI_TAG == 44, "MPI_Status_f2f08");
  MPI_Status back = {0};
  check(MPI_Status_f082c(&f08, &back) == MPI_SUCCESS && back.MPI_SOURCE == 3 && back.MPI_ERROR == MPI_ERR_TRUNCATE,
        "MPI_Status_f082c");
  check(MPI_Status_c2f(&c, MPI_F_STATUS_IGNORE) == MPI_ERR_ARG, "MPI_F_STATUS_IGNORE is refused");
  check(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &back) == MPI_ERR_ARG, "MPI_F_STATUSES_IGNORE is refused");
  if (failures == 0) printf("status_conversions: PASS\n");
  return failures == 0 ? 0 : 1;
}
