! `use mpi_f08`: typed handles, type(MPI_Status), an optional ierror, and
! the conversions between a status of mpif.h or `use mpi` (an integer array)
! and a type(MPI_Status).
module mpi_f08
  use tern_mpi_f08_types
  use tern_mpi_f08_constants
  use tern_mpi_f08_env
  use tern_mpi_f08_comm
  use tern_mpi_f08_p2p
  use tern_mpi_f08_request
  use tern_mpi_f08_coll
  use tern_mpi_f08_coll_requests
  use tern_mpi_f08_datatype
  use tern_mpi_f08_info
  use tern_mpi_f08_io
  use tern_mpi_f08_topology
  use tern_mpi_f08_neighbor
  use tern_mpi_f08_win
  use tern_mpi_f08_session
  use tern_mpi_f08_dynamic
  ! The large-count specifics of the generics above (MPI_Send_c_f08, ...).
  use tern_mpi_f08_p2p_c
  use tern_mpi_f08_coll_c
  use tern_mpi_f08_coll_requests_c
  use tern_mpi_f08_datatype_c
  use tern_mpi_f08_io_c
  use tern_mpi_f08_neighbor_c
  use tern_mpi_f08_win_c
  implicit none
  public

  ! The predefined attribute callbacks (keyvals.cpp).
  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN
  procedure(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN
  procedure(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN
  procedure(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN
  procedure(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN
  procedure(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN
  ! No conversion in that direction (datarep.cpp).
  procedure(MPI_Datarep_conversion_function) :: MPI_CONVERSION_FN_NULL

  interface
    subroutine MPI_Status_f2f08(f_status, f08_status, ierror)
      import
      implicit none
      integer, intent(in) :: f_status(MPI_STATUS_SIZE)
      type(MPI_Status), intent(out) :: f08_status
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Status_f2f08

    subroutine MPI_Status_f082f(f08_status, f_status, ierror)
      import
      implicit none
      type(MPI_Status), intent(in) :: f08_status
      integer, intent(out) :: f_status(MPI_STATUS_SIZE)
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Status_f082f
  end interface
end module mpi_f08
