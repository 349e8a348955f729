! mpi_f08's types. A handle is its C handle (MPI_VAL, tern_mpi_f08_handles),
! and type(MPI_Status) has the C status's layout, so both pass by reference
! to the same entry points as the integers of mpif.h and `use mpi`.
module tern_mpi_f08_types
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr
  use tern_mpi_constants, only: MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_OFFSET_KIND, MPI_STATUS_SIZE
  use tern_mpi_f08_handles
  implicit none
  private
  public :: MPI_Comm, MPI_Datatype, MPI_Errhandler, MPI_File, MPI_Group, MPI_Info, MPI_Message, MPI_Op, MPI_Request, &
            MPI_Session, MPI_Win
  public :: operator(==), operator(/=)

  ! MPI_SOURCE, MPI_TAG and MPI_ERROR are the C status's first three fields;
  ! the rest (cancelled flag, byte count) belongs to the library.
  type, bind(C), public :: MPI_Status
    integer(c_int) :: MPI_SOURCE
    integer(c_int) :: MPI_TAG
    integer(c_int) :: MPI_ERROR
    integer(c_int) :: tern_internal(MPI_STATUS_SIZE - 3)
  end type MPI_Status

  ! The same common blocks as mpif.h's and the mpi module's.
  integer, public :: MPI_BOTTOM, MPI_IN_PLACE
  type(MPI_Status), public :: MPI_STATUS_IGNORE
  type(MPI_Status), public :: MPI_STATUSES_IGNORE(1)
  integer, public :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)
  character(len=1), public :: MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1, 1)
  integer, public :: MPI_ERRCODES_IGNORE(1)
  common /tern_mpi_bottom/ MPI_BOTTOM
  common /tern_mpi_in_place/ MPI_IN_PLACE
  common /tern_mpi_status_ignore/ MPI_STATUS_IGNORE
  common /tern_mpi_statuses_ignore/ MPI_STATUSES_IGNORE
  common /tern_mpi_unweighted/ MPI_UNWEIGHTED
  common /tern_mpi_weights_empty/ MPI_WEIGHTS_EMPTY
  common /tern_mpi_argv_null/ MPI_ARGV_NULL
  common /tern_mpi_argvs_null/ MPI_ARGVS_NULL
  common /tern_mpi_errcodes_ignore/ MPI_ERRCODES_IGNORE

  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import :: c_ptr, MPI_Datatype
      implicit none
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function

    ! MPI_Op_create_c's: the length as an MPI_COUNT_KIND integer.
    subroutine MPI_User_function_c(invec, inoutvec, len, datatype)
      import :: c_ptr, MPI_Datatype, MPI_COUNT_KIND
      implicit none
      type(c_ptr), value :: invec, inoutvec
      integer(kind=MPI_COUNT_KIND) :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function_c
  end interface
  public :: MPI_User_function, MPI_User_function_c

  ! Error handlers take the object's handle and the error code by reference.
  abstract interface
    subroutine MPI_Comm_errhandler_function(comm, error_code)
      import :: MPI_Comm
      implicit none
      type(MPI_Comm) :: comm
      integer :: error_code
    end subroutine MPI_Comm_errhandler_function

    subroutine MPI_Win_errhandler_function(win, error_code)
      import :: MPI_Win
      implicit none
      type(MPI_Win) :: win
      integer :: error_code
    end subroutine MPI_Win_errhandler_function

    subroutine MPI_File_errhandler_function(file, error_code)
      import :: MPI_File
      implicit none
      type(MPI_File) :: file
      integer :: error_code
    end subroutine MPI_File_errhandler_function

    subroutine MPI_Session_errhandler_function(session, error_code)
      import :: MPI_Session
      implicit none
      type(MPI_Session) :: session
      integer :: error_code
    end subroutine MPI_Session_errhandler_function
  end interface
  public :: MPI_Comm_errhandler_function, MPI_Win_errhandler_function, MPI_File_errhandler_function, &
            MPI_Session_errhandler_function

  ! Attribute callbacks take every argument by reference, ierror last; values
  ! and extra_state are address-sized integers.
  abstract interface
    subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, &
                                           flag, ierror)
      import :: MPI_Comm, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Comm_copy_attr_function

    subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
      import :: MPI_Comm, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Comm) :: comm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Comm_delete_attr_function

    subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out, &
                                           flag, ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Datatype) :: oldtype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Type_copy_attr_function

    subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, extra_state, ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Datatype) :: datatype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Type_delete_attr_function

    subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out, &
                                          flag, ierror)
      import :: MPI_Win, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Win) :: oldwin
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Win_copy_attr_function

    subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)
      import :: MPI_Win, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Win) :: win
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Win_delete_attr_function
  end interface
  public :: MPI_Comm_copy_attr_function, MPI_Comm_delete_attr_function, MPI_Type_copy_attr_function, &
            MPI_Type_delete_attr_function, MPI_Win_copy_attr_function, MPI_Win_delete_attr_function

  ! Generalized requests' callbacks (MPI_Grequest_start): extra_state is an
  ! address-sized integer, ierror the callback's result.
  abstract interface
    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import :: MPI_Status, MPI_ADDRESS_KIND
      implicit none
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine MPI_Grequest_query_function

    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import :: MPI_ADDRESS_KIND
      implicit none
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Grequest_free_function

    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import :: MPI_ADDRESS_KIND
      implicit none
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine MPI_Grequest_cancel_function
  end interface
  public :: MPI_Grequest_query_function, MPI_Grequest_free_function, MPI_Grequest_cancel_function

  ! User data representations' callbacks (MPI_Register_datarep): the buffers
  ! come as C addresses, by value.
  abstract interface
    subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, position, extra_state, ierror)
      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND
      implicit none
      type(c_ptr), value :: userbuf, filebuf
      type(MPI_Datatype) :: datatype
      integer :: count, ierror
      integer(kind=MPI_OFFSET_KIND) :: position
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
    end subroutine MPI_Datarep_conversion_function

    ! MPI_Register_datarep_c's: the count as an MPI_COUNT_KIND integer.
    subroutine MPI_Datarep_conversion_function_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND, MPI_COUNT_KIND
      implicit none
      type(c_ptr), value :: userbuf, filebuf
      type(MPI_Datatype) :: datatype
      integer(kind=MPI_COUNT_KIND) :: count
      integer :: ierror
      integer(kind=MPI_OFFSET_KIND) :: position
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
    end subroutine MPI_Datarep_conversion_function_c

    subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      implicit none
      type(MPI_Datatype) :: datatype
      integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
      integer :: ierror
    end subroutine MPI_Datarep_extent_function
  end interface
  public :: MPI_Datarep_conversion_function, MPI_Datarep_conversion_function_c, MPI_Datarep_extent_function
end module tern_mpi_f08_types
