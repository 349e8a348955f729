// MPI 4.0's status conversions between C and the Fortran forms (section
// 19.3.5). A Fortran status of mpif.h and `use mpi` is MPI_F_STATUS_SIZE
// integers holding an MPI_Status's bytes, and mpi_f08's TYPE(MPI_Status)
// (MPI_F08_status in C) has the same layout, so each conversion is a copy.
// They live in the C library because C programs call them without Fortran;
// so do the Fortran MPI_STATUS(ES)_IGNORE sentinels they refuse, which are
// the storage of the Fortran modules' common blocks.
#include <cstring>

#include "state.hpp"

static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a C status must fill whole Fortran integers");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint));

extern "C" {
// gfortran names common block /tern_mpi_status_ignore/ tern_mpi_status_ignore_.
alignas(16) MPI_Fint tern_mpi_status_ignore_[MPI_F_STATUS_SIZE];
alignas(16) MPI_Fint tern_mpi_statuses_ignore_[MPI_F_STATUS_SIZE];
}

namespace {

bool is_ignore(const void* status) {
  return status == tern_mpi_status_ignore_ || status == tern_mpi_statuses_ignore_;
}

// Callable before MPI_Init (no error handler exists then: the error class is
// returned); afterwards errors go to MPI_COMM_WORLD's handler.
int copy_status(const char* function, const void* from, void* to) {
  using tern::mpi::g_state;
  if (from == nullptr || to == nullptr || is_ignore(from) || is_ignore(to)) {
    if (g_state == nullptr) return MPI_ERR_ARG;
    return tern::mpi::raise(nullptr, MPI_ERR_ARG, function, "%s status argument is %s",
                            from == nullptr || is_ignore(from) ? "input" : "output",
                            (from == nullptr || to == nullptr) ? "null" : "a STATUS_IGNORE sentinel");
  }
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return copy_status("MPI_Status_c2f", c_status, f_status);
}
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return copy_status("MPI_Status_f2c", f_status, c_status);
}
int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return copy_status("MPI_Status_c2f08", c_status, f08_status);
}
int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return copy_status("MPI_Status_f082c", f08_status, c_status);
}
int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return copy_status("MPI_Status_f2f08", f_status, f08_status);
}
int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return copy_status("MPI_Status_f082f", f08_status, f_status);
}

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
#pragma weak MPI_Status_f2c = PMPI_Status_f2c
#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08
#pragma weak MPI_Status_f082c = PMPI_Status_f082c
#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
#pragma weak MPI_Status_f082f = PMPI_Status_f082f

}  // extern "C"
