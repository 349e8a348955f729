/* osu_allgather: MPI_Allgather latency, as the OSU Micro-Benchmarks'
 * osu_allgather reports it (common/osu_coll.h): per size (the bytes each rank
 * gives), the average, minimum and maximum over the ranks. -m [MIN:]MAX
 * (default 1:1M), -i, -x. */
#include "common/osu_coll.h"

int main(int argc, char **argv) { return osu_coll_main(argc, argv, OSU_COLL_ALLGATHER); }
