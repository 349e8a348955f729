/* osu_ibcast: MPI_Ibcast (from rank 0) latency, and how much of it overlaps
 * computation, as the OSU Micro-Benchmarks' osu_ibcast reports it
 * (common/osu_nbc.h). -m [MIN:]MAX in bytes (default 1:1M), -i, -x, and
 * -t N for MPI_Test calls during the compute. */
#include <stddef.h>

#include "common/osu_nbc.h"

static void start(void *send, void *recv, size_t bytes, MPI_Request *request) {
  (void)recv;
  MPI_Ibcast(send, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD, request);
}

static char expected(size_t i) { return (char)('a' + i % 23); }

/* The root's bytes follow a pattern; the others start from zeros. */
static void fill(void *send, void *recv, size_t bytes, int rank) {
  char *data = send;
  (void)recv;
  for (size_t i = 0; i < bytes; ++i) data[i] = rank == 0 ? expected(i) : 0;
}

static int check(const void *send, const void *recv, size_t bytes, int rank, int size) {
  const char *data = send;
  (void)recv;
  (void)rank;
  (void)size;
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] != expected(i)) return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const struct osu_nbc_benchmark benchmark = {"osu_ibcast", "OSU MPI Non-blocking Broadcast Latency Test", 1, 1,
                                              start, fill, check};
  return osu_nbc_main(argc, argv, &benchmark);
}
