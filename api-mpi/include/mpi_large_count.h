/* MPI 4.0 large-count forms: each call below is the call of the same name without "_c", with its counts
 * (and, in the datatype constructors, v/w collectives and window constructors, its displacements or
 * displacement units) widened to MPI_Count or MPI_Aint, so one call may move more than INT_MAX elements.
 * Included by mpi.h inside its extern "C" block with TERN_MPI_API defined: include mpi.h, not this file. */
#ifndef TERN_MPI_LARGE_COUNT_H
#define TERN_MPI_LARGE_COUNT_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_large_count.h"
#endif

/* --- Point-to-point. Negative counts are MPI_ERR_COUNT, as are counts whose bytes overflow a size_t. */
TERN_MPI_API(int, Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
TERN_MPI_API(int, Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm))
TERN_MPI_API(int, Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm))
TERN_MPI_API(int, Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm))
TERN_MPI_API(int, Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                           MPI_Status *status))
TERN_MPI_API(int, Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request *request))
TERN_MPI_API(int, Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                                MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Sendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                               int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                               int recvtag, MPI_Comm comm, MPI_Status *status))
TERN_MPI_API(int, Sendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                       int source, int recvtag, MPI_Comm comm, MPI_Status *status))
TERN_MPI_API(int, Isendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                int recvtag, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Isendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                        int source, int recvtag, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                            MPI_Status *status))
TERN_MPI_API(int, Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                             MPI_Request *request))
/* The int forms of these three report MPI_UNDEFINED for a count above INT_MAX; these report it whole. */
TERN_MPI_API(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
TERN_MPI_API(int, Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
TERN_MPI_API(int, Status_set_elements_c, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
TERN_MPI_API(int, Buffer_attach_c, (void *buffer, MPI_Count size))
/* buffer_addr is a void **. MPI_Buffer_detach refuses (MPI_ERR_VALUE_TOO_LARGE, buffer left attached) a buffer
 * of more than INT_MAX bytes, whose size its int cannot return; this form returns any. */
TERN_MPI_API(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size))

/* --- Datatypes. MPI_Type_size reports MPI_UNDEFINED above INT_MAX; MPI_Type_size_c the size. A type made by
 * a _c constructor keeps its counts and displacements as large counts: MPI_Type_get_envelope and
 * MPI_Type_get_contents refuse it (MPI_ERR_VALUE_TOO_LARGE), their _c forms return them. */
TERN_MPI_API(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size))
TERN_MPI_API(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
TERN_MPI_API(int, Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
TERN_MPI_API(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                  MPI_Datatype *newtype))
/* stride in bytes. */
TERN_MPI_API(int, Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_indexed_block_c, (MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_hindexed_block_c, (MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                 MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[],
                                         const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_subarray_c, (int ndims, const MPI_Count array_of_sizes[],
                                           const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[],
                                           int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_darray_c, (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                         MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype *newtype))
TERN_MPI_API(int, Type_get_envelope_c, (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                                        MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner))
TERN_MPI_API(int, Type_get_contents_c, (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                                        MPI_Count max_large_counts, MPI_Count max_datatypes,
                                        int array_of_integers[], MPI_Aint array_of_addresses[],
                                        MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]))

/* --- Packing. MPI_Pack_size refuses (MPI_ERR_VALUE_TOO_LARGE) a size above INT_MAX, which its int cannot
 * hold. */
TERN_MPI_API(int, Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                           MPI_Count outsize, MPI_Count *position, MPI_Comm comm))
TERN_MPI_API(int, Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm))
TERN_MPI_API(int, Pack_size_c, (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size))
TERN_MPI_API(int, Pack_external_c, (const char datarep[], const void *inbuf, MPI_Count incount,
                                    MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position))
TERN_MPI_API(int, Unpack_external_c, (const char datarep[], const void *inbuf, MPI_Count insize,
                                      MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype))
TERN_MPI_API(int, Pack_external_size_c, (const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                         MPI_Count *size))

/* --- Reductions. inoutvec[i] = invec[i] op inoutvec[i] for i < *len: an operation made by MPI_Op_create_c
 * gets its length as an MPI_Count, in every reduction (int or _c call). */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype);
TERN_MPI_API(int, Op_create_c, (MPI_User_function_c *user_fn, int commute, MPI_Op *op))
TERN_MPI_API(int, Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Op op))

/* --- Collectives. The v and w forms take MPI_Count counts and MPI_Aint displacements. Counts past INT_MAX go
 * through on intracommunicators (the blocking forms there with predefined datatypes only; the non-blocking and
 * persistent ones with any) and in the non-blocking and persistent v and w forms on intercommunicators; in the
 * other forms on intercommunicators, and in the blocking forms with derived datatypes (which they pack into
 * bytes with int counts), a count or displacement that does not fit an int is MPI_ERR_COUNT. */
