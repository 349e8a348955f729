/* Conversions between C's MPI_Status and the statuses of Fortran programs
 * (MPI_Status_c2f, MPI_F08_status, MPI_F_STATUS_IGNORE, ...): MPI 4.0 puts
 * them in mpi.h, and Tern's libtern_mpi defines them, so that C programs
 * without Fortran have them too. This header stays for the programs that
 * include it. */
#ifndef TERN_MPI_FORTRAN_H
#define TERN_MPI_FORTRAN_H

#include <mpi.h>

#endif /* TERN_MPI_FORTRAN_H */
