/* The shared driver of the OSU-style non-blocking collective benchmarks
 * (osu_iallreduce, osu_ibcast), after the method of the OSU Micro-Benchmarks'
 * NBC tests. Per size, on every rank:
 *
 *   pure      mean time of start + MPI_Wait, nothing between them
 *   compute   mean time of a busy loop (no MPI calls, clock_gettime, never
 *             MPI_Wtime) sized to the largest rank's pure time; with -t N it
 *             is cut into N pieces with an MPI_Test after each
 *   overall   mean time of start + compute + MPI_Wait
 *   overlap   max(0, min(100, 100 * (1 - (overall - compute) / pure)))
 *
 * each averaged over the ranks, as OMB prints them. 100% means the
 * collective went on entirely while the ranks computed. The result of the
 * last iteration of every size is checked; a wrong one stops the benchmark
 * with an error instead of numbers. Standard C and mpi.h only. */
#ifndef TERN_OSU_NBC_H
#define TERN_OSU_NBC_H

#include <mpi.h>
#include <stddef.h>

/* Starts one operation on `bytes` bytes of `send` (into `recv`). */
typedef void (*osu_nbc_start_fn)(void *send, void *recv, size_t bytes, MPI_Request *request);
/* Fills `send` before a size's runs; says whether `recv` holds the right
 * result after one (0: wrong). */
typedef void (*osu_nbc_fill_fn)(void *send, void *recv, size_t bytes, int rank);
typedef int (*osu_nbc_check_fn)(const void *send, const void *recv, size_t bytes, int rank, int size);

struct osu_nbc_benchmark {
  const char *name;   /* "osu_iallreduce" */
  const char *title;  /* "OSU MPI Non-blocking Allreduce Latency Test" */
  size_t min_size;    /* default smallest size */
  size_t unit;        /* sizes are multiples of this (an element) */
  osu_nbc_start_fn start;
  osu_nbc_fill_fn fill;
  osu_nbc_check_fn check;
};

/* The whole benchmark between MPI_Init and MPI_Finalize (both called here);
 * the exit code. */
int osu_nbc_main(int argc, char **argv, const struct osu_nbc_benchmark *benchmark);

#endif
