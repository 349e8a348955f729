! One-sided communication from Fortran, passive target: fetch-and-op and
! compare-and-swap under MPI_Win_lock_all with flushes, the request-based
! forms, read-modify-write under exclusive locks, a shared-memory window
! read through MPI_Win_shared_query, and a dynamic window.
#include "forms.h"
! MPI_Win_shared_query's base: mpif.h and `use mpi` take the integer form.
#if defined(TERN_FORM_F08)
#define QUERY_T type(c_ptr)
#define QUERY_PTR(address) address
#else
#define QUERY_T integer(kind=MPI_ADDRESS_KIND)
#define QUERY_PTR(address) transfer(address, c_null_ptr)
#endif
program fortran_rma_passive
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_f_pointer
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer, parameter :: n = 8
  integer :: rank, ranks, left, right, ierror, old, total, value, node_rank, node_size, node_left, disp_unit
  integer, target :: attached(4)
  integer, pointer :: cells(:), shared_mine(:), shared_theirs(:)
  integer(kind=MPI_ADDRESS_KIND) :: address, size
  integer(kind=MPI_ADDRESS_KIND), allocatable :: addresses(:)
  logical :: flag
  BASEPTR_T :: baseptr
  QUERY_T :: query_base
  WIN_T :: win
  COMM_T :: node
  REQUEST_T :: request
  INFO_T :: info

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  left = mod(rank + ranks - 1, ranks)
  right = mod(rank + 1, ranks)

  ! On rank 0: cell 1 a fetch-and-op counter, 2 a compare-and-swap target,
  ! 3 a counter under exclusive locks, 4 one for MPI_Raccumulate; on every
  ! rank cell 5 takes the left neighbour's MPI_Rput.
  call MPI_Win_allocate(int(4 * n, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_allocate')
  call c_f_pointer(C_PTR_OF(baseptr), cells, [n])
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_lock of the own window')
  cells = 0
  cells(2) = -1
  call MPI_Win_unlock(rank, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_unlock of the own window')
  call MPI_Barrier(MPI_COMM_WORLD, ierror)

  call MPI_Win_lock_all(0, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_lock_all')
  call MPI_Fetch_and_op(1, old, MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, MPI_SUM, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Fetch_and_op')
  call MPI_Win_flush(0, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_flush')
  call MPI_Allreduce(old, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(total == ranks * (ranks - 1) / 2, 'MPI_Fetch_and_op MPI_SUM: each rank sees another count')
  call MPI_Fetch_and_op(0, value, MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, MPI_NO_OP, win, ierror)
  call MPI_Win_flush(0, win, ierror)
  call check(value == ranks, 'MPI_Fetch_and_op MPI_NO_OP')

  ! One compare-and-swap of -1 wins.
  call MPI_Compare_and_swap(rank, -1, old, MPI_INTEGER, 0, 1_MPI_ADDRESS_KIND, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Compare_and_swap')
  call MPI_Win_flush(0, win, ierror)
  call MPI_Allreduce(merge(1, 0, old == -1), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(total == 1, 'MPI_Compare_and_swap: one rank swaps')
  call check(old == -1 .or. (old >= 0 .and. old < ranks), 'MPI_Compare_and_swap: the others see the winner')
  call MPI_Allreduce(merge(rank, -1, old == -1), total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierror)
  call MPI_Get_accumulate(0, 1, MPI_INTEGER, value, 1, MPI_INTEGER, 0, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
                          MPI_NO_OP, win, ierror)
  call MPI_Win_flush_local(0, win, ierror)
  call check(ierror == MPI_SUCCESS .and. value == total, 'MPI_Get_accumulate MPI_NO_OP reads the winner')

  ! The request-based forms.
  call MPI_Raccumulate(1, 1, MPI_INTEGER, 0, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win, request, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Raccumulate')
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_Rput(rank, 1, MPI_INTEGER, right, 4_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, request, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Rput')
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_Win_flush_all(win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_flush_all')
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call MPI_Win_sync(win, ierror)
  call check(ierror == MPI_SUCCESS .and. cells(5) == left, 'MPI_Rput seen after MPI_Win_sync')
  value = -1
  call MPI_Rget(value, 1, MPI_INTEGER, left, 4_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call check(value == mod(left + ranks - 1, ranks), 'MPI_Rget')
  value = -1
  call MPI_Rget_accumulate(0, 1, MPI_INTEGER, value, 1, MPI_INTEGER, 0, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
                           MPI_NO_OP, win, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call check(value == ranks, 'MPI_Raccumulate MPI_SUM, read with MPI_Rget_accumulate')
  call MPI_Win_flush_local_all(win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_flush_local_all')
  call MPI_Win_unlock_all(win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_unlock_all')

  ! Read, add one and write back under an exclusive lock.
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierror)
  call MPI_Get(value, 1, MPI_INTEGER, 0, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierror)
  call MPI_Win_flush(0, win, ierror)
  call MPI_Put(value + 1, 1, MPI_INTEGER, 0, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierror)
  call MPI_Win_unlock(0, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_unlock')
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierror)
  call MPI_Get(value, 1, MPI_INTEGER, 0, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierror)
  call MPI_Win_unlock(0, win, ierror)
  call check(value == ranks, 'read-modify-write under MPI_LOCK_EXCLUSIVE')
  call MPI_Win_free(win, ierror)

  ! A shared-memory window: each rank reads its left neighbour's part directly.
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Comm_split_type')
  call MPI_Comm_rank(node, node_rank, ierror)
  call MPI_Comm_size(node, node_size, ierror)
  node_left = mod(node_rank + node_size - 1, node_size)
  call MPI_Win_allocate_shared(4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, node, baseptr, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_allocate_shared')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, address, flag, ierror)
  call check(flag .and. address == MPI_WIN_FLAVOR_SHARED, 'MPI_Win_get_attr of a shared window''s flavor')
  call c_f_pointer(C_PTR_OF(baseptr), shared_mine, [1])
  call MPI_Win_lock_all(MPI_MODE_NOCHECK, win, ierror)
  shared_mine(1) = 7 * node_rank
  call MPI_Win_sync(win, ierror)
  call MPI_Barrier(node, ierror)
  call MPI_Win_sync(win, ierror)
  call MPI_Win_shared_query(win, node_left, size, disp_unit, query_base, ierror)
  call check(ierror == MPI_SUCCESS .and. size == 4 .and. disp_unit == 4, 'MPI_Win_shared_query')
  call c_f_pointer(QUERY_PTR(query_base), shared_theirs, [1])
  call check(shared_theirs(1) == 7 * node_left, 'a shared window''s neighbour part')
  call MPI_Win_unlock_all(win, ierror)
  call MPI_Win_free(win, ierror)
  call MPI_Comm_free(node, ierror)

  ! A dynamic window: each rank puts into the array its right neighbour attached.
  call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_create_dynamic')
  attached = -1
  call MPI_Win_attach(win, attached, 16_MPI_ADDRESS_KIND, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_attach')
  call MPI_Get_address(attached, address, ierror)
  allocate (addresses(ranks))
  call MPI_Allgather(address, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD, ierror)
  call MPI_Win_fence(0, win, ierror)
  call MPI_Put([rank, rank, rank, rank], 4, MPI_INTEGER, right, addresses(right + 1), 4, MPI_INTEGER, win, ierror)
  call MPI_Win_fence(0, win, ierror)
  call check(all(attached == left), 'MPI_Put into an attached array')
  call MPI_Win_detach(win, attached, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_detach')
  call MPI_Win_set_info(win, MPI_INFO_NULL, ierror)
  call MPI_Win_get_info(win, info, ierror)
  call check(ierror == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'MPI_Win_get_info')
  call MPI_Info_free(info, ierror)
  call MPI_Win_free(win, ierror)
  deallocate (addresses)

  call report_pass('fortran_rma_passive', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_rma_passive
