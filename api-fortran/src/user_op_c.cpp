// mpi_f08's MPI_Op_create_c: a Fortran MPI_User_function_c takes the C
// form's arguments as they come (the vectors' addresses by value, the
// length as an MPI_COUNT_KIND integer and the datatype handle by
// reference), so the procedure is handed to the C library as it is.
#include "fortran_support.hpp"

extern "C" {

void pmpi_op_create_c_(MPI_User_function_c* user_fn, const MPI_Fint* commute, MPI_Fint* op, MPI_Fint* ierror) {
  const int rc = PMPI_Op_create_c(user_fn, tern::fortran::from_logical(*commute), op);
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(op_create_c)

}  // extern "C"
