/* osu_cas_latency: latency of MPI_Compare_and_swap (one 8-byte unsigned
 * integer) from rank 0 to rank 1, after the OSU Micro-Benchmarks one-sided
 * method: warm-up and timed iterations of one call each, synchronized as -s
 * says (default MPI_Win_flush; fence and pscw time a ping-pong and report
 * half of it), on a window made as -w says. One row, size 8. Each swap
 * expects the count of the swaps before it and stores one more, so the
 * target checks its counter and the origin the value it got back last. */
#include "common/osu_rma.h"

#include <stdint.h>

static void prepare(struct osu_rma *rma) {
  *(uint64_t *)(void *)rma->base = 0;
  *(uint64_t *)(void *)rma->result = UINT64_MAX;
}

static void operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot) {
  (void)slot;
  /* The previous call is complete here: every iteration synchronizes. */
  uint64_t *values = (uint64_t *)(void *)rma->origin;
  values[0] = (uint64_t)rma->issued + 1; /* the new value */
  values[1] = (uint64_t)rma->issued;     /* the one expected */
  MPI_Compare_and_swap(&values[0], &values[1], rma->result, MPI_UINT64_T, target, disp, rma->win);
}

static const char *check(struct osu_rma *rma, long received) {
  if (*(const uint64_t *)(const void *)rma->base != (uint64_t)received) return "the counter in the window is wrong";
  if (rma->issued > 0 && *(const uint64_t *)(const void *)rma->result != (uint64_t)(rma->issued - 1)) {
    return "the last value returned is wrong";
  }
  return NULL;
}

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_cas_latency", "OSU MPI_Compare_and_swap Latency Test", OSU_RMA_LATENCY, OSU_RMA_SYNC_ALL,
      OSU_RMA_SYNC_FLUSH, sizeof(uint64_t), prepare, operation, check};
  return osu_rma_main(argc, argv, &benchmark);
}
