/* Tern's MPI interface: every function of MPI 4.0, with the standard's
 * names and meanings (dynamic process management answers with errors: the
 * launcher starts no process after start-up). Handles are ints (indexes into
 * tables kept by the library), so handle conversion to and from Fortran is
 * the identity.
 *
 * Every function exists under its MPI_ name and its PMPI_ profiling name; the
 * MPI_ names are weak aliases, so a profiling library may define them and
 * call the PMPI_ ones.
 *
 * The functions MPI 3.0 removed (MPI_Address, MPI_Type_struct, ...) are not
 * declared: a program that uses one fails to build instead of computing
 * something wrong. */
#ifndef TERN_MPI_H
#define TERN_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 4
#define MPI_SUBVERSION 0
#define TERN_MPI 1

/* --- Handle types */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Fint;
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

/* What a completed receive (or probe) learned. MPI_SOURCE, MPI_TAG and
 * MPI_ERROR are public; the rest belongs to the library (MPI_Get_count). */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int tern_cancelled;
  MPI_Count tern_bytes;
} MPI_Status;

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/* --- Predefined handles */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_INFO_NULL ((MPI_Info)0)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)3)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG_INT ((MPI_Datatype)11)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_LONG_DOUBLE ((MPI_Datatype)15)
#define MPI_WCHAR ((MPI_Datatype)16)
#define MPI_C_BOOL ((MPI_Datatype)17)
#define MPI_INT8_T ((MPI_Datatype)18)
#define MPI_INT16_T ((MPI_Datatype)19)
#define MPI_INT32_T ((MPI_Datatype)20)
#define MPI_INT64_T ((MPI_Datatype)21)
#define MPI_UINT8_T ((MPI_Datatype)22)
#define MPI_UINT16_T ((MPI_Datatype)23)
#define MPI_UINT32_T ((MPI_Datatype)24)
#define MPI_UINT64_T ((MPI_Datatype)25)
#define MPI_AINT ((MPI_Datatype)26)
#define MPI_OFFSET ((MPI_Datatype)27)
#define MPI_COUNT ((MPI_Datatype)28)
#define MPI_PACKED ((MPI_Datatype)29)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)30)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)31)

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)

/* --- Constants */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Predefined attribute keys (MPI_Comm_get_attr). */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7

/* --- Error classes (error codes are the classes themselves). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_NO_MEM 20
#define MPI_ERR_KEYVAL 21
#define MPI_ERR_UNSUPPORTED_OPERATION 22
#define MPI_ERR_ERRHANDLER 23
#define MPI_ERR_INFO 24
#define MPI_ERR_INFO_KEY 25
#define MPI_ERR_INFO_VALUE 26
#define MPI_ERR_INFO_NOKEY 27
/* I/O error classes (MPI_File_*). */
#define MPI_ERR_FILE 28
#define MPI_ERR_NOT_SAME 29
#define MPI_ERR_AMODE 30
#define MPI_ERR_UNSUPPORTED_DATAREP 31
#define MPI_ERR_NO_SUCH_FILE 32
#define MPI_ERR_FILE_EXISTS 33
#define MPI_ERR_BAD_FILE 34
#define MPI_ERR_ACCESS 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_QUOTA 37
#define MPI_ERR_READ_ONLY 38
#define MPI_ERR_FILE_IN_USE 39
#define MPI_ERR_DUP_DATAREP 40
#define MPI_ERR_CONVERSION 41
#define MPI_ERR_IO 42
/* One-sided error classes (MPI_Win_*, MPI_Put, ...). */
#define MPI_ERR_WIN 43
#define MPI_ERR_BASE 44
#define MPI_ERR_SIZE 45
#define MPI_ERR_DISP 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_ASSERT 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_RMA_RANGE 51
#define MPI_ERR_RMA_ATTACH 52
#define MPI_ERR_RMA_SHARED 53
#define MPI_ERR_RMA_FLAVOR 54
/* MPI 4.0: an int output argument cannot hold the value (a size or count past INT_MAX): the call's _c form
 * returns it. */
