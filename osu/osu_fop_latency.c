/* osu_fop_latency: latency of MPI_Fetch_and_op (MPI_SUM of 1 on one 8-byte
 * unsigned integer) from rank 0 to rank 1, after the OSU Micro-Benchmarks
 * one-sided method: warm-up and timed iterations of one call each,
 * synchronized as -s says (default MPI_Win_flush; fence and pscw time a
 * ping-pong and report half of it), on a window made as -w says. One row,
 * size 8. The target checks its counter, the origin the value fetched last. */
#include "common/osu_rma.h"

#include <stdint.h>

static void prepare(struct osu_rma *rma) {
  *(uint64_t *)(void *)rma->origin = 1;
  *(uint64_t *)(void *)rma->base = 0;
  *(uint64_t *)(void *)rma->result = UINT64_MAX;
}

static void operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot) {
  (void)slot;
  MPI_Fetch_and_op(rma->origin, rma->result, MPI_UINT64_T, target, disp, MPI_SUM, rma->win);
}

static const char *check(struct osu_rma *rma, long received) {
  if (*(const uint64_t *)(const void *)rma->base != (uint64_t)received) return "the counter in the window is wrong";
  if (rma->issued > 0 && *(const uint64_t *)(const void *)rma->result != (uint64_t)(rma->issued - 1)) {
    return "the last value fetched is wrong";
  }
  return NULL;
}

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_fop_latency", "OSU MPI_Fetch_and_op Latency Test", OSU_RMA_LATENCY, OSU_RMA_SYNC_ALL, OSU_RMA_SYNC_FLUSH,
      sizeof(uint64_t), prepare, operation, check};
  return osu_rma_main(argc, argv, &benchmark);
}
