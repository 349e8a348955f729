/* Shared driver of the OSU-style one-sided (RMA) benchmarks: the -w and -s
 * options, window creation, the timed loops of each synchronization, the
 * per-size data check and the output. Each benchmark supplies its operation
 * and its check as callbacks. Standard C and MPI only. */
#ifndef TERN_OSU_RMA_H
#define TERN_OSU_RMA_H

#include <mpi.h>
#include <stddef.h>

#include "osu_util.h"

/* -w: how the window is made. */
enum osu_rma_window { OSU_RMA_WIN_CREATE, OSU_RMA_WIN_ALLOCATE, OSU_RMA_WIN_DYNAMIC };

/* -s: how each iteration is synchronized. */
enum osu_rma_sync {
  OSU_RMA_SYNC_LOCK,        /* MPI_Win_lock/unlock around each iteration */
  OSU_RMA_SYNC_FLUSH,       /* one lock per size, MPI_Win_flush per iteration */
  OSU_RMA_SYNC_FLUSH_LOCAL, /* one lock per size, MPI_Win_flush_local per iteration */
  OSU_RMA_SYNC_LOCK_ALL,    /* MPI_Win_lock_all/unlock_all around each iteration */
  OSU_RMA_SYNC_PSCW,        /* MPI_Win_post/start/complete/wait */
  OSU_RMA_SYNC_FENCE,       /* MPI_Win_fence */
  OSU_RMA_SYNC_COUNT
};
#define OSU_RMA_SYNC_BIT(sync) (1u << (sync))
#define OSU_RMA_SYNC_ALL ((1u << OSU_RMA_SYNC_COUNT) - 1u)

/* What is timed: one operation per iteration, rank 0 to rank 1 (fence and
 * pscw: a ping-pong, both ranks in turn, half the round trip); a window of
 * operations per iteration from rank 0 (bandwidth); or from both ranks at
 * once (bidirectional bandwidth). */
enum osu_rma_kind { OSU_RMA_LATENCY, OSU_RMA_BW, OSU_RMA_BIBW };

/* The state a benchmark's callbacks see. Window memory, origin and result
 * areas hold `slots` messages of up to max_size bytes each. */
struct osu_rma {
  MPI_Win win;
  int rank;
  int peer;
  size_t bytes;        /* the current message size */
  size_t slots;        /* messages laid side by side in the areas */
  char *base;          /* this rank's window memory */
  char *origin;        /* source of puts and accumulates */
  char *result;        /* destination of gets and fetching operations */
  MPI_Aint peer_base;  /* displacement of the peer's window memory */
  long issued;         /* operations this rank started in the current size so far */
};

struct osu_rma_benchmark {
  const char *name;   /* "osu_put_latency" */
  const char *title;  /* "OSU MPI_Put Latency Test" */
  enum osu_rma_kind kind;
  unsigned syncs;     /* OSU_RMA_SYNC_BIT set of the accepted -s values */
  enum osu_rma_sync default_sync;
  size_t unit;        /* element size: sizes below it are skipped; 8 = one 8-byte element only */
  /* Before each size, inside an exclusive lock of the own window: fill the
   * origin and window memory. */
  void (*prepare)(struct osu_rma *rma);
  /* Start one operation of rma->bytes to `target` at displacement `disp`,
   * with `slot` the place in the local areas. */
  void (*operation)(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot);
  /* After each size, all epochs closed, inside an exclusive lock of the own
   * window: check what arrived. `received` operations targeted this rank;
   * returns NULL when right, else what was wrong. */
  const char *(*check)(struct osu_rma *rma, long received);
};

/* Runs the benchmark (MPI_Init to MPI_Finalize); returns the exit code. */
int osu_rma_main(int argc, char **argv, const struct osu_rma_benchmark *benchmark);

/* The byte a pattern of `bytes`-byte messages from `rank` has at `index`. */
unsigned char osu_rma_pattern(size_t bytes, int rank, size_t index);

/* Writes the pattern into `buffer`; osu_rma_holds returns 1 when `buffer` has it. */
void osu_rma_fill(char *buffer, size_t bytes, int rank);
int osu_rma_holds(const char *buffer, size_t bytes, int rank);

/* Callbacks of the MPI_Put benchmarks: the origin sends the pattern, the
 * target finds it in its window. */
void osu_rma_put_prepare(struct osu_rma *rma);
void osu_rma_put_operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot);
const char *osu_rma_put_check(struct osu_rma *rma, long received);

/* Callbacks of the MPI_Get benchmarks: the target's window holds the
 * pattern, the origin finds it in what it got. */
void osu_rma_get_prepare(struct osu_rma *rma);
void osu_rma_get_operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot);
const char *osu_rma_get_check(struct osu_rma *rma, long received);

#endif
