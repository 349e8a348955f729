! Collectives from Fortran: bcast, reduce, allreduce (MPI_IN_PLACE, a user
! op, MPI_LOGICAL), gather/scatter and their v forms, allgather, alltoall,
! reduce_scatter_block, barrier, non-blocking and persistent collectives.
#include "forms.h"
module coll_user_op
  USE_MPI
  implicit none
contains
  ! inoutvec = invec + 2 * inoutvec, which no predefined op computes.
#if defined(TERN_FORM_F08)
  subroutine weighted_sum(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: in(:), inout(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, in, [len])
    call c_f_pointer(inoutvec, inout, [len])
    inout = in + 2 * inout
  end subroutine weighted_sum
#else
  subroutine weighted_sum(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    if (datatype < 0) return
    inoutvec = invec + 2 * inoutvec
  end subroutine weighted_sum
#endif
end module coll_user_op

program fortran_coll
  USE_MPI
  use coll_user_op
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, root, ierror, i, r, expected
  integer :: values(4), maxima(3)
  integer, allocatable :: gathered(:), scattered(:), counts(:), displs(:), mine(:), all_to_all(:), back(:)
  double precision :: partial, total
  logical :: every, mine_flag
  OP_T :: weighted
  REQUEST_T :: requests(2)
  integer, asynchronous :: contribution, summed, broadcast(4)
  double precision :: start, finish, tick

  call MPI_Init(ierror)
  start = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  root = ranks - 1

  values = 0
  if (rank == root) values = [4, 3, 2, 1]
  call MPI_Bcast(values, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierror)
  call check(all(values == [4, 3, 2, 1]), 'MPI_Bcast')

  partial = rank + 0.5d0
  total = -1
  call MPI_Reduce(partial, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierror)
  if (rank == 0) call check(abs(total - (ranks * (ranks - 1) / 2 + 0.5d0 * ranks)) < 1d-9, 'MPI_Reduce sum')

  maxima = [rank, -rank, 7]
  call MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierror)
  call check(all(maxima == [ranks - 1, 0, 7]), 'MPI_Allreduce MPI_IN_PLACE max')

  mine_flag = rank /= 1
  call MPI_Allreduce(mine_flag, every, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierror)
  call check(every .eqv. (ranks == 1), 'MPI_Allreduce MPI_LOGICAL land')

  call MPI_Op_create(weighted_sum, .false., weighted, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Op_create')
  r = 1
  call MPI_Allreduce(r, i, 1, MPI_INTEGER, weighted, MPI_COMM_WORLD, ierror)
  ! Non-commutative: ((1 op 1) op 1) ... in rank order, x_{k+1} = 1 + 2 x_k.
  expected = 1
  do r = 2, ranks
    expected = 1 + 2 * expected
  end do
  call check(i == expected, 'MPI_Allreduce with a Fortran user op')
  call MPI_Op_free(weighted, ierror)
  call check(weighted == MPI_OP_NULL, 'MPI_Op_free')

  allocate (gathered(2 * ranks), scattered(2 * ranks), mine(2))
  mine = [rank, 10 * rank]
  gathered = -1
  call MPI_Gather(mine, 2, MPI_INTEGER, gathered, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierror)
  if (rank == 0) call check(all(gathered == [([r, 10 * r], r = 0, ranks - 1)]), 'MPI_Gather')

  scattered = [(100 + i, i = 1, 2 * ranks)]
  mine = -1
  call MPI_Scatter(scattered, 2, MPI_INTEGER, mine, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierror)
  call check(all(mine == [101 + 2 * rank, 102 + 2 * rank]), 'MPI_Scatter')

  call MPI_Allgather(mine, 2, MPI_INTEGER, gathered, 2, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(all(gathered == [(100 + i, i = 1, 2 * ranks)]), 'MPI_Allgather')

  ! Rank r holds r + 1 values r; the v forms place them one after another.
  allocate (counts(ranks), displs(ranks))
  counts = [(r + 1, r = 0, ranks - 1)]
  displs(1) = 0
  do r = 2, ranks
    displs(r) = displs(r - 1) + counts(r - 1)
  end do
  deallocate (gathered, mine)
  allocate (gathered(sum(counts)), mine(rank + 1))
  mine = rank
  gathered = -1
  call MPI_Gatherv(mine, rank + 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, ierror)
  if (rank == root) call check(all(gathered == [((r, i = 0, r), r = 0, ranks - 1)]), 'MPI_Gatherv')
  call MPI_Allgatherv(mine, rank + 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(all(gathered == [((r, i = 0, r), r = 0, ranks - 1)]), 'MPI_Allgatherv')
  mine = -1
  call MPI_Scatterv(gathered, counts, displs, MPI_INTEGER, mine, rank + 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierror)
  call check(all(mine == rank), 'MPI_Scatterv')

  ! Alltoall: rank r sends 100 * r + d to rank d.
  allocate (all_to_all(ranks), back(ranks))
  all_to_all = [(100 * rank + r, r = 0, ranks - 1)]
  call MPI_Alltoall(all_to_all, 1, MPI_INTEGER, back, 1, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(all(back == [(100 * r + rank, r = 0, ranks - 1)]), 'MPI_Alltoall')

  ! Reduce_scatter_block: block d of the sum over ranks of [100 * r + d].
  call MPI_Reduce_scatter_block(all_to_all, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(i == 100 * (ranks * (ranks - 1) / 2) + ranks * rank, 'MPI_Reduce_scatter_block')

  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Barrier')

  ! Non-blocking collectives, ended by MPI_Wait and MPI_Waitall.
  broadcast = 0
  if (rank == 0) broadcast = [9, 8, 7, 6]
  call MPI_Ibcast(broadcast, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Iallreduce(rank, summed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(2), ierror)
  call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierror)
  call check(all(broadcast == [9, 8, 7, 6]), 'MPI_Ibcast')
  call check(summed == ranks * (ranks - 1) / 2, 'MPI_Iallreduce')
  call MPI_Ibarrier(MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierror)
  call check(requests(1) == MPI_REQUEST_NULL, 'MPI_Ibarrier')

  ! A persistent allreduce, started twice.
  call MPI_Allreduce_init(contribution, summed, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, requests(1), &
                          ierror)
  do i = 1, 2
    contribution = 10 * i + rank
    call MPI_Start(requests(1), ierror)
    call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierror)
    call MPI_F_sync_reg(summed)
    call check(summed == 10 * i + ranks - 1, 'MPI_Allreduce_init')
  end do
  call MPI_Request_free(requests(1), ierror)
  finish = MPI_Wtime()
  call check(finish >= start, 'MPI_Wtime')
  tick = MPI_Wtick()
  call check(tick > 0, 'MPI_Wtick')

  deallocate (gathered, scattered, mine, counts, displs, all_to_all, back)
  call report_pass('fortran_coll', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_coll
