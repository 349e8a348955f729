// mpi_f08's MPI_Status_f2f08 and MPI_Status_f082f: the C conversions of
// libtern_mpi (api-mpi/src/request/status_conversions.cpp), which also
// refuse the IGNORE sentinels.
#include "fortran_support.hpp"

extern "C" {

void pmpi_status_f2f08_(const MPI_Fint* f_status, MPI_F08_status* f08_status, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Status_f2f08(f_status, f08_status));
}
TERN_FORTRAN_WEAK_ALIAS(status_f2f08)

void pmpi_status_f082f_(const MPI_F08_status* f08_status, MPI_Fint* f_status, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Status_f082f(f08_status, f_status));
}
TERN_FORTRAN_WEAK_ALIAS(status_f082f)

}  // extern "C"
