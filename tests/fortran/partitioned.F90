! Partitioned communication from Fortran: ranks pair up (0 with 1, 2 with
! 3), the even one sends 8 partitions of 5 integers, marked ready in reverse
! order, by MPI_Pready_range and by MPI_Pready_list, into 2 partitions of 20
! on the odd one, which polls MPI_Parrived for each and checks its data as
! it lands; 3 epochs with new data each, then MPI_PROC_NULL requests and an
! error class. Every form: mpif.h, `use mpi`, `use mpi_f08`.
#include "forms.h"
program fortran_partitioned
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer, parameter :: partitions = 8, per_partition = 5, total = partitions * per_partition
  integer(kind=MPI_COUNT_KIND) :: count8
  integer :: rank, ranks, partner, ierror, i, p, epoch, errclass
  integer, asynchronous :: buffer(total)
  logical :: flag, seen(2)
  REQUEST_T :: request, nulls(2)
  STATUS_T :: status
  STATUS_ARRAY_T(2) :: statuses

  call MPI_Init(ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  partner = ieor(rank, 1)

  if (partner < ranks) then
    if (mod(rank, 2) == 0) then
      count8 = per_partition
      call MPI_Psend_init(buffer, partitions, count8, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &
                          request, ierror)
      call check(ierror == MPI_SUCCESS, 'MPI_Psend_init')
      do epoch = 1, 3
        call MPI_Start(request, ierror)
        call check(ierror == MPI_SUCCESS, 'MPI_Start of a partitioned send')
        buffer = [(1000 * epoch + i, i = 1, total)]
        if (epoch == 1) then
          do p = partitions - 1, 0, -1
            call MPI_Pready(p, request, ierror)
            call check(ierror == MPI_SUCCESS, 'MPI_Pready')
          end do
        else if (epoch == 2) then
          call MPI_Pready_range(0, partitions - 1, request, ierror)
          call check(ierror == MPI_SUCCESS, 'MPI_Pready_range')
        else
          call MPI_Pready_list(partitions, [(partitions - 1 - i, i = 0, partitions - 1)], request, ierror)
          call check(ierror == MPI_SUCCESS, 'MPI_Pready_list')
        end if
        call MPI_Wait(request, status, ierror)
        call check(ierror == MPI_SUCCESS, 'MPI_Wait on a partitioned send')
      end do
    else
      count8 = total / 2
      call MPI_Precv_init(buffer, 2, count8, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &
                          request, ierror)
      call check(ierror == MPI_SUCCESS, 'MPI_Precv_init')
      do epoch = 1, 3
        buffer = -1
        call MPI_Start(request, ierror)
        call check(ierror == MPI_SUCCESS, 'MPI_Start of a partitioned receive')
        seen = .false.
        do while (.not. all(seen))
          do p = 0, 1
            if (seen(p + 1)) cycle
            call MPI_Parrived(request, p, flag, ierror)
            call check(ierror == MPI_SUCCESS, 'MPI_Parrived')
            if (flag) then
              seen(p + 1) = .true.
              call check(all(buffer(p * total / 2 + 1:(p + 1) * total / 2) == &
                             [(1000 * epoch + i, i = p * total / 2 + 1, (p + 1) * total / 2)]), &
                         'a partition''s data as it arrives')
            end if
          end do
        end do
        call MPI_Wait(request, status, ierror)
        call check(ierror == MPI_SUCCESS, 'MPI_Wait on a partitioned receive')
        call check(FIELD(status, MPI_SOURCE) == partner .and. FIELD(status, MPI_TAG) == 7, &
                   'the status of a partitioned receive')
        call MPI_Get_count(status, MPI_INTEGER, i, ierror)
        call check(i == total, 'the count of a partitioned receive')
      end do
    end if
    call MPI_Request_free(request, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_Request_free of an inactive partitioned request')
  end if

  ! MPI_PROC_NULL peers: the epoch ends at once, every partition has arrived.
  count8 = 2
  call MPI_Psend_init(buffer, 4, count8, MPI_INTEGER, MPI_PROC_NULL, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &
                      nulls(1), ierror)
  call MPI_Precv_init(buffer, 4, count8, MPI_INTEGER, MPI_PROC_NULL, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &
                      nulls(2), ierror)
  call MPI_Startall(2, nulls, ierror)
  call MPI_Pready_range(0, 3, nulls(1), ierror)
  call MPI_Parrived(nulls(2), 3, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag, 'MPI_Parrived from MPI_PROC_NULL')
  call MPI_Waitall(2, nulls, statuses, ierror)
  call check(ierror == MPI_SUCCESS .and. FIELD_OF(statuses, 2, MPI_SOURCE) == MPI_PROC_NULL, &
             'MPI_Waitall on MPI_PROC_NULL partitioned requests')

  ! A partition outside the request: MPI_ERR_ARG, returned.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierror)
  call MPI_Start(nulls(1), ierror)
  call MPI_Pready(4, nulls(1), ierror)
  call MPI_Error_class(ierror, errclass, i)
  call check(errclass == MPI_ERR_ARG, 'MPI_Pready of a partition out of range')
  call MPI_Pready_range(0, 3, nulls(1), ierror)
  call MPI_Wait(nulls(1), status, ierror)
  call MPI_Request_free(nulls(1), ierror)
  call MPI_Request_free(nulls(2), ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Request_free')

  call report_pass('fortran_partitioned', FORM_NAME)
  call MPI_Finalize(ierror)
end program fortran_partitioned
