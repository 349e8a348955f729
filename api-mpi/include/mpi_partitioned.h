/* MPI 4.0 partitioned point-to-point communication, included by mpi.h inside its extern "C" block with
 * TERN_MPI_API defined: include mpi.h, not this file.
 *
 * MPI_Psend_init and MPI_Precv_init make inactive persistent requests of `partitions` partitions of `count`
 * elements each; MPI_Start/MPI_Startall begin an epoch, MPI_Wait/MPI_Test and their array forms end it,
 * MPI_Request_free frees an inactive one. Each send partition leaves as soon as it is marked ready
 * (MPI_Pready*), and MPI_Parrived says whether a receive partition has landed. The two sides may split the
 * data differently, as long as the totals agree (checked when the first epoch matches: both sides' waits
 * end with MPI_ERR_TRUNCATE otherwise). Sources and tags are exact: no MPI_ANY_SOURCE or MPI_ANY_TAG. */
#ifndef TERN_MPI_PARTITIONED_H
#define TERN_MPI_PARTITIONED_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_partitioned.h"
#endif

TERN_MPI_API(int, Psend_init, (const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
TERN_MPI_API(int, Precv_init, (void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                               int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
/* Send side, active requests only; a partition may be marked once per epoch (MPI_ERR_OTHER otherwise). */
TERN_MPI_API(int, Pready, (int partition, MPI_Request request))
TERN_MPI_API(int, Pready_range, (int partition_low, int partition_high, MPI_Request request))
TERN_MPI_API(int, Pready_list, (int length, const int array_of_partitions[], MPI_Request request))
/* Receive side: *flag true once every byte of the partition is in the buffer (and on an inactive request). */
TERN_MPI_API(int, Parrived, (MPI_Request request, int partition, int *flag))

#endif /* TERN_MPI_PARTITIONED_H */
