/* The shared driver of the OSU-style blocking collective benchmarks
 * (osu_barrier, osu_bcast, osu_reduce, osu_allreduce, osu_allgather,
 * osu_alltoall), after the method of the OSU Micro-Benchmarks' collective
 * latency tests. Per size (powers of two from -m MIN to MAX, bytes per rank;
 * the barrier has none), on every rank: MPI_Barrier, then -x warm-up and -i
 * timed calls of the collective, each timed alone with MPI_Wtime and
 * followed by an untimed MPI_Barrier, as OMB does, so that no rank runs
 * ahead into the next call; the rank's latency is the mean time of a timed
 * call. Rank 0 prints the average, minimum and maximum of the ranks'
 * latencies (MPI_Reduce) and the iterations:
 *
 *   # Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations
 *
 * (the barrier's line has size 0). After the timed calls of each size the
 * result is checked once on every rank; a wrong one stops the benchmark with
 * an error and MPI_Abort instead of numbers. Any number of ranks, 1
 * included. Standard C and mpi.h only. */
#ifndef TERN_OSU_COLL_H
#define TERN_OSU_COLL_H

/* The benchmarks, one entry each in osu_coll.c's table. */
enum osu_coll_kind {
  OSU_COLL_BARRIER,
  OSU_COLL_BCAST,
  OSU_COLL_REDUCE,
  OSU_COLL_ALLREDUCE,
  OSU_COLL_ALLGATHER,
  OSU_COLL_ALLTOALL
};

/* The whole benchmark between MPI_Init and MPI_Finalize (both called here);
 * the exit code. */
int osu_coll_main(int argc, char **argv, enum osu_coll_kind kind);

#endif
