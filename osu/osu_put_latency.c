/* osu_put_latency: latency of MPI_Put from rank 0 to rank 1, after the OSU
 * Micro-Benchmarks one-sided method: per size, warm-up and timed iterations of
 * one MPI_Put each, synchronized as -s says (default MPI_Win_flush; fence
 * and pscw time a ping-pong of both ranks and report half of it), on a window
 * made as -w says (default MPI_Win_allocate). The data are checked per size. */
#include "common/osu_rma.h"

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_put_latency", "OSU MPI_Put Latency Test", OSU_RMA_LATENCY, OSU_RMA_SYNC_ALL, OSU_RMA_SYNC_FLUSH, 1,
      osu_rma_put_prepare, osu_rma_put_operation, osu_rma_put_check};
  return osu_rma_main(argc, argv, &benchmark);
}
