! Keyvals made in Fortran with Fortran callbacks: a copy callback that
! doubles the value on MPI_Comm_dup, delete callbacks that count their calls
! (a replaced value, MPI_Comm_delete_attr, MPI_Comm_free, MPI_Type_free,
! MPI_Win_free, after the keyval was freed too), and the predefined
! MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_TYPE_DUP_FN and MPI_WIN_NULL_COPY_FN.
#include "forms.h"
module keyval_callbacks
  USE_MPI
  implicit none
  integer, save :: copies = 0, deletions = 0, last_deleted = -1, seen_extra = -1, seen_keyval = -1
contains
  subroutine double_on_copy(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    INCLUDE_MPIF
    COMM_T :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    seen_extra = int(extra_state)
    seen_keyval = comm_keyval
    attribute_val_out = 2 * attribute_val_in
    flag = oldcomm /= MPI_COMM_NULL
    ierror = MPI_SUCCESS
  end subroutine double_on_copy

  subroutine note_deletion(keyval, attribute_val, extra_state, ierror)
    INCLUDE_MPIF
    integer, intent(in) :: keyval
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: attribute_val, extra_state
    integer, intent(out) :: ierror
    deletions = deletions + 1
    last_deleted = int(attribute_val)
    seen_extra = int(extra_state)
    seen_keyval = keyval
    ierror = MPI_SUCCESS
  end subroutine note_deletion

  subroutine comm_deleted(comm, comm_keyval, attribute_val, extra_state, ierror)
    INCLUDE_MPIF
    COMM_T :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    call note_deletion(comm_keyval, attribute_val, extra_state, ierror)
    if (comm == MPI_COMM_NULL) ierror = MPI_ERR_COMM
  end subroutine comm_deleted

  subroutine type_deleted(datatype, type_keyval, attribute_val, extra_state, ierror)
    INCLUDE_MPIF
    DATATYPE_T :: datatype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    call note_deletion(type_keyval, attribute_val, extra_state, ierror)
    if (datatype == MPI_DATATYPE_NULL) ierror = MPI_ERR_TYPE
  end subroutine type_deleted

  subroutine win_deleted(win, win_keyval, attribute_val, extra_state, ierror)
    INCLUDE_MPIF
    WIN_T :: win
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    call note_deletion(win_keyval, attribute_val, extra_state, ierror)
    if (win == MPI_WIN_NULL) ierror = MPI_ERR_WIN
  end subroutine win_deleted
end module keyval_callbacks

program fortran_keyvals
  USE_MPI
  use fortran_check
  use keyval_callbacks
  implicit none
  INCLUDE_MPIF
  integer :: ierror, keyval, kept, dup_keyval, null_keyval, window_memory(2)
  integer(kind=MPI_ADDRESS_KIND) :: value
  logical :: flag
  COMM_T :: base, copy
  DATATYPE_T :: pair, pair_copy
  WIN_T :: win

  call MPI_Init(ierror)

  ! --- A copy callback that doubles the value, a delete callback that counts.
  call MPI_Comm_create_keyval(double_on_copy, comm_deleted, keyval, 7_MPI_ADDRESS_KIND, ierror)
  call check(ierror == MPI_SUCCESS .and. keyval /= MPI_KEYVAL_INVALID, 'MPI_Comm_create_keyval')
  call MPI_Comm_dup(MPI_COMM_WORLD, base, ierror)
  call MPI_Comm_set_attr(base, keyval, 21_MPI_ADDRESS_KIND, ierror)
  call MPI_Comm_dup(base, copy, ierror)
  call check(ierror == MPI_SUCCESS .and. copies == 1 .and. seen_extra == 7 .and. seen_keyval == keyval, &
             'MPI_Comm_dup runs the Fortran copy callback')
  call MPI_Comm_get_attr(copy, keyval, value, flag, ierror)
  call check(flag .and. value == 42, 'the copy has the value the callback gave')
  call MPI_Comm_get_attr(base, keyval, value, flag, ierror)
  call check(flag .and. value == 21, 'the original keeps its value')
  call MPI_Comm_set_attr(base, keyval, 5_MPI_ADDRESS_KIND, ierror)
  call check(deletions == 1 .and. last_deleted == 21 .and. seen_extra == 7, 'a replaced value is deleted')
  call MPI_Comm_delete_attr(copy, keyval, ierror)
  call check(ierror == MPI_SUCCESS .and. deletions == 2 .and. last_deleted == 42, 'MPI_Comm_delete_attr')
  call MPI_Comm_free(copy, ierror)
  call check(deletions == 2, 'no attribute left to delete on the copy')
  kept = keyval
  call MPI_Comm_free_keyval(keyval, ierror)
  call check(ierror == MPI_SUCCESS .and. keyval == MPI_KEYVAL_INVALID, 'MPI_Comm_free_keyval')
  call MPI_Comm_free(base, ierror)
  call check(deletions == 3 .and. last_deleted == 5 .and. seen_keyval == kept, &
             'a freed keyval''s last attribute is deleted by its callback')

  ! --- The predefined callbacks: MPI_COMM_DUP_FN copies, MPI_COMM_NULL_COPY_FN does not.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dup_keyval, 0_MPI_ADDRESS_KIND, ierror)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, null_keyval, 0_MPI_ADDRESS_KIND, &
                              ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Comm_create_keyval with the predefined callbacks')
  call MPI_Comm_dup(MPI_COMM_WORLD, base, ierror)
  call MPI_Comm_set_attr(base, dup_keyval, 1234567890123_MPI_ADDRESS_KIND, ierror)
  call MPI_Comm_set_attr(base, null_keyval, 99_MPI_ADDRESS_KIND, ierror)
  call MPI_Comm_dup(base, copy, ierror)
  call MPI_Comm_get_attr(copy, dup_keyval, value, flag, ierror)
  call check(flag .and. value == 1234567890123_MPI_ADDRESS_KIND, 'MPI_COMM_DUP_FN copies the value')
  call MPI_Comm_get_attr(copy, null_keyval, value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. .not. flag, 'MPI_COMM_NULL_COPY_FN gives the copy none')
  call MPI_Comm_free(copy, ierror)
  call MPI_Comm_free(base, ierror)
  call MPI_Comm_free_keyval(dup_keyval, ierror)
  call MPI_Comm_free_keyval(null_keyval, ierror)
  call check(ierror == MPI_SUCCESS .and. deletions == 3, 'MPI_COMM_NULL_DELETE_FN')

  ! --- A datatype's: MPI_TYPE_DUP_FN and a counting delete callback.
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_deleted, keyval, 3_MPI_ADDRESS_KIND, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Type_create_keyval')
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierror)
  call MPI_Type_set_attr(pair, keyval, 11_MPI_ADDRESS_KIND, ierror)
  call MPI_Type_dup(pair, pair_copy, ierror)
  call MPI_Type_get_attr(pair_copy, keyval, value, flag, ierror)
  call check(flag .and. value == 11, 'MPI_TYPE_DUP_FN copies the value')
  call MPI_Type_free(pair_copy, ierror)
  call check(deletions == 4 .and. last_deleted == 11 .and. seen_extra == 3, 'MPI_Type_free deletes the copy''s')
  call MPI_Type_free_keyval(keyval, ierror)
  call MPI_Type_free(pair, ierror)
  call check(deletions == 5 .and. keyval == MPI_KEYVAL_INVALID, 'MPI_Type_free after MPI_Type_free_keyval')

  ! --- A window's: deleted by MPI_Win_free.
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_deleted, keyval, 4_MPI_ADDRESS_KIND, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_create_keyval')
  call MPI_Win_create(window_memory, int(8, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierror)
  call MPI_Win_set_attr(win, keyval, 9_MPI_ADDRESS_KIND, ierror)
  call MPI_Win_get_attr(win, keyval, value, flag, ierror)
  call check(flag .and. value == 9, 'MPI_Win_get_attr of a Fortran keyval')
  call MPI_Win_free(win, ierror)
  call check(deletions == 6 .and. last_deleted == 9 .and. seen_extra == 4, 'MPI_Win_free deletes the attribute')
  call MPI_Win_free_keyval(keyval, ierror)
  call check(ierror == MPI_SUCCESS .and. keyval == MPI_KEYVAL_INVALID, 'MPI_Win_free_keyval')

  call report_pass('fortran_keyvals', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_keyvals
