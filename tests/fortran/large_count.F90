! MPI 4.0's large-count forms through mpi_f08: each call below is made once
! with INTEGER(KIND=MPI_COUNT_KIND) counts (and MPI_ADDRESS_KIND displacements
! and displacement units where C's _c form takes MPI_Aint), which the generic
! resolves to its MPI_<name>_c_f08 specific, and once with default integers,
! which must still resolve to the int form. Point-to-point, a ring of
! non-blocking messages, collectives, a derived type, packing, a put into a
! window and MPI-IO at explicit offsets; every result is checked.
program fortran_large_count
  use mpi_f08
  use fortran_check
  implicit none
  integer, parameter :: n = 6
  integer(kind=MPI_COUNT_KIND), parameter :: n8 = n, bytes8 = 256
  integer :: rank, ranks, left, right, ierror, i, r, count4, size4, position4
  integer(kind=MPI_COUNT_KIND) :: count8, size8, position8, total8
  integer(kind=MPI_COUNT_KIND), allocatable :: counts8(:)
  integer(kind=MPI_ADDRESS_KIND), allocatable :: displs8(:)
  integer, allocatable :: counts4(:), displs4(:), gathered(:), expected(:)
  integer :: mine(n), values(n), sums(n)
  integer, asynchronous :: outgoing(n), incoming(n)
  integer, asynchronous, target :: exposed(n)
  character :: packed(bytes8)
  integer(kind=MPI_OFFSET_KIND) :: offset
  character(len=64) :: path
  type(MPI_Status) :: status
  type(MPI_Request) :: requests(2)
  type(MPI_Datatype) :: triple, triple4
  type(MPI_Win) :: win
  type(MPI_File) :: fh

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  left = mod(rank + ranks - 1, ranks)
  right = mod(rank + 1, ranks)
  mine = [(100 * rank + i, i = 1, n)]

  ! MPI_Send / MPI_Recv between ranks 0 and 1, and MPI_Get_count's MPI_Count result.
  if (ranks >= 2 .and. rank < 2) then
    if (rank == 0) then
      call MPI_Send(mine, n8, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierror)
      call check(ierror == MPI_SUCCESS, 'MPI_Send with a count of MPI_COUNT_KIND')
      call MPI_Send(mine, n, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierror)
      call check(ierror == MPI_SUCCESS, 'MPI_Send with a default integer count')
    else
      values = -1
      call MPI_Recv(values, n8, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, status, ierror)
      call check(ierror == MPI_SUCCESS .and. all(values == [(i, i = 1, n)]), &
                 'MPI_Recv with a count of MPI_COUNT_KIND')
      count8 = -1
      call MPI_Get_count(status, MPI_INTEGER, count8, ierror)
      call check(ierror == MPI_SUCCESS .and. count8 == n8, 'MPI_Get_count into an MPI_COUNT_KIND count')
      values = -1
      call MPI_Recv(values, n, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, status, ierror)
      call check(ierror == MPI_SUCCESS .and. all(values == [(i, i = 1, n)]), &
                 'MPI_Recv with a default integer count')
      count4 = -1
      call MPI_Get_count(status, MPI_INTEGER, count4, ierror)
      call check(ierror == MPI_SUCCESS .and. count4 == n, 'MPI_Get_count into a default integer')
    end if
  end if

  ! MPI_Isend / MPI_Irecv around the ring (to itself on one rank), MPI_Wait.
  outgoing = mine
  incoming = -1
  call MPI_Irecv(incoming, n8, MPI_INTEGER, left, 3, MPI_COMM_WORLD, requests(1), ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Irecv with a count of MPI_COUNT_KIND')
  call MPI_Isend(outgoing, n8, MPI_INTEGER, right, 3, MPI_COMM_WORLD, requests(2), ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Isend with a count of MPI_COUNT_KIND')
  call MPI_Wait(requests(2), MPI_STATUS_IGNORE, ierror)
  call MPI_Wait(requests(1), status, ierror)
  call check(ierror == MPI_SUCCESS .and. all(incoming == [(100 * left + i, i = 1, n)]), &
             'MPI_Isend/MPI_Irecv with counts of MPI_COUNT_KIND')
  count8 = -1
  call MPI_Get_count(status, MPI_INTEGER, count8)
  call check(count8 == n8, 'MPI_Get_count of a non-blocking receive, MPI_COUNT_KIND')
  incoming = -1
  call MPI_Irecv(incoming, n, MPI_INTEGER, left, 4, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Isend(outgoing, n, MPI_INTEGER, right, 4, MPI_COMM_WORLD, requests(2), ierror)
  call MPI_Wait(requests(2), MPI_STATUS_IGNORE, ierror)
  call MPI_Wait(requests(1), status, ierror)
  call check(ierror == MPI_SUCCESS .and. all(incoming == [(100 * left + i, i = 1, n)]), &
             'MPI_Isend/MPI_Irecv with default integer counts')

  ! MPI_Bcast from the last rank.
  values = 0
  if (rank == ranks - 1) values = [(7 * i, i = 1, n)]
  call MPI_Bcast(values, n8, MPI_INTEGER, ranks - 1, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(values == [(7 * i, i = 1, n)]), &
             'MPI_Bcast with a count of MPI_COUNT_KIND')
  values = 0
  if (rank == ranks - 1) values = [(8 * i, i = 1, n)]
  call MPI_Bcast(values, n, MPI_INTEGER, ranks - 1, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(values == [(8 * i, i = 1, n)]), &
             'MPI_Bcast with a default integer count')

  ! MPI_Allreduce: the sum over ranks of 100 * rank + i.
  sums = -1
  call MPI_Allreduce(mine, sums, n8, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(sums == [(50 * ranks * (ranks - 1) + ranks * i, i = 1, n)]), &
             'MPI_Allreduce with a count of MPI_COUNT_KIND')
  sums = -1
  call MPI_Allreduce(mine, sums, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(sums == [(50 * ranks * (ranks - 1) + ranks * i, i = 1, n)]), &
             'MPI_Allreduce with a default integer count')

  ! MPI_Allgatherv: rank r gives its first r + 1 values, packed one after another.
  allocate(counts8(ranks), displs8(ranks), counts4(ranks), displs4(ranks))
  allocate(gathered(ranks * (ranks + 1) / 2), expected(ranks * (ranks + 1) / 2))
  do r = 0, ranks - 1
    counts4(r + 1) = r + 1
    displs4(r + 1) = r * (r + 1) / 2
    expected(displs4(r + 1) + 1:displs4(r + 1) + r + 1) = [(100 * r + i, i = 1, r + 1)]
  end do
  counts8 = counts4
  displs8 = displs4
  gathered = -1
  call MPI_Allgatherv(mine, int(rank + 1, MPI_COUNT_KIND), MPI_INTEGER, gathered, counts8, displs8, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(gathered == expected), &
             'MPI_Allgatherv with MPI_COUNT_KIND counts and MPI_ADDRESS_KIND displacements')
  gathered = -1
  call MPI_Allgatherv(mine, rank + 1, MPI_INTEGER, gathered, counts4, displs4, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(gathered == expected), &
             'MPI_Allgatherv with default integer counts and displacements')

  ! MPI_Type_contiguous: three integers, sent twice around the ring.
  call MPI_Type_contiguous(3_MPI_COUNT_KIND, MPI_INTEGER, triple, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Type_contiguous with a count of MPI_COUNT_KIND')
  call MPI_Type_commit(triple, ierror)
  size8 = -1
  call MPI_Type_size(triple, size8, ierror)
  call check(ierror == MPI_SUCCESS .and. size8 == 12, 'MPI_Type_size into an MPI_COUNT_KIND size')
  call MPI_Type_contiguous(3, MPI_INTEGER, triple4, ierror)
  call MPI_Type_commit(triple4, ierror)
  size4 = -1
  call MPI_Type_size(triple4, size4, ierror)
  call check(ierror == MPI_SUCCESS .and. size4 == 12, 'MPI_Type_contiguous and MPI_Type_size, default integers')
  incoming = -1
  call MPI_Irecv(incoming, 2_MPI_COUNT_KIND, triple, left, 5, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Isend(outgoing, 2, triple4, right, 5, MPI_COMM_WORLD, requests(2), ierror)
  call MPI_Wait(requests(2), MPI_STATUS_IGNORE, ierror)
  call MPI_Wait(requests(1), status, ierror)
  call check(ierror == MPI_SUCCESS .and. all(incoming == [(100 * left + i, i = 1, n)]), &
             'a message of two MPI_Type_contiguous triples')
  count8 = -1
  call MPI_Get_count(status, triple, count8, ierror)
  count4 = -1
  call MPI_Get_count(status, triple4, count4, ierror)
  call check(count8 == 2 .and. count4 == 2, 'MPI_Get_count in MPI_Type_contiguous triples')
  call MPI_Type_free(triple, ierror)
  call MPI_Type_free(triple4, ierror)

  ! MPI_Pack_size, MPI_Pack and MPI_Unpack.
  size8 = -1
  call MPI_Pack_size(n8, MPI_INTEGER, MPI_COMM_WORLD, size8, ierror)
  call check(ierror == MPI_SUCCESS .and. size8 >= 4 * n8 .and. size8 <= bytes8, &
             'MPI_Pack_size with MPI_COUNT_KIND count and size')
  position8 = 0
  call MPI_Pack(mine, n8, MPI_INTEGER, packed, bytes8, position8, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. position8 > 0 .and. position8 <= size8, &
             'MPI_Pack with MPI_COUNT_KIND counts and position')
  total8 = position8
  position8 = 0
  values = -1
  call MPI_Unpack(packed, total8, position8, values, n8, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. position8 == total8 .and. all(values == mine), &
             'MPI_Unpack with MPI_COUNT_KIND counts and position')
  position4 = 0
  call MPI_Pack(mine, n, MPI_INTEGER, packed, int(bytes8), position4, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. position4 == total8, 'MPI_Pack with default integers')
  position4 = 0
  values = -1
  call MPI_Unpack(packed, int(total8), position4, values, n, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. position4 == total8 .and. all(values == mine), &
             'MPI_Unpack with default integers')

  ! MPI_Put into the right neighbour's window: an MPI_ADDRESS_KIND
  ! displacement unit makes MPI_Win_create the large-count form.
  exposed = -1
  call MPI_Win_create(exposed, int(4 * n, MPI_ADDRESS_KIND), 4_MPI_ADDRESS_KIND, MPI_INFO_NULL, MPI_COMM_WORLD, &
                      win, ierror)
  call check(ierror == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_create with an MPI_ADDRESS_KIND disp_unit')
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierror)
  call MPI_Put(outgoing, n8, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, n8, MPI_INTEGER, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Put with counts of MPI_COUNT_KIND')
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierror)
  call MPI_F_sync_reg(exposed)
  call check(all(exposed == [(100 * left + i, i = 1, n)]), 'MPI_Put with counts of MPI_COUNT_KIND, data')
  call MPI_Win_free(win, ierror)
  exposed = -1
  call MPI_Win_create(exposed, int(4 * n, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierror)
  call check(ierror == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_create with a default integer disp_unit')
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierror)
  call MPI_Put(outgoing, n - 2, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, n - 2, MPI_INTEGER, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Put with default integer counts')
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierror)
  call MPI_F_sync_reg(exposed)
  call check(all(exposed(1:2) == -1) .and. all(exposed(3:n) == [(100 * left + i, i = 1, n - 2)]), &
             'MPI_Put with default integer counts, data')
  call MPI_Win_free(win, ierror)

  ! MPI_File_write_at / MPI_File_read_at: each rank its own block, then its
  ! right neighbour's.
  write (path, '(a, i0, a)') 'fortran_large_count_', ranks, '.dat'
  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_open')
  offset = 4 * n * rank
  call MPI_File_write_at(fh, offset, mine, n8, MPI_INTEGER, status, ierror)
  count8 = -1
  call MPI_Get_count(status, MPI_INTEGER, count8)
  call check(ierror == MPI_SUCCESS .and. count8 == n8, 'MPI_File_write_at with a count of MPI_COUNT_KIND')
  values = -1
  call MPI_File_read_at(fh, offset, values, n8, MPI_INTEGER, status, ierror)
  call check(ierror == MPI_SUCCESS .and. all(values == mine), 'MPI_File_read_at with a count of MPI_COUNT_KIND')
  values = -1
  call MPI_File_read_at(fh, offset, values, n, MPI_INTEGER, status, ierror)
  call check(ierror == MPI_SUCCESS .and. all(values == mine), 'MPI_File_read_at with a default integer count')
  call MPI_File_write_at(fh, offset + 4 * n * ranks, mine, n, MPI_INTEGER, status, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_File_write_at with a default integer count')
  call MPI_File_sync(fh, ierror)
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call MPI_File_sync(fh, ierror)
  values = -1
  call MPI_File_read_at(fh, int(4 * n * (right + ranks), MPI_OFFSET_KIND), values, n8, MPI_INTEGER, status, ierror)
  call check(ierror == MPI_SUCCESS .and. all(values == [(100 * right + i, i = 1, n)]), &
             'MPI_File_read_at of what the neighbour wrote')
  call MPI_File_close(fh, ierror)
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  if (rank == 0) call MPI_File_delete(path, MPI_INFO_NULL, ierror)

  call report_pass('fortran_large_count', 'f08')
  call MPI_Finalize(ierror)
end program fortran_large_count
