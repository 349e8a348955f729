/* MPI generalized requests, included by mpi.h inside its extern "C" block with TERN_MPI_API
 * defined: include mpi.h, not this file. */
#ifndef TERN_MPI_GREQUEST_H
#define TERN_MPI_GREQUEST_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_grequest.h"
#endif

/* Generalized requests: the program's own operations, completed by MPI_Grequest_complete (from any thread).
 * query_fn fills the status a wait, test or MPI_Request_get_status reports; free_fn runs once the request
 * is both complete and ended (a completion call, or MPI_Request_free); cancel_fn runs for MPI_Cancel, told
 * whether MPI_Grequest_complete was called. Their errors are the calls' (MPI_ERR_IN_STATUS in the array
 * forms). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
TERN_MPI_API(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                                   MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                   MPI_Request *request))
TERN_MPI_API(int, Grequest_complete, (MPI_Request request))

#endif /* TERN_MPI_GREQUEST_H */
