// MPI_Intercomm_create_from_groups on 2 to 4 ranks: the world's two halves
// (the upper one led by its last member) build an intercommunicator from
// their groups alone; its groups, error handler, point-to-point across it,
// an allreduce and a merge; two more made back to back with other string
// tags and leaders; and the refused arguments (overlapping groups, a caller
// outside local_group, a leader outside its group, a null stringtag).
#include <string>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

MPI_Group range_group(MPI_Group world, int first, int last) {
  int triplet[1][3] = {{first, last, 1}};
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group_range_incl(world, 1, triplet, &group);
  return group;
}

void check_intercomm(MPI_Comm inter, MPI_Group local, MPI_Group remote, bool lower, int low_size) {
  int flag = 0, remote_size = 0, local_size = 0, result = -1;
  CHECK(MPI_Comm_test_inter(inter, &flag) == MPI_SUCCESS && flag == 1);
  MPI_Comm_size(inter, &local_size);
  MPI_Comm_remote_size(inter, &remote_size);
  CHECK(local_size == (lower ? low_size : size - low_size) && remote_size == size - local_size);
  MPI_Group got = MPI_GROUP_NULL;
  CHECK(MPI_Comm_remote_group(inter, &got) == MPI_SUCCESS);
  CHECK(MPI_Group_compare(got, remote, &result) == MPI_SUCCESS && result == MPI_IDENT);
  MPI_Group_free(&got);
  CHECK(MPI_Comm_group(inter, &got) == MPI_SUCCESS);
  CHECK(MPI_Group_compare(got, local, &result) == MPI_SUCCESS && result == MPI_IDENT);
  MPI_Group_free(&got);
  // Across: local rank i and remote rank i (of the smaller group) swap world ranks.
  int local_rank = -1;
  MPI_Comm_rank(inter, &local_rank);
  if (local_rank < std::min(local_size, remote_size)) {
    int got_rank = -1;
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, local_rank, 5, &got_rank, 1, MPI_INT, local_rank, 5, inter,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got_rank == (lower ? low_size + local_rank : local_rank));
  }
  // The allreduce of an intercommunicator gives the remote group's sum.
  int sum = 0, expected = 0;
  for (int r = lower ? low_size : 0; r < (lower ? size : low_size); ++r) expected += r;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS && sum == expected);
  MPI_Comm merged = MPI_COMM_NULL;
  CHECK(MPI_Intercomm_merge(inter, lower ? 0 : 1, &merged) == MPI_SUCCESS);
  int merged_rank = -1;
  MPI_Comm_rank(merged, &merged_rank);
  CHECK(merged_rank == rank);
  MPI_Comm_free(&merged);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int low_size = size / 2;
  const bool lower = rank < low_size;
  MPI_Group low = range_group(world, 0, low_size - 1), high = range_group(world, low_size, size - 1);
  MPI_Group local = lower ? low : high, remote = lower ? high : low;
  const int high_leader = size - low_size - 1;  // the upper half's last member

  MPI_Comm inter = MPI_COMM_NULL;
  CHECK(MPI_Intercomm_create_from_groups(local, lower ? 0 : high_leader, remote, lower ? high_leader : 0,
                                         "org.tern.test.halves", MPI_INFO_NULL, MPI_ERRORS_ABORT,
                                         &inter) == MPI_SUCCESS);
  // The new communicator has the handler given.
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Comm_get_errhandler(inter, &handler) == MPI_SUCCESS && handler == MPI_ERRORS_ABORT);
  check_intercomm(inter, local, remote, lower, low_size);

  // Two more back to back, other tags and leaders (each group's rank 0).
  MPI_Comm second = MPI_COMM_NULL, third = MPI_COMM_NULL;
  CHECK(MPI_Intercomm_create_from_groups(local, 0, remote, 0, "second", MPI_INFO_NULL, MPI_ERRORS_RETURN, &second) ==
        MPI_SUCCESS);
  CHECK(MPI_Intercomm_create_from_groups(local, 0, remote, 0, "third", MPI_INFO_NULL, MPI_ERRORS_RETURN, &third) ==
        MPI_SUCCESS);
  int result = -1;
  CHECK(MPI_Comm_compare(second, third, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
  check_intercomm(third, local, remote, lower, low_size);
  check_intercomm(second, local, remote, lower, low_size);
  for (MPI_Comm* comm : {&inter, &second, &third}) CHECK(MPI_Comm_free(comm) == MPI_SUCCESS);

  // Refused before any communication.
  MPI_Comm none = MPI_COMM_NULL;
  CHECK(MPI_Intercomm_create_from_groups(local, 0, world, 0, "overlap", MPI_INFO_NULL, MPI_ERRORS_RETURN, &none) ==
        MPI_ERR_GROUP);
  CHECK(MPI_Intercomm_create_from_groups(remote, 0, local, 0, "outside", MPI_INFO_NULL, MPI_ERRORS_RETURN, &none) ==
        MPI_ERR_GROUP);
  CHECK(MPI_Intercomm_create_from_groups(local, size, remote, 0, "leader", MPI_INFO_NULL, MPI_ERRORS_RETURN, &none) ==
        MPI_ERR_RANK);
  CHECK(MPI_Intercomm_create_from_groups(local, 0, remote, -1, "leader", MPI_INFO_NULL, MPI_ERRORS_RETURN, &none) ==
        MPI_ERR_RANK);
  CHECK(MPI_Intercomm_create_from_groups(local, 0, remote, 0, nullptr, MPI_INFO_NULL, MPI_ERRORS_RETURN, &none) ==
        MPI_ERR_ARG);
  CHECK(MPI_Intercomm_create_from_groups(local, 0, MPI_GROUP_NULL, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                         &none) == MPI_ERR_GROUP);
  CHECK(none == MPI_COMM_NULL);

  for (MPI_Group* group : {&low, &high, &world}) MPI_Group_free(group);
  const int rc = tern::mpi_test::conclude("mpi_intercomm_groups");
  MPI_Finalize();
  return rc;
}
