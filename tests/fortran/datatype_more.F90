! Portable packing (external32: big-endian, fixed sizes) of default integers
! and reals, compared byte for byte and unpacked again, at one rank and sent
! as bytes to another; datatypes by size and by Fortran kind; the
! MPI_COUNT_KIND queries of a vector type; a status's elements and
! cancellation set by the program.
#include "forms.h"
program fortran_datatype_more
  USE_MPI
  use fortran_check
  use, intrinsic :: iso_fortran_env, only: int8
  implicit none
  INCLUDE_MPIF
  integer, parameter :: kPacked = 28
  ! 1, -2 and 258 as 4-byte integers; 1.0 and -2.5 as binary32; 1.0d0 as binary64.
  integer, parameter :: expected(kPacked) = [0, 0, 0, 1, 255, 255, 255, 254, 0, 0, 1, 2, &
                                             63, 128, 0, 0, 192, 32, 0, 0, 63, 240, 0, 0, 0, 0, 0, 0]
  integer :: ierror, rank, ranks, n, i, ints(3), ints_back(3)
  real :: reals(2), reals_back(2)
  double precision :: one, one_back
  integer(kind=int8) :: packed(64), received(64)
  integer(kind=MPI_ADDRESS_KIND) :: position, size
  integer(kind=MPI_COUNT_KIND) :: count, lb, extent
  character(len=16) :: datarep
  logical :: flag
  DATATYPE_T :: found, vector, resized
  STATUS_T :: status

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)

  ! --- external32 of default integers, reals and a double precision.
  ints = [1, -2, 258]
  reals = [1.0, -2.5]
  one = 1.0d0
  datarep = 'external32'  ! blank-padded: the trailing blanks are not the name's
  call MPI_Pack_external_size(datarep, 3, MPI_INTEGER, size, ierror)
  call check(ierror == MPI_SUCCESS .and. size == 12, 'MPI_Pack_external_size of 3 MPI_INTEGER')
  call MPI_Pack_external_size('external32', 1, MPI_DOUBLE_PRECISION, size, ierror)
  call check(ierror == MPI_SUCCESS .and. size == 8, 'MPI_Pack_external_size of MPI_DOUBLE_PRECISION')
  packed = 0
  position = 0
  call MPI_Pack_external(datarep, ints, 3, MPI_INTEGER, packed, 64_MPI_ADDRESS_KIND, position, ierror)
  call check(ierror == MPI_SUCCESS .and. position == 12, 'MPI_Pack_external of integers')
  call MPI_Pack_external(datarep, reals, 2, MPI_REAL, packed, 64_MPI_ADDRESS_KIND, position, ierror)
  call check(ierror == MPI_SUCCESS .and. position == 20, 'MPI_Pack_external of reals')
  call MPI_Pack_external(datarep, one, 1, MPI_DOUBLE_PRECISION, packed, 64_MPI_ADDRESS_KIND, position, ierror)
  call check(ierror == MPI_SUCCESS .and. position == kPacked, 'MPI_Pack_external of a double precision')
  do i = 1, kPacked
    call check(iand(int(packed(i)), 255) == expected(i), 'external32 bytes are big-endian')
  end do
  position = 0
  call MPI_Unpack_external(datarep, packed, int(kPacked, MPI_ADDRESS_KIND), position, ints_back, 3, &
                           MPI_INTEGER, ierror)
  call MPI_Unpack_external(datarep, packed, int(kPacked, MPI_ADDRESS_KIND), position, reals_back, 2, &
                           MPI_REAL, ierror)
  call MPI_Unpack_external(datarep, packed, int(kPacked, MPI_ADDRESS_KIND), position, one_back, 1, &
                           MPI_DOUBLE_PRECISION, ierror)
  call check(ierror == MPI_SUCCESS .and. position == kPacked .and. all(ints_back == ints) .and. &
             all(abs(reals_back - reals) <= 0.0) .and. abs(one_back - one) <= 0.0d0, &
             'MPI_Unpack_external round trip (exactly)')

  ! --- The bytes travel to the next rank and unpack there.
  if (ranks > 1) then
    received = 0
    call MPI_Sendrecv(packed, kPacked, MPI_BYTE, mod(rank + 1, ranks), 7, received, 64, MPI_BYTE, &
                      mod(rank + ranks - 1, ranks), 7, MPI_COMM_WORLD, status, ierror)
    call MPI_Get_elements_x(status, MPI_BYTE, count, ierror)
    call check(ierror == MPI_SUCCESS .and. count == kPacked, 'MPI_Get_elements_x of a received message')
    position = 0
    ints_back = 0
    call MPI_Unpack_external('external32', received, int(kPacked, MPI_ADDRESS_KIND), position, ints_back, 3, &
                             MPI_INTEGER, ierror)
    call check(ierror == MPI_SUCCESS .and. all(ints_back == ints), 'MPI_Unpack_external of received bytes')
  end if

  ! --- Datatypes by size and by Fortran kind: the Fortran sized types.
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, found, ierror)
  call check(ierror == MPI_SUCCESS .and. found == MPI_INTEGER4, 'MPI_Type_match_size of a 4-byte integer')
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, found, ierror)
  call check(found == MPI_INTEGER8, 'MPI_Type_match_size of an 8-byte integer')
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, found, ierror)
  call check(found == MPI_REAL8 .and. found == MPI_DOUBLE_PRECISION, 'MPI_Type_match_size of an 8-byte real')
  call MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, found, ierror)
  call check(found == MPI_COMPLEX16 .and. found == MPI_DOUBLE_COMPLEX, 'MPI_Type_match_size of a complex')
  call MPI_Type_create_f90_integer(9, found, ierror)
  call check(ierror == MPI_SUCCESS .and. found == MPI_INTEGER4, 'MPI_Type_create_f90_integer(9)')
  call MPI_Type_create_f90_integer(range(0_8), found, ierror)
  call check(found == MPI_INTEGER8, 'MPI_Type_create_f90_integer of INTEGER(8)''s range')
  call MPI_Type_create_f90_real(precision(1.0), MPI_UNDEFINED, found, ierror)
  call check(ierror == MPI_SUCCESS .and. found == MPI_REAL4, 'MPI_Type_create_f90_real of REAL''s precision')
  call MPI_Type_create_f90_real(precision(1.0d0), range(1.0d0), found, ierror)
  call check(found == MPI_REAL8, 'MPI_Type_create_f90_real of DOUBLE PRECISION''s')
  call MPI_Type_create_f90_complex(MPI_UNDEFINED, range(1.0d0), found, ierror)
  call check(ierror == MPI_SUCCESS .and. found == MPI_COMPLEX16, 'MPI_Type_create_f90_complex')
  call MPI_Type_create_f90_complex(6, MPI_UNDEFINED, found, ierror)
  call check(found == MPI_COMPLEX8 .and. found == MPI_COMPLEX, 'MPI_Type_create_f90_complex of COMPLEX''s')

  ! --- The MPI_COUNT_KIND queries: 3 blocks of 2 integers, 4 apart, then
  ! resized to lower bound 8 and extent 64.
  call MPI_Type_vector(3, 2, 4, MPI_INTEGER, vector, ierror)
  call MPI_Type_commit(vector, ierror)
  call MPI_Type_size_x(vector, count, ierror)
  call check(ierror == MPI_SUCCESS .and. count == 24, 'MPI_Type_size_x of a vector')
  call MPI_Type_get_extent_x(vector, lb, extent, ierror)
  call check(ierror == MPI_SUCCESS .and. lb == 0 .and. extent == 40, 'MPI_Type_get_extent_x of a vector')
  call MPI_Type_create_resized(vector, 8_MPI_ADDRESS_KIND, 64_MPI_ADDRESS_KIND, resized, ierror)
  call MPI_Type_get_extent_x(resized, lb, extent, ierror)
  call check(lb == 8 .and. extent == 64, 'MPI_Type_get_extent_x of a resized vector')
  call MPI_Type_get_true_extent_x(resized, lb, extent, ierror)
  call check(ierror == MPI_SUCCESS .and. lb == 0 .and. extent == 40, 'MPI_Type_get_true_extent_x')

  ! --- A status's elements and cancellation, set by the program.
  call MPI_Sendrecv(ints, 1, MPI_INTEGER, rank, 3, ints_back, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, &
                    status, ierror)
  call MPI_Status_set_elements(status, MPI_INTEGER, 5, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Status_set_elements')
  call MPI_Get_count(status, MPI_INTEGER, n, ierror)
  call check(n == 5 .and. FIELD(status, MPI_SOURCE) == rank, 'MPI_Get_count after MPI_Status_set_elements')
  call MPI_Get_elements_x(status, MPI_INTEGER, count, ierror)
  call check(count == 5, 'MPI_Get_elements_x after MPI_Status_set_elements')
  call MPI_Status_set_elements_x(status, vector, 7_MPI_COUNT_KIND, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Status_set_elements_x')
  call MPI_Get_elements_x(status, vector, count, ierror)
  call check(count == 7, 'MPI_Get_elements_x of a vector')
  call MPI_Get_count(status, vector, n, ierror)
  call check(n == MPI_UNDEFINED, 'MPI_Get_count of 7 elements of a 6-element type')
  call MPI_Get_elements(status, MPI_INTEGER, n, ierror)
  call check(n == 7, 'MPI_Get_elements counts the vector''s integers')
  call MPI_Status_set_cancelled(status, .true., ierror)
  call MPI_Test_cancelled(status, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag, 'MPI_Status_set_cancelled(.true.)')
  call MPI_Status_set_cancelled(status, .false., ierror)
  call MPI_Test_cancelled(status, flag, ierror)
  call check(.not. flag, 'MPI_Status_set_cancelled(.false.)')
  call MPI_Type_free(resized, ierror)
  call MPI_Type_free(vector, ierror)

  ! --- Only external32 is known.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierror)
  call MPI_Pack_external_size('native', 1, MPI_INTEGER, size, ierror)
  call check(ierror /= MPI_SUCCESS, 'MPI_Pack_external_size of another datarep fails')

  call report_pass('fortran_datatype_more', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_datatype_more
