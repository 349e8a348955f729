/* osu_allreduce: MPI_Allreduce (MPI_SUM of floats) latency, as the OSU
 * Micro-Benchmarks' osu_allreduce reports it (common/osu_coll.h): per size,
 * the average, minimum and maximum over the ranks. -m [MIN:]MAX in bytes
 * (default 4:1M), -i, -x. */
#include "common/osu_coll.h"

int main(int argc, char **argv) { return osu_coll_main(argc, argv, OSU_COLL_ALLREDUCE); }
