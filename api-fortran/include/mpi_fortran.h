/* Conversions between C's MPI_Status and the statuses of Fortran programs:
 * the integer array of mpif.h and `use mpi` (MPI_Fint[MPI_STATUS_SIZE]) and
 * mpi_f08's type(MPI_Status) (MPI_F08_status), for C code called from
 * Fortran. Defined in libtern_mpifort, which mpifort links. */
#ifndef TERN_MPI_FORTRAN_H
#define TERN_MPI_FORTRAN_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* type(MPI_Status) has the C status's layout. */
typedef MPI_Status MPI_F08_status;

/* The Fortran MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, as C sees them. */
extern MPI_Fint tern_mpi_status_ignore_[];
extern MPI_Fint tern_mpi_statuses_ignore_[];
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)tern_mpi_status_ignore_)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)tern_mpi_statuses_ignore_)
#define MPI_F08_STATUS_IGNORE ((MPI_F08_status *)tern_mpi_status_ignore_)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)tern_mpi_statuses_ignore_)

#define TERN_MPI_FORTRAN_API(name, params) int MPI_##name params; int PMPI_##name params;
TERN_MPI_FORTRAN_API(Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
TERN_MPI_FORTRAN_API(Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
TERN_MPI_FORTRAN_API(Status_c2f08, (const MPI_Status *c_status, MPI_F08_status *f08_status))
TERN_MPI_FORTRAN_API(Status_f082c, (const MPI_F08_status *f08_status, MPI_Status *c_status))
TERN_MPI_FORTRAN_API(Status_f2f08, (const MPI_Fint *f_status, MPI_F08_status *f08_status))
TERN_MPI_FORTRAN_API(Status_f082f, (const MPI_F08_status *f08_status, MPI_Fint *f_status))
#undef TERN_MPI_FORTRAN_API

#ifdef __cplusplus
}
#endif

#endif /* TERN_MPI_FORTRAN_H */
