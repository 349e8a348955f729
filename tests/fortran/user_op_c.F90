! mpi_f08's MPI_Op_create_c (a procedure of its own name in MPI 4.0, since
! its callback alone differs from MPI_Op_create's): the operation gets its
! length as an MPI_COUNT_KIND integer, and is used by an allreduce with a
! default integer count and a reduce with an MPI_COUNT_KIND one.
! MPI_Register_datarep_c is in datarep.F90.
module user_op_c_callbacks
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  implicit none
  integer(kind=MPI_COUNT_KIND), save :: longest = 0
contains
  ! inoutvec = invec + 2 * inoutvec: not commutative, so the rank order shows.
  subroutine twice_plus(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + 2 * b
    longest = max(longest, len)
  end subroutine twice_plus
end module user_op_c_callbacks

program fortran_user_op_c
  use mpi_f08
  use fortran_check
  use user_op_c_callbacks
  implicit none
  integer, parameter :: n = 5
  integer(kind=MPI_COUNT_KIND), parameter :: n8 = n
  integer :: rank, ranks, ierror, i, r, values(n), result(n), expected(n)
  type(MPI_Op) :: op

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)

  call MPI_Op_create_c(twice_plus, .false., op, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Op_create_c')
  do i = 1, n
    values(i) = rank + 10 * i
  end do
  ! x0 op (x1 op (... op xp-1)), with a op b = a + 2 b.
  do i = 1, n
    expected(i) = 10 * i + ranks - 1
    do r = ranks - 2, 0, -1
      expected(i) = (10 * i + r) + 2 * expected(i)
    end do
  end do
  result = -1
  call MPI_Allreduce(values, result, n, MPI_INTEGER, op, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. all(result == expected), 'an allreduce of int count with the _c operation')
  result = -1
  call MPI_Reduce(values, result, n8, MPI_INTEGER, op, 0, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. (rank /= 0 .or. all(result == expected)), &
             'a reduce of MPI_COUNT_KIND count with the _c operation')
  call check(ranks == 1 .or. rank /= 0 .or. longest == n, 'the operation got the vector length')
  call MPI_Op_free(op, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Op_free')

  call report_pass('fortran_user_op_c', 'f08')
  call MPI_Finalize(ierror)
end program fortran_user_op_c
