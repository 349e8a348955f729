! From Fortran: the environment's queries, MPI_Alloc_mem, Info objects,
! communicator names and info, Cartesian topologies, and the scan,
! reduce_scatter, reduce_local, alltoallw and isendrecv calls.
#include "forms.h"
program fortran_topo_info
  USE_MPI
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_f_pointer
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, right, left, ierror, i, nkeys, length, buflen, ndims, source, dest, sub_size, got
  integer :: dims(2), coords(2), cart_rank
  integer, allocatable :: values(:), counts(:), displacements(:)
  DATATYPE_T, allocatable :: types(:)
  logical :: flag, periods(2)
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=16) :: value
  character(len=MPI_MAX_OBJECT_NAME) :: name
  INFO_T :: info, copy
  COMM_T :: dup, cart, row
  REQUEST_T :: request
  integer :: provided
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
  integer, pointer :: block(:)
#if defined(TERN_FORM_F08)
  type(c_ptr) :: base
#else
  integer(kind=MPI_ADDRESS_KIND) :: base
#endif

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierror)
  call check(ierror == MPI_SUCCESS .and. provided >= MPI_THREAD_FUNNELED, 'MPI_Init_thread')
  call MPI_Query_thread(i, ierror)
  call check(i == provided, 'MPI_Query_thread')
  call MPI_Is_thread_main(flag, ierror)
  call check(flag, 'MPI_Is_thread_main')
  call MPI_Initialized(flag, ierror)
  call check(flag, 'MPI_Initialized')
  call MPI_Get_version(i, length, ierror)
  call check(i == MPI_VERSION .and. length == MPI_SUBVERSION, 'MPI_Get_version')
  call MPI_Get_library_version(library, length, ierror)
  call check(length > 0 .and. index(library, 'Tern') > 0, 'MPI_Get_library_version')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  right = mod(rank + 1, ranks)
  left = mod(rank + ranks - 1, ranks)

  ! --- Info: keys and values are CHARACTER, blank-padded both ways.
  call MPI_Info_create(info, ierror)
  call MPI_Info_set(info, 'colour', 'blue', ierror)
  call MPI_Info_get_nkeys(info, nkeys, ierror)
  call check(nkeys == 1, 'MPI_Info_get_nkeys')
  call MPI_Info_get_nthkey(info, 0, key, ierror)
  call check(key == 'colour', 'MPI_Info_get_nthkey')
  call MPI_Info_get_valuelen(info, 'colour', length, flag, ierror)
  call check(flag .and. length == 4, 'MPI_Info_get_valuelen')
  call MPI_Info_get(info, 'colour', len(value), value, flag, ierror)
  call check(flag .and. value == 'blue', 'MPI_Info_get')
  value = 'unchanged'
  call MPI_Info_get(info, 'shape', len(value), value, flag, ierror)
  call check(.not. flag .and. value == 'unchanged', 'MPI_Info_get of a missing key')
  call MPI_Info_get_string(info, 'colour', buflen, value, flag, ierror)
  call check(flag .and. value == 'blue' .and. buflen == 4, 'MPI_Info_get_string')
  call MPI_Info_dup(info, copy, ierror)
  call MPI_Info_delete(info, 'colour', ierror)
  call MPI_Info_get_nkeys(info, nkeys, ierror)
  call check(nkeys == 0, 'MPI_Info_delete')
  call MPI_Info_get(copy, 'colour', len(value), value, flag, ierror)
  call check(flag .and. value == 'blue', 'MPI_Info_dup keeps the pairs')

  ! --- Communicator names and info.
  call MPI_Comm_dup_with_info(MPI_COMM_WORLD, copy, dup, ierror)
  call MPI_Comm_set_name(dup, 'fortran dup', ierror)
  call MPI_Comm_get_name(dup, name, length, ierror)
  call check(name == 'fortran dup' .and. length == 11, 'MPI_Comm_set_name and MPI_Comm_get_name')
  call MPI_Comm_test_inter(dup, flag, ierror)
  call check(.not. flag, 'MPI_Comm_test_inter')
  call MPI_Op_commutative(MPI_SUM, flag, ierror)
  call check(flag, 'MPI_Op_commutative')
  call MPI_Comm_free(dup, ierror)
  call MPI_Info_free(copy, ierror)
  call MPI_Info_free(info, ierror)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free')

  ! --- A 2-D Cartesian grid, periodic in its first dimension.
  dims = 0
  call MPI_Dims_create(ranks, 2, dims, ierror)
  call check(dims(1) * dims(2) == ranks .and. dims(1) >= dims(2), 'MPI_Dims_create')
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.true., .false.], .false., cart, ierror)
  call MPI_Topo_test(cart, i, ierror)
  call check(i == MPI_CART, 'MPI_Topo_test')
  call MPI_Cartdim_get(cart, ndims, ierror)
  call check(ndims == 2, 'MPI_Cartdim_get')
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierror)
  call check(periods(1) .and. .not. periods(2), 'MPI_Cart_get periods')
  call MPI_Cart_rank(cart, coords, cart_rank, ierror)
  call check(cart_rank == rank, 'MPI_Cart_rank')
  call MPI_Cart_coords(cart, rank, 2, coords, ierror)
  call check(coords(1) == rank / dims(2) .and. coords(2) == mod(rank, dims(2)), 'MPI_Cart_coords')
  call MPI_Cart_shift(cart, 0, 1, source, dest, ierror)
  call check(dest == mod(rank + dims(2), ranks) .and. source == mod(rank - dims(2) + ranks, ranks), &
             'MPI_Cart_shift periodic')
  call MPI_Cart_sub(cart, [.true., .false.], row, ierror)
  call MPI_Comm_size(row, sub_size, ierror)
  call check(sub_size == dims(1), 'MPI_Cart_sub')
  call MPI_Comm_free(row, ierror)
  call MPI_Comm_free(cart, ierror)

  ! --- Scans and the other reductions.
  call MPI_Scan(rank + 1, got, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(got == (rank + 1) * (rank + 2) / 2, 'MPI_Scan')
  got = -7
  call MPI_Exscan(rank + 1, got, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(got == merge(-7, rank * (rank + 1) / 2, rank == 0), 'MPI_Exscan')
  allocate (values(ranks * 2), counts(ranks), displacements(ranks), types(ranks))
  values = [(i, i = 1, ranks * 2)]
  counts = 2
  call MPI_Reduce_scatter(values, dims, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(all(dims == ranks * [2 * rank + 1, 2 * rank + 2]), 'MPI_Reduce_scatter')
  dims = [1, 2]
  coords = [10, 20]
  call MPI_Reduce_local(dims, coords, 2, MPI_INTEGER, MPI_SUM, ierror)
  call check(all(coords == [11, 22]), 'MPI_Reduce_local')

  ! Alltoallw with byte displacements: rank r sends 10 * r + d to rank d.
  values(1:ranks) = [(10 * rank + i, i = 0, ranks - 1)]
  counts = 1
  displacements = [(4 * i, i = 0, ranks - 1)]
  types = MPI_INTEGER
  call MPI_Alltoallw(values, counts, displacements, types, values(ranks + 1:), counts, displacements, types, &
                     MPI_COMM_WORLD, ierror)
  call check(all(values(ranks + 1:) == [(10 * i + rank, i = 0, ranks - 1)]), 'MPI_Alltoallw')

  call MPI_Isendrecv(rank, 1, MPI_INTEGER, right, 9, got, 1, MPI_INTEGER, left, 9, MPI_COMM_WORLD, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call check(got == left, 'MPI_Isendrecv')
  deallocate (values, counts, displacements, types)

  ! Memory from MPI_Alloc_mem, seen as a Fortran array.
  call MPI_Alloc_mem(int(64 * 4, MPI_ADDRESS_KIND), MPI_INFO_NULL, base, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Alloc_mem')
#if defined(TERN_FORM_F08)
  call c_f_pointer(base, block, [64])
#else
  call c_f_pointer(transfer(base, c_null_ptr), block, [64])
#endif
  block = [(i, i = 1, 64)]
  call MPI_Allreduce(MPI_IN_PLACE, block, 64, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(all(block == [(ranks * i, i = 1, 64)]), 'MPI_Allreduce in MPI_Alloc_mem memory')
  call MPI_Free_mem(block, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Free_mem')

  call MPI_Pcontrol(1)
  call report_pass('fortran_topo_info', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_topo_info
