! One-sided communication from Fortran, active target: puts and gets under
! fences on a window of an integer array (MPI_Win_create) and on memory the
! library allocates (MPI_Win_allocate, the base as a Fortran pointer),
! accumulates from every rank, post/start/complete/wait between neighbours,
! the windows' attributes, name, group and error handler.
#include "forms.h"
program fortran_rma
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_f_pointer
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer, parameter :: n = 8
  integer :: rank, ranks, left, right, ierror, i, t, resultlen, errorclass
  integer, target :: exposed(n)
  integer :: fetched(n), contribution(n)
  integer, pointer :: allocated(:)
  integer(kind=MPI_ADDRESS_KIND) :: address, base_address
  character(len=MPI_MAX_OBJECT_NAME) :: name
  logical :: flag
  BASEPTR_T :: baseptr
  WIN_T :: win
  GROUP_T :: world_group, win_group, origins, targets
  ERRHANDLER_T :: handler

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  left = mod(rank + ranks - 1, ranks)
  right = mod(rank + 1, ranks)

  ! A window of an integer array: put to the right neighbour, get it back.
  exposed = -1
  call MPI_Win_create(exposed, int(4 * n, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierror)
  call check(ierror == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_create')
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierror)
  call MPI_Put([(100 * rank + i, i = 1, n)], n, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Put')
  call MPI_Win_fence(0, win, ierror)
  call check(all(exposed == [(100 * left + i, i = 1, n)]), 'MPI_Put under MPI_Win_fence')
  fetched = -1
  call MPI_Get(fetched, n - 2, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, n - 2, MPI_INTEGER, win, ierror)
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierror)
  call check(all(fetched(1:n - 2) == [(100 * rank + i, i = 3, n)]) .and. fetched(n) == -1, &
             'MPI_Get at a displacement under MPI_Win_fence')

  call MPI_Win_get_attr(win, MPI_WIN_SIZE, address, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag .and. address == 4 * n, 'MPI_Win_get_attr of MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, address, flag, ierror)
  call check(flag .and. address == 4, 'MPI_Win_get_attr of MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, address, flag, ierror)
  call check(flag .and. address == MPI_WIN_FLAVOR_CREATE, 'MPI_Win_get_attr of MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, address, flag, ierror)
  call check(flag .and. (address == MPI_WIN_UNIFIED .or. address == MPI_WIN_SEPARATE), &
             'MPI_Win_get_attr of MPI_WIN_MODEL')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, address, flag, ierror)
  call MPI_Get_address(exposed, base_address, ierror)
  call check(flag .and. address == base_address, 'MPI_Win_get_attr of MPI_WIN_BASE')
  call MPI_Win_set_name(win, 'fortran window', ierror)
  call MPI_Win_get_name(win, name, resultlen, ierror)
  call check(name == 'fortran window' .and. resultlen == 14, 'MPI_Win_set_name and MPI_Win_get_name')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierror)
  call MPI_Win_get_group(win, win_group, ierror)
  call MPI_Group_compare(world_group, win_group, i, ierror)
  call check(i == MPI_IDENT, 'MPI_Win_get_group')
  call MPI_Group_free(win_group, ierror)

  ! Errors on a window go to its handler: MPI_ERRORS_RETURN gives the class.
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierror)
  call MPI_Win_get_errhandler(win, handler, ierror)
  call check(handler == MPI_ERRORS_RETURN, 'MPI_Win_set_errhandler and MPI_Win_get_errhandler')
  call MPI_Win_call_errhandler(win, MPI_ERR_OTHER, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_call_errhandler under MPI_ERRORS_RETURN')
  call MPI_Win_complete(win, i)
  call MPI_Error_class(i, errorclass, ierror)
  call check(errorclass == MPI_ERR_RMA_SYNC, 'MPI_Win_complete without MPI_Win_start: MPI_ERR_RMA_SYNC')
  call MPI_Win_free(win, ierror)
  call check(ierror == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free')

  ! Memory the library allocates, seen through a Fortran pointer.
  call MPI_Win_allocate(int(4 * n, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_allocate')
  call c_f_pointer(C_PTR_OF(baseptr), allocated, [n])
  allocated = 0
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, address, flag, ierror)
  call check(flag .and. address == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_Win_get_attr of an allocated window''s flavor')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, address, flag, ierror)
  call check(flag .and. address == 4 * n, 'MPI_Win_get_attr of an allocated window''s size')

  ! Every rank adds rank + i to element i of every rank's window.
  call MPI_Win_fence(0, win, ierror)
  contribution = [(rank + i, i = 1, n)]
  do t = 0, ranks - 1
    call MPI_Accumulate(contribution, n, MPI_INTEGER, t, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, MPI_SUM, win, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_Accumulate')
  end do
  call MPI_Win_fence(0, win, ierror)
  call check(all(allocated == [(ranks * (ranks - 1) / 2 + ranks * i, i = 1, n)]), 'MPI_Accumulate MPI_SUM')
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierror)

  ! Post/start/complete/wait: each rank puts into its right neighbour.
  call MPI_Group_incl(world_group, 1, [left], origins, ierror)
  call MPI_Group_incl(world_group, 1, [right], targets, ierror)
  call MPI_Win_post(origins, 0, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_post')
  call MPI_Win_start(targets, 0, win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_start')
  call MPI_Put([(1000 * rank + i, i = 1, n)], n, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win, ierror)
  call MPI_Win_complete(win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_complete')
  flag = .false.
  do while (.not. flag)
    call MPI_Win_test(win, flag, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_Win_test')
  end do
  call check(all(allocated == [(1000 * left + i, i = 1, n)]), 'MPI_Put in a post/start epoch')

  ! Again, this time the neighbour reads and the exposure ends in MPI_Win_wait.
  call MPI_Win_post(origins, MPI_MODE_NOPUT, win, ierror)
  call MPI_Win_start(targets, 0, win, ierror)
  fetched = -1
  call MPI_Get(fetched, n, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win, ierror)
  call MPI_Win_complete(win, ierror)
  call MPI_Win_wait(win, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Win_wait')
  call check(all(fetched == [(1000 * rank + i, i = 1, n)]), 'MPI_Get in a post/start epoch')
  call MPI_Group_free(origins, ierror)
  call MPI_Group_free(targets, ierror)
  call MPI_Group_free(world_group, ierror)
  call MPI_Win_free(win, ierror)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free of an allocated window')

  call report_pass('fortran_rma', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_rma
