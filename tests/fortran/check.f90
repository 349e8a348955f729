! What every Fortran test program uses: a failed check prints FAIL and ends
! the whole job with a non-zero exit code.
module fortran_check
  implicit none
  private
  public :: check, report_pass

contains

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    include 'mpif.h'
    integer :: ierror
    if (.not. condition) then
      write (*, '(a, a)') 'FAIL: ', what
      flush (6)
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierror)
    end if
  end subroutine check

  subroutine report_pass(program_name, form_name)
    character(len=*), intent(in) :: program_name, form_name
    include 'mpif.h'
    integer :: rank, ranks, ierror
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierror)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, ranks, ierror)
    call MPI_BARRIER(MPI_COMM_WORLD, ierror)
    if (rank == 0) write (*, '(a, a, a, a, i0, a)') program_name, '_', form_name, ': PASS on ', ranks, ' ranks'
  end subroutine report_pass
end module fortran_check
