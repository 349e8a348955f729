! Point-to-point from Fortran: blocking, non-blocking, wait/test forms,
! probes, sendrecv, status fields, MPI_STATUS_IGNORE, MPI_PROC_NULL,
! persistent requests, matched probes, buffered sends.
#include "forms.h"
program fortran_p2p
  USE_MPI
#if defined(TERN_FORM_F08)
  use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_associated
#endif
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, right, left, ierror, i, count, index
  ! Buffers that requests use after the call that takes them returned: the
  ! compiler must neither cache nor reorder their accesses around MPI calls.
  integer, asynchronous :: sent(10), received(10)
  double precision :: send_value, got_value
  real :: probed(5)
  character(len=12) :: text
  logical :: flag
  STATUS_T :: status
  STATUS_ARRAY_T(2) :: statuses
  REQUEST_T :: requests(2)
  MESSAGE_T :: message
  integer :: round, done, indices(2)
  integer, target :: attached(1024)
#if defined(TERN_FORM_F08)
  type(c_ptr) :: detached
  type(MPI_Status) :: converted
  integer :: integer_status(MPI_STATUS_SIZE)
#endif

  call MPI_Init(ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  right = mod(rank + 1, ranks)
  left = mod(rank + ranks - 1, ranks)

  ! Ring: Isend right, Recv from the left with a status.
  sent = [(rank * 100 + i, i = 1, 10)]
  call MPI_Isend(sent, 10, MPI_INTEGER, right, 7, MPI_COMM_WORLD, requests(1), ierror)
  received = -1
  call MPI_Recv(received, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Recv ierror')
  call check(FIELD(status, MPI_SOURCE) == left, 'status MPI_SOURCE')
  call check(FIELD(status, MPI_TAG) == 7, 'status MPI_TAG')
  call MPI_Get_count(status, MPI_INTEGER, count, ierror)
  call check(count == 10, 'MPI_Get_count')
  call check(all(received == [(left * 100 + i, i = 1, 10)]), 'ring data')
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierror)
  call check(requests(1) == MPI_REQUEST_NULL, 'MPI_Wait frees the request')

#if defined(TERN_FORM_F08)
  ! A type(MPI_Status) into the integer array of the older forms and back.
  call MPI_Status_f082f(status, integer_status, ierror)
  call check(integer_status(MPI_SOURCE) == left .and. integer_status(MPI_TAG) == 7, 'MPI_Status_f082f')
  call MPI_Status_f2f08(integer_status, converted, ierror)
  call MPI_Get_count(converted, MPI_INTEGER, count, ierror)
  call check(converted%MPI_SOURCE == left .and. count == 10, 'MPI_Status_f2f08')
#endif

  ! Sendrecv with MPI_STATUS_IGNORE.
  send_value = 1.5d0 * rank
  got_value = -1
  call MPI_Sendrecv(send_value, 1, MPI_DOUBLE_PRECISION, right, 11, got_value, 1, MPI_DOUBLE_PRECISION, &
                    left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
  call check(abs(got_value - 1.5d0 * left) < 1d-12, 'MPI_Sendrecv')
  ! Recognised by its address, MPI_STATUS_IGNORE itself is never written.
  call check(FIELD(MPI_STATUS_IGNORE, MPI_TAG) /= 11, 'MPI_STATUS_IGNORE written to')

  ! Irecv + Isend + Waitall with statuses.
  received = 0
  call MPI_Irecv(received, 10, MPI_INTEGER, left, 21, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Isend(sent, 10, MPI_INTEGER, right, 21, MPI_COMM_WORLD, requests(2), ierror)
  call MPI_Waitall(2, requests, statuses, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Waitall ierror')
  call check(FIELD_OF(statuses, 1, MPI_SOURCE) == left, 'Waitall status 1 source')
  call check(FIELD_OF(statuses, 1, MPI_TAG) == 21, 'Waitall status 1 tag')
  call check(all(received == [(left * 100 + i, i = 1, 10)]), 'Waitall data')
  call check(requests(1) == MPI_REQUEST_NULL .and. requests(2) == MPI_REQUEST_NULL, 'Waitall requests')

  ! MPI_Test until done; the flag is a LOGICAL.
  call MPI_Irecv(got_value, 1, MPI_DOUBLE_PRECISION, left, 31, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Send(send_value, 1, MPI_DOUBLE_PRECISION, right, 31, MPI_COMM_WORLD, ierror)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(requests(1), flag, status, ierror)
  end do
  call check(FIELD(status, MPI_TAG) == 31 .and. abs(got_value - 1.5d0 * left) < 1d-12, 'MPI_Test')

  ! Waitany: indices count from 1.
  call MPI_Irecv(got_value, 1, MPI_DOUBLE_PRECISION, left, 41, MPI_COMM_WORLD, requests(2), ierror)
  requests(1) = MPI_REQUEST_NULL
  call MPI_Ssend(send_value, 1, MPI_DOUBLE_PRECISION, right, 41, MPI_COMM_WORLD, ierror)
  call MPI_Waitany(2, requests, index, status, ierror)
  call check(index == 2, 'MPI_Waitany index counts from 1')
  call MPI_Waitany(2, requests, index, status, ierror)
  call check(index == MPI_UNDEFINED, 'MPI_Waitany on no active request')

  ! Probe, then receive what the probe saw.
  if (rank == 0) then
    probed = [(real(i) / 2, i = 1, 5)]
    call MPI_Send(probed, 5, MPI_REAL, ranks - 1, 3, MPI_COMM_WORLD, ierror)
  end if
  if (rank == ranks - 1) then
    call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierror)
    call check(FIELD(status, MPI_SOURCE) == 0 .and. FIELD(status, MPI_TAG) == 3, 'MPI_Probe status')
    call MPI_Get_count(status, MPI_REAL, count, ierror)
    call check(count == 5, 'MPI_Probe count')
    probed = 0
    call MPI_Recv(probed, count, MPI_REAL, FIELD(status, MPI_SOURCE), FIELD(status, MPI_TAG), &
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
    call check(all(abs(probed - [(real(i) / 2, i = 1, 5)]) < 1e-6), 'probed data')
  end if

  ! Iprobe until a CHARACTER message arrives.
  if (rank == 0) call MPI_Send('hello fortran', 12, MPI_CHARACTER, right, 5, MPI_COMM_WORLD, ierror)
  if (rank == right .or. (ranks == 1)) then
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(0, 5, MPI_COMM_WORLD, flag, status, ierror)
    end do
    call MPI_Recv(text, 12, MPI_CHARACTER, 0, 5, MPI_COMM_WORLD, status, ierror)
    call check(text == 'hello fortra', 'MPI_CHARACTER data')
  end if

  ! MPI_PROC_NULL: an empty receive from nobody.
  call MPI_Recv(received, 10, MPI_INTEGER, MPI_PROC_NULL, 1, MPI_COMM_WORLD, status, ierror)
  call check(FIELD(status, MPI_SOURCE) == MPI_PROC_NULL, 'MPI_PROC_NULL source')
  call MPI_Get_count(status, MPI_INTEGER, count, ierror)
  call check(count == 0, 'MPI_PROC_NULL count')

  ! No message of what follows may reach the MPI_ANY_SOURCE probe above.
  call MPI_Barrier(MPI_COMM_WORLD, ierror)

  ! Persistent requests, started twice with Startall and ended with Waitsome
  ! (1-based indices) and Testall.
  call MPI_Recv_init(received, 10, MPI_INTEGER, left, 51, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Send_init(sent, 10, MPI_INTEGER, right, 51, MPI_COMM_WORLD, requests(2), ierror)
  do round = 1, 2
    sent = [(round * 1000 + rank * 100 + i, i = 1, 10)]
    received = -1
    call MPI_Startall(2, requests, ierror)
    done = 0
    do while (done < 2)
      call MPI_Waitsome(2, requests, count, indices, statuses, ierror)
      call check(count >= 1 .and. all(indices(1:count) >= 1 .and. indices(1:count) <= 2), 'MPI_Waitsome indices')
      done = done + count
    end do
    call MPI_F_sync_reg(received)
    call check(all(received == [(round * 1000 + left * 100 + i, i = 1, 10)]), 'persistent data')
  end do
  call MPI_Startall(2, requests, ierror)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, requests, flag, MPI_STATUSES_IGNORE, ierror)
  end do
  call MPI_Request_free(requests(1), ierror)
  call MPI_Request_free(requests(2), ierror)
  call check(requests(1) == MPI_REQUEST_NULL, 'MPI_Request_free')

  ! Matched probe: the message taken out of matching is received by handle.
  call MPI_Isend(sent, 3, MPI_INTEGER, right, 61, MPI_COMM_WORLD, requests(1), ierror)
  call MPI_Mprobe(left, 61, MPI_COMM_WORLD, message, status, ierror)
  call MPI_Get_count(status, MPI_INTEGER, count, ierror)
  call check(count == 3, 'MPI_Mprobe count')
  received = -1
  call MPI_Mrecv(received, count, MPI_INTEGER, message, status, ierror)
  call check(message == MPI_MESSAGE_NULL .and. all(received(1:3) == [(2000 + left * 100 + i, i = 1, 3)]), &
             'MPI_Mrecv')
  call MPI_Wait(requests(1), status, ierror)

  ! Buffered send through an attached buffer.
  call MPI_Buffer_attach(attached, size(attached) * 4, ierror)
  call MPI_Bsend(sent, 10, MPI_INTEGER, right, 71, MPI_COMM_WORLD, ierror)
  call MPI_Recv(received, 10, MPI_INTEGER, left, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
  call check(all(received == [(2000 + left * 100 + i, i = 1, 10)]), 'MPI_Bsend data')
#if defined(TERN_FORM_F08)
  call MPI_Buffer_detach(detached, count, ierror)
  call check(c_associated(detached, c_loc(attached)), 'MPI_Buffer_detach address')
#else
  call MPI_Buffer_detach(attached, count, ierror)
#endif
  call check(ierror == MPI_SUCCESS .and. count == size(attached) * 4, 'MPI_Buffer_detach size')

  call report_pass('fortran_p2p', FORM_NAME)
#if defined(TERN_FORM_F08)
  call MPI_Finalize()
#else
  call MPI_Finalize(ierror)
#endif
end program fortran_p2p
