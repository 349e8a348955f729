/* MPI user data representations, included by mpi.h inside its extern "C" block with TERN_MPI_API
 * defined: include mpi.h, not this file. */
#ifndef TERN_MPI_DATAREP_H
#define TERN_MPI_DATAREP_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_datarep.h"
#endif

/* User data representations: the callbacks convert values between memory and the file; the file keeps the
 * view's memory layout, so dtype_file_extent_fn must give each basic type its size here (a view or access
 * with another is MPI_ERR_UNSUPPORTED_DATAREP). A conversion runs once per access, position 0 (the int
 * form in pieces of at most INT_MAX items); MPI_CONVERSION_FN_NULL: that direction is native. A name
 * registered before (or a predefined one) is MPI_ERR_DUP_DATAREP. */
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                                            MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                                              void *filebuf, MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent, void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)
TERN_MPI_API(int, Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                                     MPI_Datarep_conversion_function *write_conversion_fn,
                                     MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
TERN_MPI_API(int, Register_datarep_c, (const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                                       MPI_Datarep_conversion_function_c *write_conversion_fn,
                                       MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))

#endif /* TERN_MPI_DATAREP_H */
