// The Fortran sentinels' storage. mpif.h, the mpi module and the mpi_f08
// module declare the same common blocks, so MPI_BOTTOM (and the others) is one
// address in every program unit, whichever form it was written in; the sizes
// match the largest declaration (a type(MPI_Status) or MPI_STATUS_SIZE
// integers).
#include "fortran_support.hpp"

extern "C" {
alignas(16) MPI_Fint tern_mpi_bottom_[1];
alignas(16) MPI_Fint tern_mpi_in_place_[1];
alignas(16) MPI_Fint tern_mpi_status_ignore_[tern::fortran::kStatusSize];
alignas(16) MPI_Fint tern_mpi_statuses_ignore_[tern::fortran::kStatusSize];
alignas(16) MPI_Fint tern_mpi_unweighted_[1];
alignas(16) MPI_Fint tern_mpi_weights_empty_[1];
}