#define MPI_ERR_VALUE_TOO_LARGE 55
/* Dynamic process error classes (mpi_dynamic.h: Tern starts no process after start-up). */
#define MPI_ERR_SPAWN 56
#define MPI_ERR_PORT 57
#define MPI_ERR_SERVICE 58
#define MPI_ERR_NAME 59
/* The MPI tool interface's classes (MPI_T_ERR_*, 60-76, mpi_tool.h) follow. */
#define MPI_ERR_LASTCODE 76

/* TERN_MPI_API(ret, name, params) declares MPI_name and PMPI_name. */
#define TERN_MPI_API(ret, name, params) ret MPI_##name params; ret PMPI_##name params;

/* --- Environment */
TERN_MPI_API(int, Init, (int *argc, char ***argv))
/* required: the thread level asked for; provided: the one given (MPI_THREAD_MULTIPLE included). */
TERN_MPI_API(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
TERN_MPI_API(int, Query_thread, (int *provided))
TERN_MPI_API(int, Is_thread_main, (int *flag))
TERN_MPI_API(int, Finalize, (void))
TERN_MPI_API(int, Initialized, (int *flag))
TERN_MPI_API(int, Finalized, (int *flag))
/* Ends every rank of the job with `errorcode` as the exit status. */
TERN_MPI_API(int, Abort, (MPI_Comm comm, int errorcode))
TERN_MPI_API(double, Wtime, (void))
TERN_MPI_API(double, Wtick, (void))
TERN_MPI_API(int, Get_processor_name, (char *name, int *resultlen))
TERN_MPI_API(int, Get_version, (int *version, int *subversion))
TERN_MPI_API(int, Get_library_version, (char *version, int *resultlen))

/* --- Errors */
TERN_MPI_API(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
TERN_MPI_API(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
TERN_MPI_API(int, Errhandler_free, (MPI_Errhandler *errhandler))
TERN_MPI_API(int, Error_string, (int errorcode, char *string, int *resultlen))
TERN_MPI_API(int, Error_class, (int errorcode, int *errorclass))

/* --- Communicators */
TERN_MPI_API(int, Comm_rank, (MPI_Comm comm, int *rank))
TERN_MPI_API(int, Comm_size, (MPI_Comm comm, int *size))
/* Collective over comm: a new communicator with the same ranks and its own matching context. */
TERN_MPI_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
TERN_MPI_API(int, Comm_free, (MPI_Comm *comm))
TERN_MPI_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
/* Attribute caching (MPI_Comm_get_attr, keyvals) and datatype decoding (declared with TERN_MPI_API, inside
 * this extern "C"). */
#include "mpi_attributes.h"

/* --- Point-to-point */
TERN_MPI_API(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
TERN_MPI_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
TERN_MPI_API(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                         MPI_Status *status))
TERN_MPI_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
TERN_MPI_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request))
TERN_MPI_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                          MPI_Request *request))
TERN_MPI_API(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status *status))
TERN_MPI_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
TERN_MPI_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
TERN_MPI_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
TERN_MPI_API(int, Type_size, (MPI_Datatype datatype, int *size))

/* --- Requests */
TERN_MPI_API(int, Wait, (MPI_Request *request, MPI_Status *status))
TERN_MPI_API(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))
TERN_MPI_API(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
TERN_MPI_API(int, Testall, (int count, MPI_Request array_of_requests[], int *flag,
                            MPI_Status array_of_statuses[]))
TERN_MPI_API(int, Request_free, (MPI_Request *request))

/* --- Collectives */
TERN_MPI_API(int, Barrier, (MPI_Comm comm))
TERN_MPI_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
TERN_MPI_API(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           int root, MPI_Comm comm))
TERN_MPI_API(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm))
TERN_MPI_API(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TERN_MPI_API(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm))

/* --- groups, communicators, collectives --- */
#define MPI_GROUP_EMPTY ((MPI_Group)1)

/* Value-index pairs for MPI_MAXLOC/MPI_MINLOC, laid out as the C structs
 * {float; int}, {double; int}, {long; int}, {int; int}, {short; int},
 * {long double; int}. */
