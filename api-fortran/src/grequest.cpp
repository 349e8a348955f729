// MPI_Grequest_start from Fortran: the program's callbacks are Fortran
// procedures (arguments by reference, the result in ierror), so the C
// request gets C callbacks whose extra_state is a record of the Fortran ones
// and the program's extra_state; free_fn's call ends the record.
#include "fortran_support.hpp"

namespace {

using tern::fortran::GrequestCancelFn;
using tern::fortran::GrequestFreeFn;
using tern::fortran::GrequestQueryFn;

struct FortranGrequest {
  GrequestQueryFn* query;
  GrequestFreeFn* free;
  GrequestCancelFn* cancel;
  MPI_Aint extra_state;
};

// The status reaches the Fortran procedure as MPI_STATUS_SIZE integers (or
// mpi_f08's type(MPI_Status): the same bytes).
int query_trampoline(void* extra_state, MPI_Status* status) {
  auto* record = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint fortran_status[MPI_F_STATUS_SIZE];
  tern::fortran::status_to_fortran(*status, fortran_status);
  MPI_Fint ierror = MPI_SUCCESS;
  record->query(&record->extra_state, fortran_status, &ierror);
  *status = tern::fortran::status_from_fortran(fortran_status);
  return ierror;
}

int free_trampoline(void* extra_state) {
  auto* record = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint ierror = MPI_SUCCESS;
  record->free(&record->extra_state, &ierror);
  delete record;  // free_fn is the request's last callback
  return ierror;
}

int cancel_trampoline(void* extra_state, int complete) {
  auto* record = static_cast<FortranGrequest*>(extra_state);
  const MPI_Fint complete_fortran = tern::fortran::to_logical(complete);
  MPI_Fint ierror = MPI_SUCCESS;
  record->cancel(&record->extra_state, &complete_fortran, &ierror);
  return ierror;
}

}  // namespace

extern "C" {

void pmpi_grequest_start_(GrequestQueryFn* query_fn, GrequestFreeFn* free_fn, GrequestCancelFn* cancel_fn,
                          const MPI_Aint* extra_state, MPI_Fint* request, MPI_Fint* ierror) {
  auto* record = new FortranGrequest{query_fn, free_fn, cancel_fn, *extra_state};
  const int rc = PMPI_Grequest_start(query_trampoline, free_trampoline, cancel_trampoline, record, request);
  if (rc != MPI_SUCCESS) delete record;
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(grequest_start)

}  // extern "C"
