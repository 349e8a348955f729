/* osu_alltoall: MPI_Alltoall latency, as the OSU Micro-Benchmarks'
 * osu_alltoall reports it (common/osu_coll.h): per size (the bytes each rank
 * sends each rank), the average, minimum and maximum over the ranks.
 * -m [MIN:]MAX (default 1:1M), -i, -x. */
#include "common/osu_coll.h"

int main(int argc, char **argv) { return osu_coll_main(argc, argv, OSU_COLL_ALLTOALL); }
