/* MPI dynamic processes, included by mpi.h inside its extern "C" block with TERN_MPI_API defined: include
 * mpi.h, not this file. */
#ifndef TERN_MPI_DYNAMIC_H
#define TERN_MPI_DYNAMIC_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_dynamic.h"
#endif

/* Tern's launcher starts every process of a job at start-up and none after MPI_Init, and its processes
 * reach only the job they were started in. So: MPI_Comm_get_parent gives MPI_COMM_NULL (no process was
 * spawned); MPI_Comm_disconnect works on any communicator; MPI_Comm_spawn and MPI_Comm_spawn_multiple check
 * their arguments, then raise MPI_ERR_SPAWN (at the root, where maxprocs is known, every array_of_errcodes
 * entry MPI_ERR_SPAWN); the port and name service calls (MPI_Open_port, MPI_Close_port, MPI_Comm_accept,
 * MPI_Comm_connect, MPI_Comm_join, MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name) raise
 * MPI_ERR_UNSUPPORTED_OPERATION. Errors go to the communicator's handler (MPI_COMM_WORLD's for the calls
 * without one). */
#define MPI_MAX_PORT_NAME 256
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)

TERN_MPI_API(int, Comm_get_parent, (MPI_Comm *parent))
/* Collective over comm: waits for comm's pending requests to complete, then frees comm. */
TERN_MPI_API(int, Comm_disconnect, (MPI_Comm *comm))
TERN_MPI_API(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                               MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
TERN_MPI_API(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[],
                                        const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                        MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
TERN_MPI_API(int, Open_port, (MPI_Info info, char *port_name))
TERN_MPI_API(int, Close_port, (const char *port_name))
TERN_MPI_API(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                                MPI_Comm *newcomm))
TERN_MPI_API(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                                 MPI_Comm *newcomm))
TERN_MPI_API(int, Comm_join, (int fd, MPI_Comm *intercomm))
TERN_MPI_API(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
TERN_MPI_API(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))
TERN_MPI_API(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))

#endif /* TERN_MPI_DYNAMIC_H */
