// Status conversions between C, mpif.h/`use mpi` and mpi_f08. All three hold
// the same bytes; a status that is one of the IGNORE sentinels, or a null
// pointer, is refused with MPI_ERR_ARG.
#include "mpi_fortran.h"

#include "fortran_support.hpp"

namespace {

int copy_status(const void* from, void* to) {
  if (from == nullptr || to == nullptr) return MPI_ERR_ARG;
  const auto* from_fortran = static_cast<const MPI_Fint*>(from);
  const auto* to_fortran = static_cast<const MPI_Fint*>(to);
  if (tern::fortran::is_status_ignore(from_fortran) || tern::fortran::is_status_ignore(to_fortran)) {
    return MPI_ERR_ARG;
  }
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

}  // namespace

#define TERN_STATUS_CONVERSION(name, from_type, to_type)                                  \
  int PMPI_##name(const from_type* from, to_type* to) { return copy_status(from, to); } \
  decltype(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)));

extern "C" {

TERN_STATUS_CONVERSION(Status_c2f, MPI_Status, MPI_Fint)
TERN_STATUS_CONVERSION(Status_f2c, MPI_Fint, MPI_Status)
TERN_STATUS_CONVERSION(Status_c2f08, MPI_Status, MPI_F08_status)
TERN_STATUS_CONVERSION(Status_f082c, MPI_F08_status, MPI_Status)
TERN_STATUS_CONVERSION(Status_f2f08, MPI_Fint, MPI_F08_status)
TERN_STATUS_CONVERSION(Status_f082f, MPI_F08_status, MPI_Fint)

// The Fortran forms (mpi_f08's MPI_Status_f2f08 and MPI_Status_f082f).
void pmpi_status_f2f08_(const MPI_Fint* f_status, MPI_F08_status* f08_status, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, copy_status(f_status, f08_status));
}
TERN_FORTRAN_WEAK_ALIAS(status_f2f08)

void pmpi_status_f082f_(const MPI_F08_status* f08_status, MPI_Fint* f_status, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, copy_status(f08_status, f_status));
}
TERN_FORTRAN_WEAK_ALIAS(status_f082f)

}  // extern "C"
