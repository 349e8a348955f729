! The three ways a Fortran program sees MPI, chosen by -DTERN_FORM_*, so that
! one test source runs as an mpif.h, a `use mpi` and a `use mpi_f08` program.
#if defined(TERN_FORM_F08)
#define FORM_NAME 'f08'
#define USE_MPI use mpi_f08
#define INCLUDE_MPIF
#define COMM_T type(MPI_Comm)
#define DATATYPE_T type(MPI_Datatype)
#define REQUEST_T type(MPI_Request)
#define GROUP_T type(MPI_Group)
#define MESSAGE_T type(MPI_Message)
#define INFO_T type(MPI_Info)
#define FILE_T type(MPI_File)
#define WIN_T type(MPI_Win)
#define SESSION_T type(MPI_Session)
#define ERRHANDLER_T type(MPI_Errhandler)
#define OP_T type(MPI_Op)
#define STATUS_T type(MPI_Status)
#define STATUS_ARRAY_T(n) type(MPI_Status), dimension(n)
#define FIELD(status, name) status%name
#define FIELD_OF(statuses, i, name) statuses(i)%name
#elif defined(TERN_FORM_MPI)
#define FORM_NAME 'mpi'
#define USE_MPI use mpi
#define INCLUDE_MPIF
#else
#define FORM_NAME 'mpif'
#define USE_MPI
#define INCLUDE_MPIF include 'mpif.h'
#endif
#if !defined(TERN_FORM_F08)
#define COMM_T integer
#define DATATYPE_T integer
#define REQUEST_T integer
#define GROUP_T integer
#define MESSAGE_T integer
#define INFO_T integer
#define FILE_T integer
#define WIN_T integer
#define SESSION_T integer
#define ERRHANDLER_T integer
#define OP_T integer
#define STATUS_T integer, dimension(MPI_STATUS_SIZE)
#define STATUS_ARRAY_T(n) integer, dimension(MPI_STATUS_SIZE, n)
#define FIELD(status, name) status(name)
#define FIELD_OF(statuses, i, name) statuses(name, i)
#endif
! A base address (MPI_Win_allocate, ...): mpif.h's form takes an
! INTEGER(KIND=MPI_ADDRESS_KIND); `use mpi` also, and mpi_f08 only, a
! TYPE(C_PTR). C_PTR_OF gives the TYPE(C_PTR) for C_F_POINTER.
#if defined(TERN_FORM_MPIF)
#define BASEPTR_T integer(kind=MPI_ADDRESS_KIND)
#define C_PTR_OF(address) transfer(address, c_null_ptr)
#else
#define BASEPTR_T type(c_ptr)
#define C_PTR_OF(address) address
#endif
