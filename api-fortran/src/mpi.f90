! `use mpi`: the constants, the sentinels and explicit interfaces for every
! binding (the interfaces are generated, one module per family).
module mpi
  use tern_mpi_constants
  use tern_mpi_env
  use tern_mpi_comm
  use tern_mpi_p2p
  use tern_mpi_request
  use tern_mpi_coll
  use tern_mpi_coll_requests
  use tern_mpi_datatype
  use tern_mpi_info
  use tern_mpi_io
  use tern_mpi_topology
  use tern_mpi_neighbor
  use tern_mpi_win
  use tern_mpi_session
  use tern_mpi_dynamic
  implicit none
  public

  ! The predefined attribute callbacks (keyvals.cpp).
  external :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN
  external :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN
  external :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN
  external :: MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN  ! MPI-1's, for MPI_KEYVAL_CREATE
  external :: MPI_CONVERSION_FN_NULL  ! MPI_REGISTER_DATAREP's "no conversion" (datarep.cpp)

  ! The same common blocks as mpif.h's: the library recognises these addresses.
  integer :: MPI_BOTTOM, MPI_IN_PLACE
  integer :: MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
  integer :: MPI_STATUSES_IGNORE(MPI_STATUS_SIZE, 1)
  integer :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)
  character(len=1) :: MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1, 1)
  integer :: MPI_ERRCODES_IGNORE(1)
  common /tern_mpi_bottom/ MPI_BOTTOM
  common /tern_mpi_in_place/ MPI_IN_PLACE
  common /tern_mpi_status_ignore/ MPI_STATUS_IGNORE
  common /tern_mpi_statuses_ignore/ MPI_STATUSES_IGNORE
  common /tern_mpi_unweighted/ MPI_UNWEIGHTED
  common /tern_mpi_weights_empty/ MPI_WEIGHTS_EMPTY
  common /tern_mpi_argv_null/ MPI_ARGV_NULL
  common /tern_mpi_argvs_null/ MPI_ARGVS_NULL
  common /tern_mpi_errcodes_ignore/ MPI_ERRCODES_IGNORE
end module mpi
