! Intercommunicators from Fortran: MPI_COMM_WORLD's lower and upper halves
! joined by MPI_Intercomm_create, their sizes and remote group, point-to-point
! across, a broadcast from one side (MPI_ROOT, MPI_PROC_NULL) and an
! allreduce, and MPI_Intercomm_merge back into one intracommunicator; the
! halves again by MPI_Comm_create_group, and MPI_Comm_idup.
#include "forms.h"
program fortran_intercomm
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, half, ierror, local_rank, local_size, remote_size, remote_leader, size, root, got, i
  integer :: leader(1)
  logical :: flag, upper
  COMM_T :: local, inter, merged, by_group, copy
  GROUP_T :: remote, world_group, half_group
  REQUEST_T :: request
  STATUS_T :: status

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  half = ranks / 2
  upper = rank >= half
  call MPI_Comm_split(MPI_COMM_WORLD, merge(1, 0, upper), rank, local, ierror)
  call MPI_Comm_rank(local, local_rank, ierror)
  call MPI_Comm_size(local, local_size, ierror)
  ! The other half's leader, by its rank in MPI_COMM_WORLD.
  remote_leader = merge(0, half, upper)
  call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 17, inter, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Intercomm_create')

  call MPI_Comm_test_inter(inter, flag, ierror)
  call check(flag, 'MPI_Comm_test_inter of an intercommunicator')
  call MPI_Comm_size(inter, size, ierror)
  call check(size == local_size, 'MPI_Comm_size of an intercommunicator is the local group''s')
  call MPI_Comm_remote_size(inter, remote_size, ierror)
  call check(remote_size == ranks - local_size .and. remote_size == merge(half, ranks - half, upper), &
             'MPI_Comm_remote_size')
  call MPI_Comm_remote_group(inter, remote, ierror)
  call MPI_Group_size(remote, size, ierror)
  call check(size == remote_size, 'MPI_Comm_remote_group size')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierror)
  call MPI_Group_translate_ranks(remote, 1, [0], world_group, leader, ierror)
  call check(leader(1) == remote_leader, 'MPI_Comm_remote_group ranks')
  call MPI_Group_free(remote, ierror)
  call MPI_Group_free(world_group, ierror)

  ! Point-to-point across: ranks address the other group's ranks.
  if (local_rank < remote_size) then
    got = -1
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, local_rank, 5, got, 1, MPI_INTEGER, local_rank, 5, inter, status, &
                      ierror)
    call check(got == remote_leader + local_rank, 'MPI_Sendrecv across an intercommunicator')
    call check(FIELD(status, MPI_SOURCE) == local_rank .and. FIELD(status, MPI_TAG) == 5, &
               'status of a receive across an intercommunicator')
  end if

  ! The lower half's first rank broadcasts to the upper half.
  if (upper) then
    root = 0
    got = -1
  else
    root = merge(MPI_ROOT, MPI_PROC_NULL, local_rank == 0)
    got = 4242
  end if
  call MPI_Bcast(got, 1, MPI_INTEGER, root, inter, ierror)
  call check(got == 4242, 'MPI_Bcast across an intercommunicator')
  ! Each side gets the sum over the other side.
  call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, inter, ierror)
  call check(got == sum([(i, i = remote_leader, remote_leader + remote_size - 1)]), &
             'MPI_Allreduce across an intercommunicator')

  ! Merged with the upper half high: the ranks of MPI_COMM_WORLD again.
  call MPI_Intercomm_merge(inter, upper, merged, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Intercomm_merge')
  call MPI_Comm_test_inter(merged, flag, ierror)
  call check(.not. flag, 'MPI_Intercomm_merge makes an intracommunicator')
  call MPI_Comm_size(merged, size, ierror)
  call MPI_Comm_rank(merged, i, ierror)
  call check(size == ranks .and. i == rank, 'MPI_Intercomm_merge order')
  call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, merged, ierror)
  call check(got == ranks * (ranks - 1) / 2, 'MPI_Allreduce on the merged communicator')

  ! The same halves, made by their members alone; and a non-blocking dup.
  call MPI_Comm_group(local, half_group, ierror)
  call MPI_Comm_create_group(merged, half_group, 3, by_group, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Comm_create_group')
  call MPI_Comm_compare(by_group, local, i, ierror)
  call check(i == MPI_CONGRUENT, 'MPI_Comm_create_group makes the group''s communicator')
  call MPI_Group_free(half_group, ierror)
  call MPI_Comm_idup(by_group, copy, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_Allreduce(1, got, 1, MPI_INTEGER, MPI_SUM, copy, ierror)
  call check(got == local_size, 'MPI_Comm_idup')
  call MPI_Comm_free(copy, ierror)
  call MPI_Comm_idup_with_info(by_group, MPI_INFO_NULL, copy, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_Comm_compare(copy, by_group, i, ierror)
  call check(i == MPI_CONGRUENT, 'MPI_Comm_idup_with_info')
  call MPI_Comm_free(copy, ierror)
  call MPI_Comm_free(by_group, ierror)

  call MPI_Comm_free(merged, ierror)
  call MPI_Comm_free(inter, ierror)
  call MPI_Comm_free(local, ierror)
  call report_pass('fortran_intercomm', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_intercomm
