// MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups exactly the ranks whose
// processor names (their hosts) are the same, ordered by key then by the
// parent's rank; MPI_UNDEFINED gives MPI_COMM_NULL; a split type it does
// not know is refused. Runs on one host and across emulated hosts
// (tests/multinode).
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  auto host_of = [&](int r) { return std::string(&names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]); };

  // Keys that reverse the world order: the shared communicator lists the
  // host's ranks from the highest world rank down.
  MPI_Comm shared = MPI_COMM_NULL;
  CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &shared) ==
        MPI_SUCCESS);
  std::vector<int> expected;  // world ranks on my host, highest first
  for (int r = size - 1; r >= 0; --r) {
    if (host_of(r) == host_of(rank)) expected.push_back(r);
  }
  CHECK(shared != MPI_COMM_NULL);
  if (shared != MPI_COMM_NULL) {
    int shared_size = 0, shared_rank = -1;
    MPI_Comm_size(shared, &shared_size);
    MPI_Comm_rank(shared, &shared_rank);
    CHECK(shared_size == static_cast<int>(expected.size()));
    std::vector<int> members(static_cast<std::size_t>(shared_size));
    MPI_Allgather(&rank, 1, MPI_INT, members.data(), 1, MPI_INT, shared);
    CHECK(members == expected);
    CHECK(shared_rank >= 0 && shared_rank < shared_size && members[static_cast<std::size_t>(shared_rank)] == rank);
    MPI_Comm_free(&shared);
  }
  // Not a member of any: MPI_COMM_NULL, and the call is still collective.
  MPI_Comm none = MPI_COMM_WORLD;
  CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none) == MPI_SUCCESS);
  CHECK(none == MPI_COMM_NULL);
  // An unknown split type is refused, by every rank alike.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm bad = MPI_COMM_NULL;
  int error_class = MPI_SUCCESS;
  MPI_Error_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &bad), &error_class);
  CHECK(error_class == MPI_ERR_ARG);
  const int rc = tern::mpi_test::conclude("mpi_split_type");
  MPI_Finalize();
  return rc;
}
