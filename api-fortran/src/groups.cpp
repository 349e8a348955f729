// Handwritten Fortran entry points of group and info calls whose arguments
// the generator cannot express: rank-range triplets and the environment info
// without argc/argv.
#include "fortran_support.hpp"

namespace {

// Fortran's RANGES(3, n) holds n (first, last, stride) triplets one after
// the other: C's int[n][3].
int (*triplets(const MPI_Fint* ranges))[3] {
  static_assert(sizeof(MPI_Fint) == sizeof(int));
  return reinterpret_cast<int(*)[3]>(const_cast<MPI_Fint*>(ranges));
}

}  // namespace

extern "C" {

void pmpi_group_range_incl_(const MPI_Fint* group, const MPI_Fint* n, const MPI_Fint* ranges, MPI_Fint* newgroup,
                            MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Group_range_incl(*group, *n, triplets(ranges), newgroup));
}
TERN_FORTRAN_WEAK_ALIAS(group_range_incl)

void pmpi_group_range_excl_(const MPI_Fint* group, const MPI_Fint* n, const MPI_Fint* ranges, MPI_Fint* newgroup,
                            MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Group_range_excl(*group, *n, triplets(ranges), newgroup));
}
TERN_FORTRAN_WEAK_ALIAS(group_range_excl)

// MPI_INFO_CREATE_ENV(info, ierror): Fortran passes no argc/argv, so the
// command and its arguments are the process's own.
void pmpi_info_create_env_(MPI_Fint* info, MPI_Fint* ierror) {
  tern::fortran::set_error(ierror, PMPI_Info_create_env(0, nullptr, info));
}
TERN_FORTRAN_WEAK_ALIAS(info_create_env)

}  // extern "C"
