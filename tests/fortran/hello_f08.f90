! The smallest mpi_f08 program, built by the mpifort wrapper in a test.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, ranks
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  write (*, '(a, i0, a, i0)') 'hello from rank ', rank, ' of ', ranks
  call MPI_Finalize()
end program hello_f08
