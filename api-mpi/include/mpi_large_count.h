/* MPI 4.0 large-count forms: each call below is the call of the same name without "_c", with its counts
 * (and, in the datatype constructors and v/w collectives, its displacements) widened to MPI_Count, so one
 * call may move more than INT_MAX elements. Included by mpi.h inside its extern "C" block with TERN_MPI_API
 * defined: include mpi.h, not this file. */
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
/* buffer_addr is a void **. MPI_Buffer_detach refuses (MPI_ERR_COUNT, buffer left attached) a buffer of more
 * than INT_MAX bytes, whose size its int cannot return; this form returns any. */
TERN_MPI_API(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size))

/* --- Datatype queries (MPI_Type_size reports MPI_UNDEFINED above INT_MAX; MPI_Type_size_c the size). */
TERN_MPI_API(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size))
TERN_MPI_API(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
TERN_MPI_API(int, Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))

#endif /* TERN_MPI_LARGE_COUNT_H */
