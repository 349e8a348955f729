/* osu_barrier: MPI_Barrier latency, as the OSU Micro-Benchmarks' osu_barrier
 * reports it (common/osu_coll.h): the average, minimum and maximum over the
 * ranks, on one line with size 0. -i, -x. */
#include "common/osu_coll.h"

int main(int argc, char **argv) { return osu_coll_main(argc, argv, OSU_COLL_BARRIER); }
