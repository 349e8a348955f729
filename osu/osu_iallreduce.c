/* osu_iallreduce: MPI_Iallreduce (MPI_SUM of floats) latency, and how much
 * of it overlaps computation, as the OSU Micro-Benchmarks' osu_iallreduce
 * reports it (common/osu_nbc.h). -m [MIN:]MAX in bytes (default 4:1M), -i,
 * -x, and -t N for MPI_Test calls during the compute. */
#include <stddef.h>

#include "common/osu_nbc.h"

static void start(void *send, void *recv, size_t bytes, MPI_Request *request) {
  MPI_Iallreduce(send, recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, request);
}

/* Rank r gives r + 1 + (i % 7) at element i: small integers, exact sums. */
static void fill(void *send, void *recv, size_t bytes, int rank) {
  float *in = send, *out = recv;
  for (size_t i = 0; i < bytes / sizeof(float); ++i) {
    in[i] = (float)(rank + 1 + (int)(i % 7));
    out[i] = -1.0f;
  }
}

static int check(const void *send, const void *recv, size_t bytes, int rank, int size) {
  const float *out = recv;
  (void)send;
  (void)rank;
  for (size_t i = 0; i < bytes / sizeof(float); ++i) {
    if (out[i] != (float)(size * (size + 1) / 2 + size * (int)(i % 7))) return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const struct osu_nbc_benchmark benchmark = {"osu_iallreduce", "OSU MPI Non-blocking Allreduce Latency Test",
                                              4, sizeof(float), start, fill, check};
  return osu_nbc_main(argc, argv, &benchmark);
}
