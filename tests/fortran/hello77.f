C     A fixed-form program with mpif.h, built by the mpif77 wrapper in a
C     test: mpif.h must stay within fixed form's 72 columns.
      PROGRAM HELLO77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, RANKS, TOTAL, IERR
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, RANKS, IERR)
      CALL MPI_ALLREDUCE(RANK, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) WRITE (*, '(A, I0)') 'fixed form sum ', TOTAL
      CALL MPI_FINALIZE(IERR)
      END
