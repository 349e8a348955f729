! Generalized requests from Fortran: Fortran query, free and cancel
! procedures behind MPI_Grequest_start; MPI_Test before and MPI_Wait after
! MPI_Grequest_complete, the status query_fn fills reaching MPI_Wait's,
! cancel_fn told whether the request is complete, free_fn last, and a
! callback's error code returned by the wait.
#include "forms.h"
module grequest_callbacks
  USE_MPI
  implicit none
  INCLUDE_MPIF
  character(len=32), save :: log = ''
  integer, save :: query_error = MPI_SUCCESS
contains
  subroutine query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    STATUS_T :: status
    integer :: ierror
    log = trim(log) // 'q'
    FIELD(status, MPI_SOURCE) = int(extra_state)
    FIELD(status, MPI_TAG) = 42
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
    ierror = query_error
  end subroutine query

  subroutine release(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    log = trim(log) // 'f'
    ierror = MPI_SUCCESS
    if (extra_state < 0) ierror = MPI_ERR_OTHER
  end subroutine release

  subroutine cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    if (complete) then
      log = trim(log) // 'C'
    else
      log = trim(log) // 'c'
    end if
    ierror = MPI_SUCCESS
    if (extra_state < 0) ierror = MPI_ERR_OTHER
  end subroutine cancel
end module grequest_callbacks

program fortran_grequest
  USE_MPI
  use fortran_check
  use grequest_callbacks
  implicit none
  integer :: ierror, count
  logical :: flag
  integer(kind=MPI_ADDRESS_KIND) :: state
  REQUEST_T :: request
  STATUS_T :: status

  call MPI_Init(ierror)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierror)
  state = 7
  call MPI_Grequest_start(query, release, cancel, state, request, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Grequest_start')
  call MPI_Test(request, flag, status, ierror)
  call check(ierror == MPI_SUCCESS .and. .not. flag .and. log == '', 'MPI_Test before completion')
  call MPI_Cancel(request, ierror)
  call check(ierror == MPI_SUCCESS .and. log == 'c', 'MPI_Cancel before completion')
  call MPI_Grequest_complete(request, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Grequest_complete')
  call MPI_Wait(request, status, ierror)
  call MPI_Get_count(status, MPI_INTEGER, count, ierror)
  call check(log == 'cqf' .and. FIELD(status, MPI_SOURCE) == 7 .and. FIELD(status, MPI_TAG) == 42 .and. &
             count == 3 .and. request == MPI_REQUEST_NULL, 'MPI_Wait: query_fn''s status, then free_fn')

  ! Errors of the callbacks are the calls'.
  log = ''
  state = -1
  query_error = MPI_ERR_ARG
  call MPI_Grequest_start(query, release, cancel, state, request, ierror)
  call MPI_Grequest_complete(request, ierror)
  call MPI_Cancel(request, ierror)
  call check(ierror == MPI_ERR_OTHER .and. log == 'C', 'cancel_fn''s error')
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call check(ierror == MPI_ERR_ARG .and. log == 'Cqf', 'query_fn''s error')

  call report_pass('fortran_grequest', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_grequest
