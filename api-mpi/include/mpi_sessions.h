/* MPI 4 sessions, included by mpi.h inside its extern "C" block with TERN_MPI_API defined, after
 * mpi_errhandlers.h: include mpi.h, not this file.
 *
 * Sessions run on the World model: the first MPI_Session_init starts MPI as MPI_Init_thread would (unless
 * MPI_Init did), and the last MPI_Session_finalize of a process that never called MPI_Init ends it as
 * MPI_Finalize would, so MPI cannot start again after that. The process sets are "mpi://WORLD" and
 * "mpi://SELF". */
#ifndef TERN_MPI_SESSIONS_H
#define TERN_MPI_SESSIONS_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_sessions.h"
#endif

typedef int MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *errorcode, ...);

/* info: "thread_level" ("MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE") asks for a thread level; errhandler:
 * the session's (predefined, or made by MPI_Session_create_errhandler), which its calls' errors go to. */
TERN_MPI_API(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session))
TERN_MPI_API(int, Session_finalize, (MPI_Session *session))
/* "thread_level": the level the session runs at. */
TERN_MPI_API(int, Session_get_info, (MPI_Session session, MPI_Info *info_used))
TERN_MPI_API(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names))
/* *pset_len 0: receives the name's length with its terminating null; otherwise the room in pset_name. */
TERN_MPI_API(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n, int *pset_len,
                                         char *pset_name))
/* "mpi_size": the number of processes in the set. */
TERN_MPI_API(int, Session_get_pset_info, (MPI_Session session, const char *pset_name, MPI_Info *info))
TERN_MPI_API(int, Group_from_session_pset, (MPI_Session session, const char *pset_name, MPI_Group *newgroup))
/* Collective over the group's members: a communicator of the group with errhandler as its handler. Concurrent
 * calls over overlapping groups differ in stringtag. */
TERN_MPI_API(int, Comm_create_from_group, (MPI_Group group, const char *stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm *newcomm))
TERN_MPI_API(int, Session_create_errhandler, (MPI_Session_errhandler_function *session_errhandler_fn,
                                              MPI_Errhandler *errhandler))
TERN_MPI_API(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler))
TERN_MPI_API(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler))
TERN_MPI_API(int, Session_call_errhandler, (MPI_Session session, int errorcode))
TERN_MPI_API(MPI_Fint, Session_c2f, (MPI_Session session))
TERN_MPI_API(MPI_Session, Session_f2c, (MPI_Fint session))

#endif /* TERN_MPI_SESSIONS_H */
