! Keyvals made in Fortran with Fortran callbacks: a copy callback that
! doubles the value on MPI_Comm_dup, delete callbacks that count their calls
! (a replaced value, MPI_Comm_delete_attr, MPI_Comm_free, MPI_Type_free,
! MPI_Win_free, after the keyval was freed too), and the predefined
! MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_TYPE_DUP_FN and MPI_WIN_NULL_COPY_FN;
! in mpif.h and `use mpi` programs also MPI-1's MPI_KEYVAL_CREATE, MPI_ATTR_PUT,
! MPI_ATTR_GET, MPI_ATTR_DELETE and MPI_KEYVAL_FREE with MPI_DUP_FN and
! MPI_NULL_COPY_FN.
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

#if !defined(TERN_FORM_F08)
  ! MPI-1's callbacks (MPI_KEYVAL_CREATE): default INTEGER values and extra_state.
  subroutine triple_on_copy(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierror
    logical :: flag
    copies = copies + 1
    seen_extra = extra_state
    seen_keyval = keyval
    attribute_val_out = 3 * attribute_val_in
    flag = .true.
    ierror = 0
    if (oldcomm == 0) ierror = 1
  end subroutine triple_on_copy

  subroutine legacy_deleted(comm, keyval, attribute_val, extra_state, ierror)
    integer :: comm, keyval, attribute_val, extra_state, ierror
    deletions = deletions + 1
    last_deleted = attribute_val
    seen_extra = extra_state
    seen_keyval = keyval
    ierror = 0
    if (comm == 0) ierror = 1
  end subroutine legacy_deleted
#endif

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
#if !defined(TERN_FORM_F08)
  integer :: legacy_value
#endif
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

#if !defined(TERN_FORM_F08)
  ! --- MPI-1's forms (mpif.h and `use mpi`): INTEGER values through
  ! MPI_ATTR_PUT/GET, callbacks with INTEGER arguments, MPI_DUP_FN.
  copies = 0
  deletions = 0
  call MPI_Keyval_create(triple_on_copy, legacy_deleted, keyval, 13, ierror)
  call check(ierror == MPI_SUCCESS .and. keyval /= MPI_KEYVAL_INVALID, 'MPI_Keyval_create')
  call MPI_Comm_dup(MPI_COMM_WORLD, base, ierror)
  call MPI_Attr_put(base, keyval, -7, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Attr_put')
  call MPI_Attr_get(base, keyval, legacy_value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag .and. legacy_value == -7, 'MPI_Attr_get of a negative INTEGER')
  call MPI_Comm_dup(base, copy, ierror)
  call check(copies == 1 .and. seen_extra == 13 .and. seen_keyval == keyval, 'the MPI-1 copy callback runs')
  call MPI_Attr_get(copy, keyval, legacy_value, flag, ierror)
  call check(flag .and. legacy_value == -21, 'the copy has the value the callback gave')
  call MPI_Attr_delete(copy, keyval, ierror)
  call check(ierror == MPI_SUCCESS .and. deletions == 1 .and. last_deleted == -21 .and. seen_extra == 13, &
             'MPI_Attr_delete runs the MPI-1 delete callback')
  call MPI_Attr_get(copy, keyval, legacy_value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. .not. flag, 'a deleted attribute is gone')
  call MPI_Comm_free(copy, ierror)
  call MPI_Keyval_free(keyval, ierror)
  call check(ierror == MPI_SUCCESS .and. keyval == MPI_KEYVAL_INVALID, 'MPI_Keyval_free')
  call MPI_Comm_free(base, ierror)
  call check(deletions == 2 .and. last_deleted == -7, 'a freed MPI-1 keyval''s last attribute is deleted')
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, dup_keyval, 0, ierror)
  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, null_keyval, 0, ierror)
  call MPI_Comm_dup(MPI_COMM_WORLD, base, ierror)
  call MPI_Attr_put(base, dup_keyval, 123456789, ierror)
  call MPI_Attr_put(base, null_keyval, 5, ierror)
  call MPI_Comm_dup(base, copy, ierror)
  call MPI_Attr_get(copy, dup_keyval, legacy_value, flag, ierror)
  call check(flag .and. legacy_value == 123456789, 'MPI_DUP_FN copies the value')
  call MPI_Attr_get(copy, null_keyval, legacy_value, flag, ierror)
  call check(.not. flag, 'MPI_NULL_COPY_FN gives the copy none')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, legacy_value, flag, ierror)
  call check(flag .and. legacy_value >= 32767, 'MPI_Attr_get of MPI_TAG_UB')
  call MPI_Comm_free(copy, ierror)
  call MPI_Comm_free(base, ierror)
  call MPI_Keyval_free(dup_keyval, ierror)
  call MPI_Keyval_free(null_keyval, ierror)
#endif

  call report_pass('fortran_keyvals', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_keyvals
