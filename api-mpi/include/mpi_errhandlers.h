/* User error handlers, user error classes and codes, and the communicator constructors that go with them in
 * MPI 3 and 4 (MPI_Comm_idup, MPI_Comm_create_group), included by mpi.h inside its extern "C" block with
 * TERN_MPI_API defined, after mpi_onesided.h: include mpi.h, not this file. */
#ifndef TERN_MPI_ERRHANDLERS_H
#define TERN_MPI_ERRHANDLERS_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_errhandlers.h"
#endif

/* --- User error handlers. The function runs wherever an error is raised on an object whose handler it is
 * (and from MPI_*_call_errhandler) with a pointer to the object's handle and one to the error code; the call
 * that raised the error then returns the code. A handler made for one kind of object is refused by the
 * others' set calls. MPI_Errhandler_free drops the caller's reference: objects using the handler keep it,
 * and each MPI_*_get_errhandler that returns it hands out one more reference to free. */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errorcode, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errorcode, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *errorcode, ...);
/* MPI 2's names of the same types. */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
TERN_MPI_API(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *comm_errhandler_fn,
                                           MPI_Errhandler *errhandler))
TERN_MPI_API(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn,
                                          MPI_Errhandler *errhandler))
TERN_MPI_API(int, File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn,
                                           MPI_Errhandler *errhandler))
/* Raises errorcode on comm: its handler runs as for an error of an MPI call; returns MPI_SUCCESS after a
 * handler that returns. */
TERN_MPI_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
TERN_MPI_API(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
TERN_MPI_API(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))

/* --- User error classes and codes: numbered above MPI_ERR_LASTCODE in the order they are added, classes and
 * codes from one sequence (the MPI_LASTUSEDCODE attribute of MPI_COMM_WORLD is the largest so far). A new
 * class is its own class; a new code belongs to the class it was added to. Both start with an empty string
 * for MPI_Error_string until MPI_Add_error_string sets one (at most MPI_MAX_ERROR_STRING - 1 characters);
 * the predefined ones keep theirs. Local calls: a program that wants the same numbers on every rank adds
 * them in the same order everywhere. */
TERN_MPI_API(int, Add_error_class, (int *errorclass))
TERN_MPI_API(int, Add_error_code, (int errorclass, int *errorcode))
TERN_MPI_API(int, Add_error_string, (int errorcode, const char *string))

/* --- Communicator constructors. */
/* Non-blocking MPI_Comm_dup: newcomm is set at once and may be used once the request completes. Attributes
 * are copied (their copy callbacks run) in the call itself. */
TERN_MPI_API(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
TERN_MPI_API(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request))
/* Collective over the members of group only (a subgroup of comm's): they get a communicator of group, in the
 * group's order. Concurrent calls over overlapping groups differ in tag (0 .. MPI_TAG_UB). */
TERN_MPI_API(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))

#endif /* TERN_MPI_ERRHANDLERS_H */
