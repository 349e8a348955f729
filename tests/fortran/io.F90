! MPI-IO from Fortran: each rank writes its block collectively, reads its
! neighbour's back independently, then reads its own through a view made of
! a Fortran-order subarray type and a block darray; file pointers, sizes,
! atomicity and the file handle.
#include "forms.h"
program fortran_io
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, right, ierror, i, blocks(1), subsizes(1), starts(1), count
  integer :: mine(10), theirs(10)
  integer(kind=MPI_OFFSET_KIND) :: size, position
  character(len=64) :: path
  logical :: flag
  character(len=MPI_MAX_DATAREP_STRING) :: datarep
  integer(kind=MPI_OFFSET_KIND) :: disp
  FILE_T :: fh
  DATATYPE_T :: block, etype, filetype
  STATUS_T :: status

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  right = mod(rank + 1, ranks)
  ! One file per form and job size: the jobs may run at the same time.
  write (path, '(a, a, a, i0, a)') 'fortran_io_', FORM_NAME, '_', ranks, '.dat'

  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_open')
  call MPI_File_set_size(fh, 0_MPI_OFFSET_KIND, ierror)
  mine = [(1000 * rank + i, i = 1, 10)]
  call MPI_File_write_at_all(fh, int(40 * rank, MPI_OFFSET_KIND), mine, 10, MPI_INTEGER, status, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_write_at_all')
  call MPI_Get_count(status, MPI_INTEGER, count, ierror)
  call check(count == 10, 'MPI_File_write_at_all count')
  call MPI_File_sync(fh, ierror)
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call MPI_File_set_atomicity(fh, .true., ierror)
  call MPI_File_get_atomicity(fh, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag, 'MPI_File_set_atomicity and MPI_File_get_atomicity')
  call MPI_File_get_size(fh, size, ierror)
  call check(size == 40 * ranks, 'MPI_File_get_size')

  theirs = -1
  call MPI_File_read_at(fh, int(40 * right, MPI_OFFSET_KIND), theirs, 10, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  call check(all(theirs == [(1000 * right + i, i = 1, 10)]), 'MPI_File_read_at of the neighbour''s block')

  ! A view of this rank's block only: a subarray of the whole file.
  blocks(1) = 10 * ranks
  subsizes(1) = 10
  starts(1) = 10 * rank
  call MPI_Type_create_subarray(1, blocks, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, block, ierror)
  call MPI_Type_commit(block, ierror)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, block, 'native', MPI_INFO_NULL, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_set_view')
  call MPI_File_get_view(fh, disp, etype, filetype, datarep, ierror)
  call check(disp == 0 .and. datarep == 'native', 'MPI_File_get_view')
  theirs = -1
  call MPI_File_read_all(fh, theirs, 10, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  call check(all(theirs == mine), 'MPI_File_read_all through a subarray view')
  call MPI_File_get_position(fh, position, ierror)
  call check(position == 10, 'MPI_File_get_position after a read')
  call MPI_File_seek(fh, 4_MPI_OFFSET_KIND, MPI_SEEK_SET, ierror)
  call MPI_File_read(fh, i, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  call check(i == 1000 * rank + 5, 'MPI_File_seek and MPI_File_read')
  call MPI_Type_free(block, ierror)

  ! The same block as a block distribution of the whole file over the ranks.
  call MPI_Type_create_darray(ranks, rank, 1, [10 * ranks], [MPI_DISTRIBUTE_BLOCK], [MPI_DISTRIBUTE_DFLT_DARG], &
                              [ranks], MPI_ORDER_FORTRAN, MPI_INTEGER, block, ierror)
  call MPI_Type_commit(block, ierror)
  call MPI_Type_size(block, i, ierror)
  call check(i == 40, 'MPI_Type_create_darray size')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, block, 'native', MPI_INFO_NULL, ierror)
  theirs = -1
  call MPI_File_read_all(fh, theirs, 10, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  call check(all(theirs == mine), 'MPI_File_read_all through a darray view')
  call MPI_Type_free(block, ierror)

  ! The shared file pointer: ordered writes land in rank order.
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierror)
  call MPI_File_seek_shared(fh, int(10 * ranks, MPI_OFFSET_KIND), MPI_SEEK_SET, ierror)
  call MPI_File_write_ordered(fh, [rank, -rank], 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_write_ordered')
  call MPI_File_get_position_shared(fh, position, ierror)
  call check(position == 12 * ranks, 'MPI_File_get_position_shared')
  ! Sync, barrier, sync: the others' writes are then visible here.
  call MPI_File_sync(fh, ierror)
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call MPI_File_sync(fh, ierror)
  theirs = -1
  call MPI_File_read_at(fh, int(10 * ranks + 2 * right, MPI_OFFSET_KIND), theirs, 2, MPI_INTEGER, &
                        MPI_STATUS_IGNORE, ierror)
  call check(theirs(1) == right .and. theirs(2) == -right, 'ordered writes in rank order')

  call MPI_File_close(fh, ierror)
  call check(fh == MPI_FILE_NULL, 'MPI_File_close')
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  if (rank == 0) then
    call MPI_File_delete(path, MPI_INFO_NULL, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_File_delete')
  end if

  call report_pass('fortran_io', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_io
