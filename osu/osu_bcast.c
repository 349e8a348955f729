/* osu_bcast: MPI_Bcast (from rank 0) latency, as the OSU Micro-Benchmarks'
 * osu_bcast reports it (common/osu_coll.h): per size, the average, minimum
 * and maximum over the ranks. -m [MIN:]MAX in bytes (default 1:1M), -i, -x. */
#include "common/osu_coll.h"

int main(int argc, char **argv) { return osu_coll_main(argc, argv, OSU_COLL_BCAST); }