#define MPI_FLOAT_INT ((MPI_Datatype)32)
#define MPI_DOUBLE_INT ((MPI_Datatype)33)
#define MPI_LONG_INT ((MPI_Datatype)34)
#define MPI_2INT ((MPI_Datatype)35)
#define MPI_SHORT_INT ((MPI_Datatype)36)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)37)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)38)

#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)

/* inoutvec[i] = invec[i] op inoutvec[i] for i < *len. */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

TERN_MPI_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
TERN_MPI_API(int, Group_size, (MPI_Group group, int *size))
/* MPI_UNDEFINED when the caller is not a member. */
TERN_MPI_API(int, Group_rank, (MPI_Group group, int *rank))
TERN_MPI_API(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
TERN_MPI_API(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
TERN_MPI_API(int, Group_free, (MPI_Group *group))
TERN_MPI_API(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                          int ranks2[]))
TERN_MPI_API(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
/* Union: group1's members, then group2's others; intersection and difference: in group1's order. */
TERN_MPI_API(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
TERN_MPI_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
TERN_MPI_API(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
/* ranges: n (first, last, stride) triplets; the stride may be negative, never 0. */
TERN_MPI_API(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
TERN_MPI_API(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
/* Collective over comm: ranks with the same color form a communicator, ordered by (key, rank in comm);
 * MPI_UNDEFINED as the color gives MPI_COMM_NULL. */
TERN_MPI_API(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
/* MPI_COMM_TYPE_SHARED: the ranks of each host (they can share memory);
 * MPI_UNDEFINED: MPI_COMM_NULL. The info hints are not read. */
#define MPI_COMM_TYPE_SHARED 1
TERN_MPI_API(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
/* Collective over comm (same group everywhere): members of group get a communicator, others MPI_COMM_NULL. */
TERN_MPI_API(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))

TERN_MPI_API(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
TERN_MPI_API(int, Op_free, (MPI_Op *op))
TERN_MPI_API(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
TERN_MPI_API(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm))
TERN_MPI_API(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                            MPI_Comm comm))
TERN_MPI_API(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm))
TERN_MPI_API(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm))
TERN_MPI_API(MPI_Fint, Group_c2f, (MPI_Group group))
TERN_MPI_API(MPI_Group, Group_f2c, (MPI_Fint group))

/* --- requests, probes, buffered and persistent sends --- */
/* A message taken out of matching by MPI_Mprobe/MPI_Improbe. */
typedef int MPI_Message;
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)-1)
/* Bytes MPI_Bsend needs in the attached buffer beyond the message itself. */
#define MPI_BSEND_OVERHEAD 32

TERN_MPI_API(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))
TERN_MPI_API(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status))
TERN_MPI_API(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                             MPI_Status array_of_statuses[]))
TERN_MPI_API(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                             MPI_Status array_of_statuses[]))
/* Like MPI_Test, but the request stays as it is. */
TERN_MPI_API(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
/* Receives not yet matched end canceled; sends are not cancellable and complete normally. */
TERN_MPI_API(int, Cancel, (MPI_Request *request))
TERN_MPI_API(int, Test_cancelled, (const MPI_Status *status, int *flag))
TERN_MPI_API(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))

TERN_MPI_API(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
TERN_MPI_API(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                            MPI_Status *status))
TERN_MPI_API(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
TERN_MPI_API(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                           MPI_Request *request))

/* Ready sends behave as standard sends. */
TERN_MPI_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
TERN_MPI_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request))
TERN_MPI_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
TERN_MPI_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request))
TERN_MPI_API(int, Buffer_attach, (void *buffer, int size))
/* buffer_addr is a void **: receives the detached buffer. Waits for the buffered sends. */
TERN_MPI_API(int, Buffer_detach, (void *buffer_addr, int *size))
TERN_MPI_API(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                     int recvtag, MPI_Comm comm, MPI_Status *status))

TERN_MPI_API(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                              MPI_Request *request))
TERN_MPI_API(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request *request))
TERN_MPI_API(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request *request))
TERN_MPI_API(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request *request))
TERN_MPI_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                              MPI_Request *request))
TERN_MPI_API(int, Start, (MPI_Request *request))
TERN_MPI_API(int, Startall, (int count, MPI_Request array_of_requests[]))

