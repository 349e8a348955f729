/* MPI one-sided communication (MPI 3 RMA), included by mpi.h inside its extern "C" block with
 * TERN_MPI_API defined: include mpi.h, not this file. */
#ifndef TERN_MPI_ONESIDED_H
#define TERN_MPI_ONESIDED_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_onesided.h"
#endif

/* --- One-sided communication (MPI 3 RMA). Between processes of one host a window's memory from
 * MPI_Win_allocate/MPI_Win_allocate_shared is mapped by its peers: puts and gets are memcpy, accumulates
 * element-wise CPU atomics, and the target need not call MPI. Every other window (MPI_Win_create,
 * MPI_Win_create_dynamic, peers on other hosts) is served by the target's progress: its MPI calls, or its
 * progress thread (TERN_PROGRESS=thread|thread-blocking) when it computes outside MPI. Errors on windows go
 * to the window's handler, MPI_ERRORS_ARE_FATAL unless set otherwise. */
typedef int MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)
/* Assertions (MPI_Win_fence/post/start/lock). */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
/* Window attributes (MPI_Win_get_attr). */
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
TERN_MPI_API(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                               MPI_Win *win))
/* baseptr is a void **. */
TERN_MPI_API(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                 MPI_Win *win))
/* Every process of comm on one host; the parts are contiguous in rank order unless the info key
 * alloc_shared_noncontig is "true". */
TERN_MPI_API(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void *baseptr, MPI_Win *win))
TERN_MPI_API(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
TERN_MPI_API(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
TERN_MPI_API(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
TERN_MPI_API(int, Win_detach, (MPI_Win win, const void *base))
TERN_MPI_API(int, Win_free, (MPI_Win *win))
TERN_MPI_API(int, Win_get_group, (MPI_Win win, MPI_Group *group))
/* attribute_val is a void **: the value set, or for the predefined keys MPI_WIN_BASE the base and for the others a
 * pointer to the value (MPI_Aint for MPI_WIN_SIZE, int otherwise). */
TERN_MPI_API(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
/* Attribute caching on windows (the communicator calls' rules, mpi_attributes.h); MPI_Win_free deletes them. */
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                         void *attribute_val_out, int *flag);
int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag);
int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
TERN_MPI_API(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn,
                                      MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                                      void *extra_state))
TERN_MPI_API(int, Win_free_keyval, (int *win_keyval))
TERN_MPI_API(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
TERN_MPI_API(int, Win_delete_attr, (MPI_Win win, int win_keyval))
TERN_MPI_API(int, Win_set_name, (MPI_Win win, const char *win_name))
TERN_MPI_API(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
TERN_MPI_API(int, Win_set_info, (MPI_Win win, MPI_Info info))
TERN_MPI_API(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
TERN_MPI_API(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
TERN_MPI_API(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
TERN_MPI_API(int, Win_call_errhandler, (MPI_Win win, int errorcode))
TERN_MPI_API(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
TERN_MPI_API(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
TERN_MPI_API(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TERN_MPI_API(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                   void *result_addr, int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TERN_MPI_API(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
TERN_MPI_API(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr,
                                     MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
/* Request-based forms: the request completes once the origin buffers may be reused (Rget,
 * Rget_accumulate: once the data is there); only inside a passive-target epoch. */
TERN_MPI_API(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request *request))
TERN_MPI_API(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request *request))
TERN_MPI_API(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                int target_rank, MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
TERN_MPI_API(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                    void *result_addr, int result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
TERN_MPI_API(int, Win_fence, (int assert, MPI_Win win))
TERN_MPI_API(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
TERN_MPI_API(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
TERN_MPI_API(int, Win_complete, (MPI_Win win))
TERN_MPI_API(int, Win_wait, (MPI_Win win))
TERN_MPI_API(int, Win_test, (MPI_Win win, int *flag))
TERN_MPI_API(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
TERN_MPI_API(int, Win_unlock, (int rank, MPI_Win win))
TERN_MPI_API(int, Win_lock_all, (int assert, MPI_Win win))
TERN_MPI_API(int, Win_unlock_all, (MPI_Win win))
TERN_MPI_API(int, Win_flush, (int rank, MPI_Win win))
TERN_MPI_API(int, Win_flush_all, (MPI_Win win))
TERN_MPI_API(int, Win_flush_local, (int rank, MPI_Win win))
TERN_MPI_API(int, Win_flush_local_all, (MPI_Win win))
TERN_MPI_API(int, Win_sync, (MPI_Win win))
TERN_MPI_API(MPI_Fint, Win_c2f, (MPI_Win win))
TERN_MPI_API(MPI_Win, Win_f2c, (MPI_Fint win))

#endif /* TERN_MPI_ONESIDED_H */
