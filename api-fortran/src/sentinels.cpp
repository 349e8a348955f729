// The Fortran sentinels' storage. mpif.h, the mpi module and the mpi_f08
// module declare the same common blocks, so MPI_BOTTOM (and the others) is one
// address in every program unit, whichever form it was written in; the sizes
// match the largest declaration (a type(MPI_Status) or MPI_STATUS_SIZE
// integers). MPI_STATUS_IGNORE's and MPI_STATUSES_IGNORE's are in libtern_mpi
// (api-mpi/src/request/status_conversions.cpp), since mpi.h's
// MPI_F_STATUS_IGNORE names them for C programs too.
#include "fortran_support.hpp"

extern "C" {
alignas(16) MPI_Fint tern_mpi_bottom_[1];
alignas(16) MPI_Fint tern_mpi_in_place_[1];
alignas(16) MPI_Fint tern_mpi_unweighted_[1];
alignas(16) MPI_Fint tern_mpi_weights_empty_[1];
// MPI_Comm_spawn's: MPI_ARGV_NULL and MPI_ARGVS_NULL are CHARACTER(1)
// arrays, MPI_ERRCODES_IGNORE an INTEGER one.
alignas(16) char tern_mpi_argv_null_[1];
alignas(16) char tern_mpi_argvs_null_[1];
alignas(16) MPI_Fint tern_mpi_errcodes_ignore_[1];
}
