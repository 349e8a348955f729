/* MPI status conversions between C and Fortran, included by mpi.h inside its extern "C" block with TERN_MPI_API
 * defined: include mpi.h, not this file. */
#ifndef TERN_MPI_STATUS_CONVERSIONS_H
#define TERN_MPI_STATUS_CONVERSIONS_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_status_conversions.h"
#endif

/* The statuses of Fortran programs, as C sees them (MPI 4.0 section 19.3.5).
 * mpif.h's and `use mpi`'s status is MPI_F_STATUS_SIZE integers holding an
 * MPI_Status's bytes, its public fields at the indexes MPI_F_SOURCE,
 * MPI_F_TAG and MPI_F_ERROR; mpi_f08's TYPE(MPI_Status) is MPI_F08_status,
 * the C status's layout. The Fortran MPI_STATUS(ES)_IGNORE are the
 * addresses of two Fortran common blocks. */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
typedef MPI_Status MPI_F08_status;
extern MPI_Fint tern_mpi_status_ignore_[];
extern MPI_Fint tern_mpi_statuses_ignore_[];
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)tern_mpi_status_ignore_)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)tern_mpi_statuses_ignore_)
#define MPI_F08_STATUS_IGNORE ((MPI_F08_status *)tern_mpi_status_ignore_)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)tern_mpi_statuses_ignore_)

/* Status conversions (MPI 4.0 section 19.3.5); a null or IGNORE status is MPI_ERR_ARG. Callable before MPI_Init. */
TERN_MPI_API(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
TERN_MPI_API(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
TERN_MPI_API(int, Status_c2f08, (const MPI_Status *c_status, MPI_F08_status *f08_status))
TERN_MPI_API(int, Status_f082c, (const MPI_F08_status *f08_status, MPI_Status *c_status))
TERN_MPI_API(int, Status_f2f08, (const MPI_Fint *f_status, MPI_F08_status *f08_status))
TERN_MPI_API(int, Status_f082f, (const MPI_F08_status *f08_status, MPI_Fint *f_status))

#endif /* TERN_MPI_STATUS_CONVERSIONS_H */
