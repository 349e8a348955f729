/* MPI graph and distributed graph topologies and the neighbourhood collectives, included by mpi.h inside
 * its extern "C" block with TERN_MPI_API defined: include mpi.h, not this file. */
#ifndef TERN_MPI_TOPOLOGY_H
#define TERN_MPI_TOPOLOGY_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_topology.h"
#endif

/* --- Graph topologies (ranks keep their order: reorder is not used; ranks beyond nnodes get MPI_COMM_NULL). */
TERN_MPI_API(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                                 MPI_Comm *comm_graph))
TERN_MPI_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
TERN_MPI_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
TERN_MPI_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
TERN_MPI_API(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
TERN_MPI_API(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))

/* --- Distributed graph topologies. Weights: an array, MPI_UNWEIGHTED (no weights, on every rank), or
 * MPI_WEIGHTS_EMPTY (weighted, but this rank gives no edges). MPI_Dist_graph_create orders a rank's
 * neighbours by the rank that named the edge, then as that rank listed it; the adjacent form keeps the
 * order given. Every rank of comm_old is in the new communicator. */
/* Near the top of the address space, as MPI_IN_PLACE: GCC takes a small constant address passed for an array
 * parameter as an empty region and warns (-Wstringop-overread) at every call. */
#define MPI_UNWEIGHTED ((int *)-4)
#define MPI_WEIGHTS_EMPTY ((int *)-8)
TERN_MPI_API(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree, const int destinations[],
                                               const int destweights[], MPI_Info info, int reorder,
                                               MPI_Comm *comm_dist_graph))
TERN_MPI_API(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                      const int destinations[], const int weights[], MPI_Info info, int reorder,
                                      MPI_Comm *comm_dist_graph))
TERN_MPI_API(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
TERN_MPI_API(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                         int maxoutdegree, int destinations[], int destweights[]))

/* --- Neighbourhood collectives on Cartesian, graph and distributed graph communicators. A Cartesian
 * communicator's neighbours are, for each dimension, the rank at -1 then the rank at +1 (MPI_PROC_NULL
 * ones keep their buffer blocks, which are neither sent nor written). MPI_IN_PLACE is not allowed. */
TERN_MPI_API(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm))
TERN_MPI_API(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
/* Non-blocking forms: schedules progressed as the other non-blocking collectives are. */
TERN_MPI_API(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request *request))
TERN_MPI_API(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request *request))
/* Persistent forms (MPI 4): started by MPI_Start/MPI_Startall; the info argument is not read. */
TERN_MPI_API(int, Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Neighbor_allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                             void *recvbuf, const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request *request))
TERN_MPI_API(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))
TERN_MPI_API(int, Neighbor_alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Neighbor_alltoallw_init, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request *request))

#endif /* TERN_MPI_TOPOLOGY_H */
