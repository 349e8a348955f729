/* What a rank's MPI calls cost it outside its computation, one rank alone:
 * MPI_Irecv and MPI_Isend of a message to itself, a busy loop of COMPUTE
 * microseconds without MPI calls, then MPI_Waitall. The time of the calls
 * is printed per iteration (the median of ROUNDS rounds of ITERATIONS).
 * With a progress thread the message moves during the loop and the calls
 * only post and collect; what they cost then is mostly the worker's lock,
 * which the polling thread holds between the program's calls.
 *
 *   cc -O2 -o call_overhead bench/call_overhead.c   (with Tern's mpicc)
 *   TERN_PROGRESS=thread TERN_PROGRESS_CPUS=0 ternrun -n 1 --bind-to none \
 *     taskset -c 1 ./call_overhead [BYTES [COMPUTE [ITERATIONS [ROUNDS]]]]
 *
 * (the rank on CPU 1, its progress thread on CPU 0; default 4096 bytes,
 * 3 us, 50000 iterations, 5 rounds). */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static volatile double sink;

static void compute(double microseconds) {
  const double end = now_us() + microseconds;
  double x = 1;
  while (now_us() < end) {
    for (int i = 0; i < 50; ++i) x = x * 1.0000001 + 1e-9;
  }
  sink = x;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int bytes = argc > 1 ? atoi(argv[1]) : 4096;
  const double compute_us = argc > 2 ? atof(argv[2]) : 3.0;
  const int iterations = argc > 3 ? atoi(argv[3]) : 50000;
  const int rounds = argc > 4 ? atoi(argv[4]) : 5;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *send = calloc((size_t)bytes + 1, 1), *receive = calloc((size_t)bytes + 1, 1);
  double *per_round = calloc((size_t)rounds + 1, sizeof(double));
  if (bytes < 0 || iterations < 1 || rounds < 1 || send == NULL || receive == NULL || per_round == NULL) {
    fprintf(stderr, "call_overhead: bad arguments (BYTES >= 0, ITERATIONS >= 1, ROUNDS >= 1)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int round = 0; round < rounds; ++round) {
    double in_calls = 0;
    for (int i = 0; i < iterations; ++i) {
      MPI_Request requests[2];
      const double posting = now_us();
      MPI_Irecv(receive, bytes, MPI_CHAR, rank, 1, MPI_COMM_WORLD, &requests[0]);
      MPI_Isend(send, bytes, MPI_CHAR, rank, 1, MPI_COMM_WORLD, &requests[1]);
      const double posted = now_us();
      compute(compute_us);
      const double waiting = now_us();
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
      in_calls += (posted - posting) + (now_us() - waiting);
    }
    per_round[round] = in_calls / iterations;
  }
  qsort(per_round, (size_t)rounds, sizeof(double), by_value);
  printf("%d bytes, %.1f us of compute: %.3f us in MPI calls per iteration (median of %d rounds, %.3f-%.3f)\n",
         bytes, compute_us, per_round[rounds / 2], rounds, per_round[0], per_round[rounds - 1]);
  free(send);
  free(receive);
  free(per_round);
  MPI_Finalize();
  return 0;
}
