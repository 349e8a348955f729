! MPI 4 sessions from Fortran, without MPI_Init: the process sets and their
! names (asking for a name's length first), a group of one and a
! communicator made from it, and the session's own Fortran error handler.
#include "forms.h"
module sessions_handler
  USE_MPI
  implicit none
  integer, save :: calls = 0, last_code = 0
  SESSION_T, save :: last_session
contains
  subroutine on_session_error(session, error_code)
    SESSION_T :: session
    integer :: error_code
    calls = calls + 1
    last_code = error_code
    last_session = session
  end subroutine on_session_error
end module sessions_handler

program fortran_sessions
  USE_MPI
  use fortran_check
  use sessions_handler
  implicit none
  INCLUDE_MPIF
  integer :: ierror, count, n, length, rank, ranks, group_size, total
  logical :: flag, world_found, self_found
  character(len=MPI_MAX_PSET_NAME_LEN) :: name
  character(len=4) :: short
  character(len=MPI_MAX_INFO_VAL) :: value
  SESSION_T :: session
  INFO_T :: hints, info
  GROUP_T :: group
  COMM_T :: world
  ERRHANDLER_T :: handler, got_handler

  call MPI_Info_create(hints, ierror)
  call MPI_Info_set(hints, 'thread_level', 'MPI_THREAD_SINGLE', ierror)
  call MPI_Session_init(hints, MPI_ERRORS_RETURN, session, ierror)
  call check(ierror == MPI_SUCCESS .and. session /= MPI_SESSION_NULL, 'MPI_Session_init')
  call MPI_Info_free(hints, ierror)
  call MPI_Session_get_info(session, info, ierror)
  call MPI_Info_get(info, 'thread_level', MPI_MAX_INFO_VAL, value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag .and. value == 'MPI_THREAD_SINGLE', 'MPI_Session_get_info')
  call MPI_Info_free(info, ierror)

  ! --- The process sets: a length asked for, then the name.
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, count, ierror)
  call check(ierror == MPI_SUCCESS .and. count >= 2, 'MPI_Session_get_num_psets')
  world_found = .false.
  self_found = .false.
  do n = 0, count - 1
    length = 0
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, length, name, ierror)
    call check(ierror == MPI_SUCCESS .and. length > 0 .and. length < MPI_MAX_PSET_NAME_LEN, &
               'MPI_Session_get_nth_pset gives the length')
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, length, name, ierror)
    call check(ierror == MPI_SUCCESS .and. len_trim(name) == length, 'MPI_Session_get_nth_pset gives the name')
    world_found = world_found .or. name == 'mpi://WORLD'
    self_found = self_found .or. name == 'mpi://SELF'
  end do
  call check(world_found .and. self_found, 'mpi://WORLD and mpi://SELF are process sets')
  length = MPI_MAX_PSET_NAME_LEN
  call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, length, short, ierror)
  call check(ierror == MPI_SUCCESS .and. short == 'mpi:', 'a name cut to LEN(pset_name)')
  length = 3
  call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, length, name, ierror)
  call check(ierror == MPI_SUCCESS .and. name == 'mpi', 'a name cut to pset_len')

  ! --- A communicator of mpi://WORLD, its size the set's mpi_size.
  call MPI_Session_get_pset_info(session, 'mpi://WORLD', info, ierror)
  call MPI_Info_get(info, 'mpi_size', MPI_MAX_INFO_VAL, value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag, 'MPI_Session_get_pset_info gives mpi_size')
  read (value, *) ranks
  call MPI_Info_free(info, ierror)
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group, ierror)
  call MPI_Group_size(group, group_size, ierror)
  call check(ierror == MPI_SUCCESS .and. group_size == ranks, 'MPI_Group_from_session_pset')
  call MPI_Comm_create_from_group(group, 'tern.fortran.sessions', MPI_INFO_NULL, MPI_ERRORS_RETURN, world, &
                                  ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Comm_create_from_group')
  call MPI_Group_free(group, ierror)
  call MPI_Comm_rank(world, rank, ierror)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, world, ierror)
  call check(ierror == MPI_SUCCESS .and. total == ranks * (ranks - 1) / 2, 'MPI_Allreduce on the new communicator')
  call MPI_Send(rank, 1, MPI_INTEGER, ranks + 1, 0, world, ierror)
  call check(ierror /= MPI_SUCCESS, 'the communicator returns errors, as its handler says')
  call MPI_Group_from_session_pset(session, 'mpi://SELF', group, ierror)
  call MPI_Group_size(group, group_size, ierror)
  call check(ierror == MPI_SUCCESS .and. group_size == 1, 'mpi://SELF has one process')
  call MPI_Group_free(group, ierror)

  ! --- The session's own handler: called by MPI_Session_call_errhandler and by an error.
  call MPI_Session_create_errhandler(on_session_error, handler, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Session_create_errhandler')
  call MPI_Session_set_errhandler(session, handler, ierror)
  call MPI_Session_get_errhandler(session, got_handler, ierror)
  call check(ierror == MPI_SUCCESS .and. got_handler == handler, 'MPI_Session_get_errhandler')
  call MPI_Errhandler_free(got_handler, ierror)
  call MPI_Errhandler_free(handler, ierror)
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER, ierror)
  call check(ierror == MPI_SUCCESS .and. calls == 1 .and. last_code == MPI_ERR_OTHER .and. last_session == session, &
             'MPI_Session_call_errhandler runs the Fortran handler')
  call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, count, length, name, ierror)
  call check(ierror == MPI_ERR_ARG .and. calls == 2 .and. last_code == MPI_ERR_ARG, &
             'a failing session call runs the Fortran handler')

  call MPI_Barrier(world, ierror)
  call MPI_Comm_free(world, ierror)
  call MPI_Session_finalize(session, ierror)
  call check(ierror == MPI_SUCCESS .and. session == MPI_SESSION_NULL, 'MPI_Session_finalize')
  if (rank == 0) write (*, '(a, a, a, i0, a)') 'fortran_sessions_', FORM_NAME, ': PASS on ', ranks, ' ranks'
end program fortran_sessions