TERN_MPI_API(int, Bcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm))
TERN_MPI_API(int, Gather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TERN_MPI_API(int, Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              int root, MPI_Comm comm))
TERN_MPI_API(int, Scatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TERN_MPI_API(int, Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                               MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm))
TERN_MPI_API(int, Allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm))
TERN_MPI_API(int, Alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
TERN_MPI_API(int, Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm))
TERN_MPI_API(int, Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm))
TERN_MPI_API(int, Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TERN_MPI_API(int, Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TERN_MPI_API(int, Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm))
TERN_MPI_API(int, Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm))

/* Non-blocking: the request completes as the int form's does. */
TERN_MPI_API(int, Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Request *request))
TERN_MPI_API(int, Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request *request))
TERN_MPI_API(int, Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               int root, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                               MPI_Request *request))
TERN_MPI_API(int, Iscatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iallgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ialltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request *request))
TERN_MPI_API(int, Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Request *request))
TERN_MPI_API(int, Ireduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iallreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ireduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ireduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request))
/* Persistent: MPI_Start runs the collective again with the same counts. */
TERN_MPI_API(int, Bcast_init_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Gather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Gatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Scatter_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Scatterv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request))
TERN_MPI_API(int, Allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Reduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Allreduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Reduce_scatter_init_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request))
TERN_MPI_API(int, Reduce_scatter_block_init_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                MPI_Request *request))
TERN_MPI_API(int, Scan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Exscan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))

/* Neighbourhood collectives on Cartesian and graph communicators: blocking, non-blocking, persistent. Counts
 * past INT_MAX go through with any datatype. */
TERN_MPI_API(int, Neighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                         MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Neighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                         const MPI_Datatype recvtypes[], MPI_Comm comm))
TERN_MPI_API(int, Ineighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ineighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ineighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request *request))
TERN_MPI_API(int, Ineighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ineighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Neighbor_allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Neighbor_allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                               void *recvbuf, const MPI_Count recvcounts[],
                                               const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                               MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Neighbor_alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Neighbor_alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                              MPI_Request *request))
TERN_MPI_API(int, Neighbor_alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                              void *recvbuf, const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                              MPI_Comm comm, MPI_Info info, MPI_Request *request))

/* --- One-sided communication. The windows' displacement units are ints inside: a disp_unit beyond INT_MAX is
 * MPI_ERR_DISP. */
TERN_MPI_API(int, Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                 MPI_Win *win))
/* baseptr is a void **. */
TERN_MPI_API(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                   MPI_Win *win))
TERN_MPI_API(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                          void *baseptr, MPI_Win *win))
TERN_MPI_API(int, Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr))
TERN_MPI_API(int, Put_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win))
TERN_MPI_API(int, Get_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win))
TERN_MPI_API(int, Accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TERN_MPI_API(int, Get_accumulate_c, (const void *origin_addr, MPI_Count origin_count,
                                     MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                                     MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                     MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TERN_MPI_API(int, Rput_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
TERN_MPI_API(int, Rget_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
TERN_MPI_API(int, Raccumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
TERN_MPI_API(int, Rget_accumulate_c, (const void *origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                                      MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                      MPI_Win win, MPI_Request *request))

/* MPI-IO: the data accesses and the file type extent. */
TERN_MPI_API(int, File_read_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_write_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_read_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Status *status))
TERN_MPI_API(int, File_write_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Status *status))
TERN_MPI_API(int, File_read_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_write_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_read_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Status *status))
TERN_MPI_API(int, File_write_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Status *status))
TERN_MPI_API(int, File_iread_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_iwrite_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_iread_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Request *request))
TERN_MPI_API(int, File_iwrite_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Request *request))
TERN_MPI_API(int, File_read_all_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype))
TERN_MPI_API(int, File_write_all_begin_c, (MPI_File fh, const void *buf, MPI_Count count,
                                           MPI_Datatype datatype))
TERN_MPI_API(int, File_read_at_all_begin_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                             MPI_Datatype datatype))
TERN_MPI_API(int, File_write_at_all_begin_c, (MPI_File fh, MPI_Offset offset, const void *buf,
                                              MPI_Count count, MPI_Datatype datatype))
TERN_MPI_API(int, File_iread_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Request *request))
TERN_MPI_API(int, File_iwrite_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                                      MPI_Request *request))
TERN_MPI_API(int, File_iread_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_iwrite_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_read_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                       MPI_Status *status))
TERN_MPI_API(int, File_write_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Status *status))
TERN_MPI_API(int, File_iread_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Request *request))
TERN_MPI_API(int, File_iwrite_shared_c, (MPI_File fh, const void *buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_read_ordered_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Status *status))
TERN_MPI_API(int, File_write_ordered_c, (MPI_File fh, const void *buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_read_ordered_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype))
TERN_MPI_API(int, File_write_ordered_begin_c, (MPI_File fh, const void *buf, MPI_Count count,
                                               MPI_Datatype datatype))
TERN_MPI_API(int, File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype, MPI_Count *extent))

#endif /* TERN_MPI_LARGE_COUNT_H */
