! MPI_Register_datarep from Fortran: a representation whose Fortran
! callbacks store integers with an offset (extra_state); each rank writes
! its block through it, the raw file read with "native" holds the offset
! values, and reading through the representation gives the originals.
! MPI_CONVERSION_FN_NULL reads natively; a second registration of the name
! is MPI_ERR_DUP_DATAREP. In mpi_f08, the same again through
! MPI_Register_datarep_c, whose conversions take MPI_COUNT_KIND counts, and
! MPI_CONVERSION_FN_NULL_C.
#include "forms.h"
module datarep_callbacks
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  USE_MPI
  implicit none
  INCLUDE_MPIF
  integer, save :: conversions = 0
contains
#if defined(TERN_FORM_F08)
  subroutine write_offset(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: user(:), file(:)
    if (datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    call c_f_pointer(userbuf, user, [int(position) + count])
    call c_f_pointer(filebuf, file, [count])
    file(1:count) = user(position + 1:position + count) + int(extra_state)
    conversions = conversions + 1
    ierror = MPI_SUCCESS
  end subroutine write_offset

  subroutine read_offset(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: user(:), file(:)
    if (datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    call c_f_pointer(userbuf, user, [int(position) + count])
    call c_f_pointer(filebuf, file, [count])
    user(position + 1:position + count) = file(1:count) - int(extra_state)
    conversions = conversions + 1
    ierror = MPI_SUCCESS
  end subroutine read_offset

  ! MPI_Register_datarep_c's: the same with the count's kind MPI_COUNT_KIND.
  subroutine write_offset_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    call write_offset(userbuf, datatype, int(count), filebuf, position, extra_state, ierror)
  end subroutine write_offset_c

  subroutine read_offset_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    call read_offset(userbuf, datatype, int(count), filebuf, position, extra_state, ierror)
  end subroutine read_offset_c

  subroutine extent_of(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
#else
  subroutine write_offset(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    if (datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    filebuf(1:count) = userbuf(position + 1:position + count) + int(extra_state)
    conversions = conversions + 1
    ierror = MPI_SUCCESS
  end subroutine write_offset

  subroutine read_offset(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    if (datatype /= MPI_INTEGER) then
      ierror = MPI_ERR_TYPE
      return
    end if
    userbuf(position + 1:position + count) = filebuf(1:count) - int(extra_state)
    conversions = conversions + 1
    ierror = MPI_SUCCESS
  end subroutine read_offset

  subroutine extent_of(datatype, extent, extra_state, ierror)
    integer :: datatype
#endif
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror, size
    call MPI_Type_size(datatype, size, ierror)
    extent = size
    if (extra_state /= 1000) ierror = MPI_ERR_ARG
  end subroutine extent_of
end module datarep_callbacks

program fortran_datarep
  USE_MPI
  use fortran_check
  use datarep_callbacks
  implicit none
  integer :: rank, ranks, ierror
  integer(kind=MPI_ADDRESS_KIND) :: offset

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  offset = 1000
  call MPI_Register_datarep('fortran-offset', read_offset, write_offset, extent_of, offset, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Register_datarep')
  call MPI_Register_datarep('fortran-offset', read_offset, write_offset, extent_of, offset, ierror)
  call check(ierror == MPI_ERR_DUP_DATAREP, 'a name registered twice')
  call MPI_Register_datarep('fortran-plain', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_of, offset, &
                            ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Register_datarep with MPI_CONVERSION_FN_NULL')
  call round_trip('fortran-offset', 'fortran-plain', 'int')
#if defined(TERN_FORM_F08)
  call MPI_Register_datarep_c('fortran-offset-c', read_offset_c, write_offset_c, extent_of, offset, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Register_datarep_c')
  call MPI_Register_datarep_c('fortran-offset-c', read_offset_c, write_offset_c, extent_of, offset, ierror)
  call check(ierror == MPI_ERR_DUP_DATAREP, 'a name registered twice (_c)')
  call MPI_Register_datarep_c('fortran-plain-c', MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, extent_of, &
                              offset, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Register_datarep_c with MPI_CONVERSION_FN_NULL_C')
  call round_trip('fortran-offset-c', 'fortran-plain-c', 'c')
#endif
  call report_pass('fortran_datarep', FORM_NAME)
  call MPI_Finalize(ierror)

contains
  ! Each rank writes its block through `converting`, reads it back through
  ! it, then reads the raw file natively and through `plain` (offset values).
  subroutine round_trip(converting, plain, label)
    character(len=*), intent(in) :: converting, plain, label
    integer, parameter :: n = 6
    integer :: i, values(n), back(n), raw(n)
    integer(kind=MPI_OFFSET_KIND) :: disp, at
    character(len=64) :: path
    FILE_T :: fh

    conversions = 0
    write (path, '(a, i0, a)') 'fortran_datarep_', ranks, '_' // FORM_NAME // '_' // label // '.dat'
    call MPI_File_open(MPI_COMM_WORLD, trim(path), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_File_open')
    disp = 0
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, converting, MPI_INFO_NULL, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_File_set_view through the representation')
    do i = 1, n
      values(i) = 100 * rank + i
    end do
    at = rank * n
    call MPI_File_write_at(fh, at, values, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call check(ierror == MPI_SUCCESS .and. conversions == 1, 'a write through the representation')
    call MPI_File_sync(fh, ierror)
    call MPI_Barrier(MPI_COMM_WORLD, ierror)
    back = -1
    call MPI_File_read_at(fh, at, back, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call check(ierror == MPI_SUCCESS .and. all(back == values), 'a read through the representation')
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierror)
    call MPI_File_read_at(fh, at, raw, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call check(ierror == MPI_SUCCESS .and. all(raw == values + 1000), 'the file holds the converted values')
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, plain, MPI_INFO_NULL, ierror)
    call MPI_File_read_at(fh, at, raw, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call check(ierror == MPI_SUCCESS .and. all(raw == values + 1000), 'no conversion reads natively')
    call MPI_File_close(fh, ierror)
    call MPI_Barrier(MPI_COMM_WORLD, ierror)
    if (rank == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL, ierror)
  end subroutine round_trip
end program fortran_datarep