/* Memory local peers map: a rendezvous from or into it is one memcpy. baseptr is a void **. */
TERN_MPI_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
TERN_MPI_API(int, Free_mem, (void *base))

/* --- Derived datatypes: contiguous data goes straight to the engine, other layouts through pack/unpack.
 * Point-to-point calls and collectives take them; reductions with predefined operations take types whose
 * elements are all one predefined type. */
#define MPI_MAX_OBJECT_NAME 128
TERN_MPI_API(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                        MPI_Datatype *newtype))
TERN_MPI_API(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype *newtype))
TERN_MPI_API(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[],
                                 MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                         MPI_Datatype *newtype))
TERN_MPI_API(int, Type_hindexed, (int count, const int array_of_blocklengths[],
                                  const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_struct, (int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                       MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_commit, (MPI_Datatype *datatype))
/* Operations in flight with the type complete normally. */
TERN_MPI_API(int, Type_free, (MPI_Datatype *datatype))
TERN_MPI_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
TERN_MPI_API(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
TERN_MPI_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
TERN_MPI_API(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
TERN_MPI_API(int, Get_address, (const void *location, MPI_Aint *address))
TERN_MPI_API(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
TERN_MPI_API(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
TERN_MPI_API(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                         int *position, MPI_Comm comm))
TERN_MPI_API(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm))
TERN_MPI_API(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))

/* --- Handle conversion (handles are already integers) */
TERN_MPI_API(MPI_Fint, Comm_c2f, (MPI_Comm comm))
TERN_MPI_API(MPI_Comm, Comm_f2c, (MPI_Fint comm))
TERN_MPI_API(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
TERN_MPI_API(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
TERN_MPI_API(MPI_Fint, Op_c2f, (MPI_Op op))
TERN_MPI_API(MPI_Op, Op_f2c, (MPI_Fint op))
TERN_MPI_API(MPI_Fint, Request_c2f, (MPI_Request request))
TERN_MPI_API(MPI_Request, Request_f2c, (MPI_Fint request))

/* --- Further environment, communicator, point-to-point and collective calls */
/* Profiling hooks: Tern has no profiling levels, so this only returns. */
TERN_MPI_API(int, Pcontrol, (const int level, ...))
/* Tern has intracommunicators only: flag is always false. */
TERN_MPI_API(int, Comm_test_inter, (MPI_Comm comm, int *flag))
TERN_MPI_API(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
TERN_MPI_API(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))

TERN_MPI_API(int, Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                              MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                      int recvtag, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(MPI_Fint, Message_c2f, (MPI_Message message))
TERN_MPI_API(MPI_Message, Message_f2c, (MPI_Fint message))

/* recvcounts[i] elements of the reduction land at rank i. */
TERN_MPI_API(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm))
/* inoutbuf[i] = inbuf[i] op inoutbuf[i], locally. */
TERN_MPI_API(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
TERN_MPI_API(int, Op_commutative, (MPI_Op op, int *commute))
TERN_MPI_API(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm))
/* Rank 0's recvbuf is left as it is. */
TERN_MPI_API(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm))
/* Displacements in bytes; a datatype per peer. */
TERN_MPI_API(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))

/* --- Non-blocking collectives (MPI 3) and persistent collectives (MPI 4):
 * schedules of point-to-point steps that every progress call moves on
 * (MPI_Test and friends, blocking calls, the progress thread). The info
 * argument of the _init forms is accepted and not read. */
TERN_MPI_API(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request *request))
TERN_MPI_API(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            int root, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Allreduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request))
TERN_MPI_API(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                               const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request))
TERN_MPI_API(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request *request))
TERN_MPI_API(int, Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
TERN_MPI_API(int, Gatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request))
TERN_MPI_API(int, Scatterv_init, (const void *sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request))
TERN_MPI_API(int, Allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
TERN_MPI_API(int, Alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request))
TERN_MPI_API(int, Alltoallw_init, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request))
TERN_MPI_API(int, Reduce_scatter_block_init, (const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                              MPI_Request *request))
TERN_MPI_API(int, Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request))

