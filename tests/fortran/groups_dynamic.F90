! MPI 4.0's late additions from Fortran: the group set operations and rank
! ranges (RANGES(3, n), a negative stride), MPI_Info_create_env,
! MPI_Intercomm_create_from_groups over the world's halves,
! MPI_Comm_get_parent, MPI_Comm_disconnect, and the port calls Tern refuses
! (MPI_ERR_UNSUPPORTED_OPERATION under MPI_ERRORS_RETURN, the job going on).
#include "forms.h"
program fortran_groups_dynamic
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, ierror, n, r, i, nkeys, sum
  integer :: ranges(3, 1), all_ranks(4), translated(4), codes(3), maxprocs(2)
  character(len=8) :: args(2), commands(2), argvs(2, 2)
  INFO_T :: infos(2)
  logical :: flag
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=MPI_MAX_PORT_NAME) :: port
  GROUP_T :: world, reversed, evens, odds, joined, common, rest, low, high
  COMM_T :: parent, copy, newcomm, inter
  INFO_T :: env

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierror)
  call MPI_Comm_group(MPI_COMM_WORLD, world, ierror)

  ! ranks-1 down to 0, then evens and odds by ranges.
  ranges(:, 1) = [ranks - 1, 0, -1]
  call MPI_Group_range_incl(world, 1, ranges, reversed, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Group_range_incl')
  call MPI_Group_rank(reversed, r, ierror)
  call check(r == ranks - 1 - rank, 'MPI_Group_range_incl with a negative stride')
  ranges(:, 1) = [0, ranks - 1, 2]
  call MPI_Group_range_incl(world, 1, ranges, evens, ierror)
  call MPI_Group_range_excl(world, 1, ranges, odds, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Group_range_excl')
  call MPI_Group_size(evens, n, ierror)
  call check(n == (ranks + 1) / 2, 'MPI_Group_range_incl size')

  ! Union: odds first, then evens; intersection and difference in group1's order.
  call MPI_Group_union(odds, evens, joined, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Group_union')
  do i = 1, ranks
    all_ranks(i) = i - 1
  end do
  call MPI_Group_translate_ranks(joined, ranks, all_ranks, world, translated, ierror)
  do i = 1, ranks / 2
    call check(translated(i) == 2 * i - 1, 'MPI_Group_union puts group1 first')
  end do
  call check(translated(ranks / 2 + 1) == 0, 'MPI_Group_union then group2')
  call MPI_Group_intersection(reversed, evens, common, ierror)
  call MPI_Group_size(common, n, ierror)
  call check(ierror == MPI_SUCCESS .and. n == (ranks + 1) / 2, 'MPI_Group_intersection')
  call MPI_Group_translate_ranks(common, 1, all_ranks, world, translated, ierror)
  call check(translated(1) == 2 * ((ranks - 1) / 2), 'MPI_Group_intersection in group1''s order')
  call MPI_Group_difference(world, evens, rest, ierror)
  call MPI_Group_compare(rest, odds, r, ierror)
  call check(ierror == MPI_SUCCESS .and. r == MPI_IDENT, 'MPI_Group_difference')
  ranges(:, 1) = [0, 0, 0]
  call MPI_Group_range_incl(world, 1, ranges, rest, ierror)
  call check(ierror == MPI_ERR_ARG, 'MPI_Group_range_incl refuses stride 0')

  ! An intercommunicator of the two halves, from their groups alone.
  if (ranks >= 2) then
    ranges(:, 1) = [0, ranks / 2 - 1, 1]
    call MPI_Group_range_incl(world, 1, ranges, low, ierror)
    call MPI_Group_range_excl(world, 1, ranges, high, ierror)
    if (rank < ranks / 2) then
      call MPI_Intercomm_create_from_groups(low, 0, high, 0, 'fortran.halves', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                            inter, ierror)
    else
      call MPI_Intercomm_create_from_groups(high, 0, low, 0, 'fortran.halves', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                            inter, ierror)
    end if
    call check(ierror == MPI_SUCCESS, 'MPI_Intercomm_create_from_groups')
    call MPI_Comm_remote_size(inter, n, ierror)
    call check(n == merge(ranks - ranks / 2, ranks / 2, rank < ranks / 2), 'the intercommunicator''s remote size')
    call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, inter, ierror)
    r = 0
    do i = merge(ranks / 2, 0, rank < ranks / 2), merge(ranks - 1, ranks / 2 - 1, rank < ranks / 2)
      r = r + i
    end do
    call check(ierror == MPI_SUCCESS .and. sum == r, 'an allreduce over the intercommunicator')
    call MPI_Comm_free(inter, ierror)
    call MPI_Group_free(low, ierror)
    call MPI_Group_free(high, ierror)
  end if

  ! The environment's info object, the caller's to free.
  call MPI_Info_create_env(env, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Info_create_env')
  call MPI_Info_get_nkeys(env, nkeys, ierror)
  call MPI_Info_get(env, 'maxprocs', MPI_MAX_INFO_VAL, value, flag, ierror)
  read (value, *) n
  call check(nkeys > 0 .and. flag .and. n == ranks, 'MPI_Info_create_env''s maxprocs')
  call MPI_Info_free(env, ierror)

  ! Dynamic processes.
  call MPI_Comm_get_parent(parent, ierror)
  call check(ierror == MPI_SUCCESS .and. parent == MPI_COMM_NULL, 'MPI_Comm_get_parent')
  call MPI_Comm_dup(MPI_COMM_WORLD, copy, ierror)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, copy, ierror)
  call MPI_Comm_disconnect(copy, ierror)
  call check(ierror == MPI_SUCCESS .and. copy == MPI_COMM_NULL, 'MPI_Comm_disconnect')
  ! Spawning is refused after its arguments are checked; the job goes on.
  args = [character(len=8) :: '-x', ' ']
  codes = MPI_SUCCESS
  call MPI_Comm_spawn('worker', args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, newcomm, codes, ierror)
  call check(ierror == MPI_ERR_SPAWN .and. newcomm == MPI_COMM_NULL, 'MPI_Comm_spawn is refused')
  if (rank == 0) call check(all(codes == MPI_ERR_SPAWN), 'MPI_Comm_spawn''s error codes')
  call MPI_Comm_spawn('worker', MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, newcomm, MPI_ERRCODES_IGNORE, &
                      ierror)
  call check(ierror == MPI_ERR_SPAWN, 'MPI_Comm_spawn with MPI_ARGV_NULL and MPI_ERRCODES_IGNORE')
  call MPI_Comm_spawn('worker', MPI_ARGV_NULL, 1, MPI_INFO_NULL, ranks, MPI_COMM_WORLD, newcomm, codes, ierror)
  call check(ierror == MPI_ERR_ROOT, 'MPI_Comm_spawn checks its root')
  commands = [character(len=8) :: 'first', 'second']
  argvs = ' '
  argvs(1, 1) = '-a'
  maxprocs = [1, 2]
  infos = MPI_INFO_NULL
  codes = MPI_SUCCESS
  call MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, newcomm, codes, ierror)
  call check(ierror == MPI_ERR_SPAWN .and. newcomm == MPI_COMM_NULL, 'MPI_Comm_spawn_multiple is refused')
  if (rank == 0) call check(all(codes == MPI_ERR_SPAWN), 'MPI_Comm_spawn_multiple''s error codes')
  call MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, newcomm, &
                               MPI_ERRCODES_IGNORE, ierror)
  call check(ierror == MPI_ERR_SPAWN, 'MPI_Comm_spawn_multiple with MPI_ARGVS_NULL')

  call MPI_Open_port(MPI_INFO_NULL, port, ierror)
  call check(ierror == MPI_ERR_UNSUPPORTED_OPERATION, 'MPI_Open_port is refused')
  call MPI_Comm_connect('tern-port', MPI_INFO_NULL, 0, MPI_COMM_WORLD, newcomm, ierror)
  call check(ierror == MPI_ERR_UNSUPPORTED_OPERATION .and. newcomm == MPI_COMM_NULL, 'MPI_Comm_connect is refused')
  call MPI_Lookup_name('service', MPI_INFO_NULL, port, ierror)
  call check(ierror == MPI_ERR_UNSUPPORTED_OPERATION, 'MPI_Lookup_name is refused')

  call MPI_Group_free(world, ierror)
  call MPI_Group_free(reversed, ierror)
  call MPI_Group_free(evens, ierror)
  call MPI_Group_free(odds, ierror)
  call MPI_Group_free(joined, ierror)
  call MPI_Group_free(common, ierror)
  call report_pass('fortran_groups_dynamic', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_groups_dynamic
