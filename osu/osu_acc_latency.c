/* osu_acc_latency: latency of MPI_Accumulate (MPI_SUM of ints) from rank 0
 * to rank 1, after the OSU Micro-Benchmarks one-sided method: per size (4 B
 * and up), warm-up and timed iterations of one MPI_Accumulate each,
 * synchronized as -s says (default MPI_Win_flush; fence and pscw time a
 * ping-pong and report half of it), on a window made as -w says. The target
 * checks that its window holds the sum of all the accumulates. */
#include "common/osu_rma.h"

#include <string.h>

static int addend(size_t index) { return (int)(index % 7) + 1; }

static void prepare(struct osu_rma *rma) {
  int *origin = (int *)(void *)rma->origin;
  for (size_t k = 0; k < rma->bytes / sizeof(int); ++k) origin[k] = addend(k);
  memset(rma->base, 0, rma->bytes);
}

static void operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot) {
  (void)slot;
  const int count = (int)(rma->bytes / sizeof(int));
  MPI_Accumulate(rma->origin, count, MPI_INT, target, disp, count, MPI_INT, MPI_SUM, rma->win);
}

static const char *check(struct osu_rma *rma, long received) {
  const int *window = (const int *)(const void *)rma->base;
  for (size_t k = 0; k < rma->bytes / sizeof(int); ++k) {
    if ((long)window[k] != received * addend(k)) return "the window does not hold the sum of the accumulates";
  }
  return NULL;
}

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_acc_latency", "OSU MPI_Accumulate Latency Test", OSU_RMA_LATENCY, OSU_RMA_SYNC_ALL, OSU_RMA_SYNC_FLUSH,
      sizeof(int), prepare, operation, check};
  return osu_rma_main(argc, argv, &benchmark);
}