/* --- Info objects: ordered (key, value) string pairs. */
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
TERN_MPI_API(int, Info_create, (MPI_Info *info))
TERN_MPI_API(int, Info_set, (MPI_Info info, const char *key, const char *value))
/* value holds valuelen characters and the terminating null. */
TERN_MPI_API(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
/* *buflen in: the size of value; out: the value's length plus one. */
TERN_MPI_API(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
TERN_MPI_API(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
TERN_MPI_API(int, Info_delete, (MPI_Info info, const char *key))
TERN_MPI_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
/* MPI 4.0: a new info object with MPI_INFO_ENV's keys (command and argv from argc/argv when given);
 * callable before MPI_Init. */
TERN_MPI_API(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))
TERN_MPI_API(int, Info_free, (MPI_Info *info))
TERN_MPI_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
TERN_MPI_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
TERN_MPI_API(MPI_Fint, Info_c2f, (MPI_Info info))
TERN_MPI_API(MPI_Info, Info_f2c, (MPI_Fint info))
/* Hints are kept as given and returned by MPI_Comm_get_info; Tern acts on none. */
TERN_MPI_API(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
TERN_MPI_API(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
TERN_MPI_API(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))

/* --- Cartesian topologies (ranks keep their order: reorder is not used). */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
TERN_MPI_API(int, Dims_create, (int nnodes, int ndims, int dims[]))
TERN_MPI_API(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                                MPI_Comm *comm_cart))
TERN_MPI_API(int, Cartdim_get, (MPI_Comm comm, int *ndims))
TERN_MPI_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
TERN_MPI_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
TERN_MPI_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
TERN_MPI_API(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
TERN_MPI_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
TERN_MPI_API(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
/* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH, or MPI_UNDEFINED for a communicator without a topology. */
TERN_MPI_API(int, Topo_test, (MPI_Comm comm, int *status))
/* Graph and distributed graph topologies, neighbourhood collectives (with TERN_MPI_API, inside this extern "C"). */
#include "mpi_topology.h"

/* --- MPI-IO (POSIX pread/pwrite underneath). Errors on files go to the file's handler, MPI_ERRORS_RETURN
 * unless set otherwise (MPI_File_set_errhandler on MPI_FILE_NULL sets the default for later opens). */
typedef int MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)
/* A block of an n-dimensional array (the usual filetype of a block decomposition); extent: the whole array. */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
TERN_MPI_API(int, Type_create_subarray, (int ndims, const int sizes[], const int subsizes[], const int starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
/* A process's share of an array distributed over a row-major process grid (block, cyclic or none per dimension). */
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
TERN_MPI_API(int, Type_create_darray, (int size, int rank, int ndims, const int gsizes[], const int distribs[],
                                       const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype *newtype))
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-54278278)
#define MPI_MAX_DATAREP_STRING 128
TERN_MPI_API(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
TERN_MPI_API(int, File_close, (MPI_File *fh))
TERN_MPI_API(int, File_delete, (const char *filename, MPI_Info info))
TERN_MPI_API(int, File_set_size, (MPI_File fh, MPI_Offset size))
TERN_MPI_API(int, File_preallocate, (MPI_File fh, MPI_Offset size))
TERN_MPI_API(int, File_get_size, (MPI_File fh, MPI_Offset *size))
TERN_MPI_API(int, File_get_group, (MPI_File fh, MPI_Group *group))
TERN_MPI_API(int, File_get_amode, (MPI_File fh, int *amode))
/* Hints are kept as given; cb_nodes and cb_buffer_size shape collective I/O. */
TERN_MPI_API(int, File_set_info, (MPI_File fh, MPI_Info info))
TERN_MPI_API(int, File_get_info, (MPI_File fh, MPI_Info *info_used))
/* datarep: "native" (or "internal", the same), "external32", or one registered with MPI_Register_datarep;
 * others are MPI_ERR_UNSUPPORTED_DATAREP. */
TERN_MPI_API(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                  const char *datarep, MPI_Info info))
TERN_MPI_API(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                                  char *datarep))
TERN_MPI_API(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                 MPI_Status *status))
TERN_MPI_API(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                  MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
/* Collective: two-phase I/O, aggregators gather the pieces of their file domain and write or read it whole. */
TERN_MPI_API(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                     MPI_Status *status))
TERN_MPI_API(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                      MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                   MPI_Status *status))
/* Non-blocking forms complete before they return (the request is done at once). */
TERN_MPI_API(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                  MPI_Request *request))
TERN_MPI_API(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                   MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                MPI_Request *request))
/* Split and non-blocking collectives: the begin call (or the i form) does the whole collective access. */
TERN_MPI_API(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
TERN_MPI_API(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
TERN_MPI_API(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
TERN_MPI_API(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
TERN_MPI_API(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count,
                                           MPI_Datatype datatype))
TERN_MPI_API(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
TERN_MPI_API(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                            MPI_Datatype datatype))
TERN_MPI_API(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
TERN_MPI_API(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                    MPI_Request *request))
TERN_MPI_API(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                      MPI_Request *request))
TERN_MPI_API(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                       MPI_Datatype datatype, MPI_Request *request))
TERN_MPI_API(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
TERN_MPI_API(int, File_get_position, (MPI_File fh, MPI_Offset *offset))
TERN_MPI_API(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
TERN_MPI_API(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
TERN_MPI_API(int, File_sync, (MPI_File fh))
/* Atomic mode: each access holds an fcntl lock on the byte range it spans while it runs. */
TERN_MPI_API(int, File_set_atomicity, (MPI_File fh, int flag))
TERN_MPI_API(int, File_get_atomicity, (MPI_File fh, int *flag))
/* The shared file pointer lives in a small file beside the data file (".NAME.tern-shfp.*", removed at close),
 * updated under an fcntl lock: the directory must be writable and the file system must honour the lock. */
TERN_MPI_API(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                      MPI_Status *status))
TERN_MPI_API(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                      MPI_Request *request))
TERN_MPI_API(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                       MPI_Request *request))
/* Collective, in rank order from the shared pointer. */
TERN_MPI_API(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
TERN_MPI_API(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                       MPI_Status *status))
TERN_MPI_API(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
TERN_MPI_API(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
TERN_MPI_API(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
TERN_MPI_API(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
TERN_MPI_API(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
TERN_MPI_API(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
TERN_MPI_API(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
TERN_MPI_API(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
TERN_MPI_API(int, File_call_errhandler, (MPI_File fh, int errorcode))
TERN_MPI_API(MPI_Fint, File_c2f, (MPI_File file))
TERN_MPI_API(MPI_File, File_f2c, (MPI_Fint file))

/* --- One-sided communication: windows and RMA (declared with TERN_MPI_API, inside this extern "C"). */
#include "mpi_onesided.h"
/* --- Intercommunicators (declared with TERN_MPI_API, inside this extern "C"). */
#include "mpi_intercomm.h"
/* User error handlers, error classes and codes; MPI_Comm_idup, MPI_Comm_create_group. */
#include "mpi_errhandlers.h"
/* MPI 4 sessions over the World model. */
#include "mpi_sessions.h"
/* external32 packing, Fortran-kind type lookups, MPI_Count queries, status setters. */
#include "mpi_datatype_more.h"
/* MPI 4.0 large-count (_c) forms of the point-to-point, datatype and collective calls. */
#include "mpi_large_count.h"
/* MPI 4.0 partitioned point-to-point communication (MPI_Psend_init, MPI_Pready, MPI_Parrived, ...). */
#include "mpi_partitioned.h"
/* Status conversions between C and Fortran (MPI 4.0 section 19.3.5), generalized requests. */
#include "mpi_status_conversions.h"
#include "mpi_grequest.h"
/* User data representations for MPI-IO views (MPI_Register_datarep). */
#include "mpi_datarep.h"
/* Dynamic processes: MPI_Comm_get_parent, MPI_Comm_disconnect, and the calls Tern refuses (spawn, ports,
 * names). */
#include "mpi_dynamic.h"
/* The MPI tool information interface (MPI_T_*): control and performance variables, categories. */
#include "mpi_tool.h"

#undef TERN_MPI_API

#ifdef __cplusplus
}
#endif

#endif /* TERN_MPI_H */
