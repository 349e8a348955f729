! User error classes, codes and strings from Fortran, and Fortran error
! handlers on a communicator, a window and a file: raised by
! MPI_*_call_errhandler and by a failing call.
#include "forms.h"
module user_errors_handlers
  USE_MPI
  implicit none
  integer, save :: calls = 0, last_code = 0
  COMM_T, save :: last_comm
  WIN_T, save :: last_win
  FILE_T, save :: last_file
contains
  ! Each handler notes the object and the code it was called with.
  subroutine note(error_code)
    integer, intent(in) :: error_code
    calls = calls + 1
    last_code = error_code
  end subroutine note

  subroutine on_comm_error(comm, error_code)
    COMM_T :: comm
    integer :: error_code
    call note(error_code)
    last_comm = comm
  end subroutine on_comm_error

  subroutine on_win_error(win, error_code)
    WIN_T :: win
    integer :: error_code
    call note(error_code)
    last_win = win
  end subroutine on_win_error

  subroutine on_file_error(file, error_code)
    FILE_T :: file
    integer :: error_code
    call note(error_code)
    last_file = file
  end subroutine on_file_error
end module user_errors_handlers

program fortran_user_errors
  USE_MPI
  use fortran_check
  use user_errors_handlers
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, ierror, error_class, error_code, second_code, found_class, length
  integer :: window_memory(4)
  integer(kind=MPI_ADDRESS_KIND) :: last_used
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=64) :: path
  COMM_T :: dup
  WIN_T :: win
  FILE_T :: fh
  ERRHANDLER_T :: handler

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)

  ! --- A class of our own, two codes in it, a string for one.
  call MPI_Add_error_class(error_class, ierror)
  call check(ierror == MPI_SUCCESS .and. error_class > MPI_ERR_LASTCODE, 'MPI_Add_error_class')
  call MPI_Add_error_code(error_class, error_code, ierror)
  call MPI_Add_error_code(error_class, second_code, ierror)
  call check(error_code > error_class .and. second_code > error_code, 'MPI_Add_error_code')
  call MPI_Error_class(error_code, found_class, ierror)
  call check(found_class == error_class, 'MPI_Error_class of a user code')
  call MPI_Error_class(error_class, found_class, ierror)
  call check(found_class == error_class, 'a user class is its own class')
  call MPI_Add_error_string(error_code, 'a code added from Fortran', ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Add_error_string')
  call MPI_Error_string(error_code, text, length, ierror)
  call check(text == 'a code added from Fortran' .and. length == 25, 'MPI_Error_string of a user code')
  text = 'unchanged'
  call MPI_Error_string(second_code, text, length, ierror)
  call check(text == '' .and. length == 0, 'MPI_Error_string of a code without a string')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, last_used, flag, ierror)
  call check(flag .and. last_used == second_code, 'MPI_LASTUSEDCODE follows the added codes')

  ! --- A communicator's handler: called by MPI_Comm_call_errhandler and by an error.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierror)
  call MPI_Comm_create_errhandler(on_comm_error, handler, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Comm_create_errhandler')
  call MPI_Comm_set_errhandler(dup, handler, ierror)
  call MPI_Errhandler_free(handler, ierror)
  call check(handler == MPI_ERRHANDLER_NULL, 'MPI_Errhandler_free')
  call MPI_Comm_call_errhandler(dup, error_code, ierror)
  call check(ierror == MPI_SUCCESS .and. calls == 1 .and. last_code == error_code .and. last_comm == dup, &
             'MPI_Comm_call_errhandler runs the Fortran handler')
  call MPI_Send(rank, 1, MPI_INTEGER, ranks + 5, 0, dup, ierror)
  call MPI_Error_class(last_code, found_class, ierror)
  call check(calls == 2 .and. found_class == MPI_ERR_RANK .and. last_comm == dup, &
             'a failing call runs the Fortran handler')
  call MPI_Comm_get_errhandler(dup, handler, ierror)
  call MPI_Comm_call_errhandler(dup, second_code, ierror)
  call check(calls == 3 .and. last_code == second_code, 'the handler MPI_Comm_get_errhandler returns')
  call MPI_Errhandler_free(handler, ierror)
  call MPI_Comm_free(dup, ierror)

  ! --- A window's.
  call MPI_Win_create(window_memory, int(4 * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierror)
  call MPI_Win_create_errhandler(on_win_error, handler, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_create_errhandler')
  call MPI_Win_set_errhandler(win, handler, ierror)
  call MPI_Errhandler_free(handler, ierror)
  call MPI_Win_call_errhandler(win, error_code, ierror)
  call check(ierror == MPI_SUCCESS .and. calls == 4 .and. last_code == error_code .and. last_win == win, &
             'MPI_Win_call_errhandler runs the Fortran handler')
  call MPI_Win_free(win, ierror)

  ! --- A file's, on a file of this rank's own.
  write (path, '(a, a, a, i0, a, i0, a)') 'fortran_user_errors_', FORM_NAME, '_', ranks, '_', rank, '.dat'
  call MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_open')
  call MPI_File_create_errhandler(on_file_error, handler, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_create_errhandler')
  call MPI_File_set_errhandler(fh, handler, ierror)
  call MPI_Errhandler_free(handler, ierror)
  call MPI_File_call_errhandler(fh, second_code, ierror)
  call check(ierror == MPI_SUCCESS .and. calls == 5 .and. last_code == second_code .and. last_file == fh, &
             'MPI_File_call_errhandler runs the Fortran handler')
  call MPI_File_close(fh, ierror)

  call report_pass('fortran_user_errors', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_user_errors
