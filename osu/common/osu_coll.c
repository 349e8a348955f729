/* The driver of the blocking collective benchmarks (osu_coll.h) and what
 * each of them calls, fills and checks. */
#include "common/osu_coll.h"

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

/* One call of the collective on `bytes` bytes per rank. */
typedef void (*osu_coll_run_fn)(void *send, void *recv, size_t bytes);
/* Fills the buffers before a size's calls; says whether they hold the right
 * result after them (0: wrong). Both run on every rank. */
typedef void (*osu_coll_fill_fn)(void *send, void *recv, size_t bytes, int rank, int size);
typedef int (*osu_coll_check_fn)(const void *send, const void *recv, size_t bytes, int rank, int size);

struct osu_coll_benchmark {
  const char *name;  /* "osu_allreduce" */
  const char *title; /* "OSU MPI Allreduce Latency Test" */
  size_t unit;       /* sizes are multiples of this (an element); 0: no size (the barrier) */
  int send_blocks;   /* the send buffer holds one block per rank (else one) */
  int recv_blocks;   /* the receive buffer too */
  osu_coll_run_fn run;
  osu_coll_fill_fn fill;
  osu_coll_check_fn check;
};

/* Byte i of a block that `key` names (a rank, or a pair of them), at a
 * size: never 0, which the receive buffers start from. */
static unsigned char pattern(size_t key, size_t i, size_t bytes) {
  return (unsigned char)(1 + (key * 31 + i + bytes) % 251);
}

/* Whether `bytes` bytes at `data` are block `key`'s. */
static int is_block(const unsigned char *data, size_t key, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] != pattern(key, i, bytes)) return 0;
  }
  return 1;
}

static void fill_block(unsigned char *data, size_t key, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) data[i] = pattern(key, i, bytes);
}

static void zero(void *data, size_t bytes) {
  unsigned char *out = data;
  for (size_t i = 0; i < bytes; ++i) out[i] = 0;
}

/* --- MPI_Barrier: no data. The check: ranks other than 0 send rank 0 a
 * message once they leave a barrier, and rank 0 looks for one for 5 ms
 * before it enters that barrier; a message then means a rank left before
 * all had entered. */
#define OSU_COLL_BARRIER_TAG 4711

