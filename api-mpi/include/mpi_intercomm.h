/* MPI intercommunicators, included by mpi.h inside its extern "C" block with TERN_MPI_API defined: include
 * mpi.h, not this file. */
#ifndef TERN_MPI_INTERCOMM_H
#define TERN_MPI_INTERCOMM_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_intercomm.h"
#endif

/* --- Intercommunicators: two disjoint groups. MPI_Comm_rank, MPI_Comm_size and MPI_Comm_group describe the
 * local group; the ranks of point-to-point calls (dest, source, MPI_Status.MPI_SOURCE) name the remote one.
 * Blocking collectives: Barrier, Bcast, Reduce, Allreduce, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w), Reduce_scatter(_block), with roots given as the standard has it: MPI_ROOT at the root,
 * MPI_PROC_NULL at the other members of its group, the root's rank in the remote group in the other group.
 * MPI_IN_PLACE is not allowed there. Non-blocking and persistent collectives on them are
 * MPI_ERR_UNSUPPORTED_OPERATION, as are MPI_Comm_create and MPI_Comm_split_type; MPI_Comm_split,
 * MPI_Comm_dup and MPI_Comm_free take them. */
#define MPI_ROOT (-3)
/* Collective over local_comm; local_leader's peer_comm and remote_leader reach the other group's leader,
 * with whom it exchanges messages of tag `tag` on peer_comm. */
TERN_MPI_API(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                     int tag, MPI_Comm *newintercomm))
/* The group that passes high = 0 comes first (the group with the lowest job rank when both pass the same). */
TERN_MPI_API(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
TERN_MPI_API(int, Comm_remote_size, (MPI_Comm comm, int *size))
TERN_MPI_API(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
/* MPI 4.0: collective over the union of the two disjoint groups, each process naming its own group as
 * local_group; remote_leader is a rank of remote_group. Calls over other groups, or with another stringtag,
 * may run at the same time. */
TERN_MPI_API(int, Intercomm_create_from_groups, (MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                                 int remote_leader, const char *stringtag, MPI_Info info,
                                                 MPI_Errhandler errhandler, MPI_Comm *newintercomm))

#endif /* TERN_MPI_INTERCOMM_H */
