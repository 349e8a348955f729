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
  procedure(MPI_Datarep_conversion_function_c) :: MPI_CONVERSION_FN_NULL_C

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

    ! The large-count forms whose callbacks alone differ from the int
    ! forms' (a procedure argument cannot tell a generic's specifics apart):
    ! procedures of their own names, as MPI 4.0 has them (user_op_c.cpp,
    ! datarep.cpp).
    subroutine MPI_Op_create_c(user_fn, commute, op, ierror)
      import
      implicit none
      procedure(MPI_User_function_c) :: user_fn
      logical, intent(in) :: commute
      type(MPI_Op), intent(out) :: op
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Op_create_c

    subroutine MPI_Register_datarep_c(datarep, read_conversion_fn, write_conversion_fn, &
        & dtype_file_extent_fn, extra_state, ierror)
      import
      implicit none
      character(len=*), intent(in) :: datarep
      procedure(MPI_Datarep_conversion_function_c) :: read_conversion_fn
      procedure(MPI_Datarep_conversion_function_c) :: write_conversion_fn
      procedure(MPI_Datarep_extent_function) :: dtype_file_extent_fn
      integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Register_datarep_c
  end interface
end module mpi_f08