static void run_barrier(void *send, void *recv, size_t bytes) {
  (void)send;
  (void)recv;
  (void)bytes;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void fill_nothing(void *send, void *recv, size_t bytes, int rank, int size) {
  (void)send;
  (void)recv;
  (void)bytes;
  (void)rank;
  (void)size;
}

static int check_barrier(const void *send, const void *recv, size_t bytes, int rank, int size) {
  (void)send;
  (void)recv;
  (void)bytes;
  int early = 0;
  if (rank == 0) {
    const double start = MPI_Wtime();
    while (!early && MPI_Wtime() - start < 0.005) {
      MPI_Iprobe(MPI_ANY_SOURCE, OSU_COLL_BARRIER_TAG, MPI_COMM_WORLD, &early, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char token = 0;
  if (rank != 0) {
    MPI_Send(&token, 1, MPI_CHAR, 0, OSU_COLL_BARRIER_TAG, MPI_COMM_WORLD);
  } else {
    for (int peer = 1; peer < size; ++peer) {
      MPI_Recv(&token, 1, MPI_CHAR, peer, OSU_COLL_BARRIER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  return !early;
}

/* --- MPI_Bcast from rank 0: its bytes follow the size's pattern, the
 * others' start from zeros. */
static void run_bcast(void *send, void *recv, size_t bytes) {
  (void)recv;
  MPI_Bcast(send, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static void fill_bcast(void *send, void *recv, size_t bytes, int rank, int size) {
  (void)recv;
  (void)size;
  if (rank == 0) {
    fill_block(send, 0, bytes);
  } else {
    zero(send, bytes);
  }
}

static int check_bcast(const void *send, const void *recv, size_t bytes, int rank, int size) {
  (void)recv;
  (void)rank;
  (void)size;
  return is_block(send, 0, bytes);
}

/* --- MPI_Reduce (to rank 0) and MPI_Allreduce, MPI_SUM of floats: rank r
 * gives r + 1 in every element, so each sum is n(n + 1)/2, exact in a
 * float. */
static void run_reduce(void *send, void *recv, size_t bytes) {
  MPI_Reduce(send, recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}

static void run_allreduce(void *send, void *recv, size_t bytes) {
  MPI_Allreduce(send, recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void fill_sum(void *send, void *recv, size_t bytes, int rank, int size) {
  float *in = send, *out = recv;
  (void)size;
  for (size_t i = 0; i < bytes / sizeof(float); ++i) {
    in[i] = (float)(rank + 1);
    out[i] = -1.0f;
  }
}

static int is_sum(const void *recv, size_t bytes, int size) {
  const float *out = recv;
  const float expected = (float)((double)size * (size + 1) / 2);
  for (size_t i = 0; i < bytes / sizeof(float); ++i) {
    if (out[i] != expected) return 0;
  }
  return 1;
}

static int check_reduce(const void *send, const void *recv, size_t bytes, int rank, int size) {
  (void)send;
  return rank != 0 || is_sum(recv, bytes, size);
}

static int check_allreduce(const void *send, const void *recv, size_t bytes, int rank, int size) {
  (void)send;
  (void)rank;
  return is_sum(recv, bytes, size);
}

/* --- MPI_Allgather: rank r's block is block r; the receive buffer starts
 * from zeros and must end with every rank's block in rank order. */
static void run_allgather(void *send, void *recv, size_t bytes) {
  MPI_Allgather(send, (int)bytes, MPI_CHAR, recv, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
}

static void fill_allgather(void *send, void *recv, size_t bytes, int rank, int size) {
  fill_block(send, (size_t)rank, bytes);
  zero(recv, bytes * (size_t)size);
}

static int check_allgather(const void *send, const void *recv, size_t bytes, int rank, int size) {
  const unsigned char *in = recv;
  (void)send;
  (void)rank;
  for (int peer = 0; peer < size; ++peer) {
    if (!is_block(in + (size_t)peer * bytes, (size_t)peer, bytes)) return 0;
  }
  return 1;
}

/* --- MPI_Alltoall: the block rank s sends rank d is block s * n + d. */
static void run_alltoall(void *send, void *recv, size_t bytes) {
  MPI_Alltoall(send, (int)bytes, MPI_CHAR, recv, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
}

static void fill_alltoall(void *send, void *recv, size_t bytes, int rank, int size) {
  unsigned char *out = send;
  for (int peer = 0; peer < size; ++peer) {
    fill_block(out + (size_t)peer * bytes, (size_t)rank * (size_t)size + (size_t)peer, bytes);
  }
  zero(recv, bytes * (size_t)size);
}

static int check_alltoall(const void *send, const void *recv, size_t bytes, int rank, int size) {
  const unsigned char *in = recv;
  (void)send;
  for (int peer = 0; peer < size; ++peer) {
    if (!is_block(in + (size_t)peer * bytes, (size_t)peer * (size_t)size + (size_t)rank, bytes)) return 0;
  }
  return 1;
}

/* In the order of enum osu_coll_kind. */
static const struct osu_coll_benchmark benchmarks[] = {
    {"osu_barrier", "OSU MPI Barrier Latency Test", 0, 0, 0, run_barrier, fill_nothing, check_barrier},
    {"osu_bcast", "OSU MPI Broadcast Latency Test", 1, 0, 0, run_bcast, fill_bcast, check_bcast},
    {"osu_reduce", "OSU MPI Reduce Latency Test", sizeof(float), 0, 0, run_reduce, fill_sum, check_reduce},
    {"osu_allreduce", "OSU MPI Allreduce Latency Test", sizeof(float), 0, 0, run_allreduce, fill_sum,
     check_allreduce},
    {"osu_allgather", "OSU MPI Allgather Latency Test", 1, 0, 1, run_allgather, fill_allgather, check_allgather},
    {"osu_alltoall", "OSU MPI All-to-All Latency Test", 1, 1, 1, run_alltoall, fill_alltoall, check_alltoall},
};

/* Mean seconds of one timed call: each call timed alone, an untimed
 * MPI_Barrier after each (OMB's loop). */
static double time_calls(const struct osu_coll_benchmark *b, void *send, void *recv, size_t bytes, int iterations,
                         int skip) {
  double total = 0;
  for (int i = 0; i < iterations + skip; ++i) {
    const double start = MPI_Wtime();
    b->run(send, recv, bytes);
    const double stop = MPI_Wtime();
    if (i >= skip) total += stop - start;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return total / iterations;
}

int osu_coll_main(int argc, char **argv, enum osu_coll_kind kind) {
  const struct osu_coll_benchmark *b = &benchmarks[kind];
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct osu_options options = {b->unit, b->unit == 0 ? 0 : 1UL << 20, 1000, 100, 100, 10, 0, 0, 0, 0, 0, 0, 0};
  const enum osu_parse_result parsed = osu_parse_options(argc, argv, b->name, &options, rank);
  if (parsed != OSU_PARSE_OK) {
    MPI_Finalize();
    return parsed == OSU_PARSE_HELP ? 0 : 1;
  }
  if (b->unit == 0) {
    options.min_size = options.max_size = 0; /* the barrier: one line, no size */
  } else if (options.min_size < b->unit) {
    options.min_size = b->unit;
  }
  if (options.min_size > options.max_size) {
    if (rank == 0) fprintf(stderr, "%s: sizes must reach %zu bytes (one element)\n", b->name, b->unit);
    MPI_Finalize();
    return 1;
  }
  const size_t send_bytes = options.max_size * (b->send_blocks ? (size_t)size : 1);
  const size_t recv_bytes = options.max_size * (b->recv_blocks ? (size_t)size : 1);
  void *send = osu_alloc_buffer(send_bytes, 0);
  void *recv = osu_alloc_buffer(recv_bytes, 0);
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "%s: no memory for buffers of %zu and %zu bytes\n", b->name, send_bytes, recv_bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header(b->title);
    printf("# %d ranks; %s; latency per call, over the ranks\n", size,
           b->unit == 0 ? "no message size (shown as 0)" : "sizes in bytes per rank");
    printf("%-10s%*s%*s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "Avg Latency(us)", OSU_FIELD_WIDTH, "Min Latency(us)",
           OSU_FIELD_WIDTH, "Max Latency(us)", 12, "Iterations");
    fflush(stdout);
  }
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const size_t used = b->unit == 0 ? 0 : bytes - bytes % b->unit;
    const int large = used > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    b->fill(send, recv, used, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    const double latency = time_calls(b, send, recv, used, iterations, skip) * 1e6;
    const double wrong = !b->check(send, recv, used, rank, size);
    const double mine[2] = {latency, wrong};
    double sums[2] = {0, 0}, min = 0, max = 0;
    MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&latency, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&latency, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      if (sums[1] != 0) {
        fprintf(stderr, "%s: wrong results on %.0f ranks at %zu bytes\n", b->name, sums[1], used);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      printf("%-10zu%*.*f%*.*f%*.*f%*d\n", used, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, sums[0] / size,
             OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, min, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, max, 12, iterations);
      fflush(stdout);
    }
    if (bytes == 0 || bytes >= options.max_size) break;
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
