// Group set operations and rank ranges on 1 to 4 ranks: MPI_Group_union
// (group1's members, then group2's others), MPI_Group_intersection and
// MPI_Group_difference (group1's order), MPI_Group_range_incl/excl with
// positive and negative strides and their errors (overlapping triplets and
// ranks outside the group: MPI_ERR_RANK; stride 0 or a stride that leads
// away from `last`: MPI_ERR_ARG), and communicators made from the resulting
// groups (MPI_Comm_create) carrying point-to-point and collective traffic.
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

// The world ranks of `group`'s members, in the group's order.
std::vector<int> world_ranks(MPI_Group world, MPI_Group group) {
  int n = 0;
  MPI_Group_size(group, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), -9);
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  if (n > 0) MPI_Group_translate_ranks(group, n, ranks.data(), world, out.data());
  return out;
}

std::vector<int> parity(int remainder) {
  std::vector<int> ranks;
  for (int r = remainder; r < size; r += 2) ranks.push_back(r);
  return ranks;
}

// Members of `group` build a communicator from it; a ring exchange and an
// allreduce on it must see the group's order.
void traffic(MPI_Group world, MPI_Group group, const char* what) {
  MPI_Comm comm = MPI_COMM_NULL;
  CHECK(MPI_Comm_create(MPI_COMM_WORLD, group, &comm) == MPI_SUCCESS);
  const std::vector<int> members = world_ranks(world, group);
  int my_index = -1;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == rank) my_index = static_cast<int>(i);
  }
  if (my_index < 0) {
    CHECK(comm == MPI_COMM_NULL);
    return;
  }
  CHECK(comm != MPI_COMM_NULL);
  int comm_rank = -1, comm_size = -1;
  MPI_Comm_rank(comm, &comm_rank);
  MPI_Comm_size(comm, &comm_size);
  CHECK(comm_rank == my_index && comm_size == static_cast<int>(members.size()));
  const int next = (comm_rank + 1) % comm_size, prev = (comm_rank + comm_size - 1) % comm_size;
  int got = -1;
  CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, comm, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  if (got != members[static_cast<std::size_t>(prev)]) std::fprintf(stderr, "traffic on %s\n", what);
  CHECK(got == members[static_cast<std::size_t>(prev)]);
  int sum = 0, expected = 0;
  for (int m : members) expected += m;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS && sum == expected);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
}

void set_operations(MPI_Group world) {
  const std::vector<int> evens = parity(0), odds = parity(1);
  MPI_Group even = MPI_GROUP_NULL, odd = MPI_GROUP_NULL;
  CHECK(MPI_Group_incl(world, static_cast<int>(evens.size()), evens.data(), &even) == MPI_SUCCESS);
  CHECK(MPI_Group_excl(world, static_cast<int>(evens.size()), evens.data(), &odd) == MPI_SUCCESS);
  // reversed: size-1, ..., 0.
  int whole_reversed[1][3] = {{size - 1, 0, -1}};
  MPI_Group reversed = MPI_GROUP_NULL;
  CHECK(MPI_Group_range_incl(world, 1, whole_reversed, &reversed) == MPI_SUCCESS);
  std::vector<int> expected;
  for (int r = size - 1; r >= 0; --r) expected.push_back(r);
  CHECK(world_ranks(world, reversed) == expected);

  // Union: odds first (group1), then the evens.
  MPI_Group odd_even = MPI_GROUP_NULL;
  CHECK(MPI_Group_union(odd, even, &odd_even) == MPI_SUCCESS);
  expected = odds;
  expected.insert(expected.end(), evens.begin(), evens.end());
  CHECK(world_ranks(world, odd_even) == expected);
  // Union with overlap: reversed's order, nothing added from world.
  MPI_Group both = MPI_GROUP_NULL;
  CHECK(MPI_Group_union(reversed, world, &both) == MPI_SUCCESS);
  int result = -1;
  CHECK(MPI_Group_compare(both, reversed, &result) == MPI_SUCCESS && result == MPI_IDENT);
  // Intersection in group1's order: the evens, descending.
  MPI_Group even_down = MPI_GROUP_NULL;
  CHECK(MPI_Group_intersection(reversed, even, &even_down) == MPI_SUCCESS);
  expected.assign(evens.rbegin(), evens.rend());
  CHECK(world_ranks(world, even_down) == expected);
  // Difference in group1's order: the odds, descending.
  MPI_Group odd_down = MPI_GROUP_NULL;
  CHECK(MPI_Group_difference(reversed, even, &odd_down) == MPI_SUCCESS);
  expected.assign(odds.rbegin(), odds.rend());
  CHECK(world_ranks(world, odd_down) == expected);
  // Empty results are MPI_GROUP_EMPTY.
  MPI_Group none = MPI_GROUP_NULL;
  CHECK(MPI_Group_difference(even, world, &none) == MPI_SUCCESS && none == MPI_GROUP_EMPTY);
  CHECK(MPI_Group_intersection(even, MPI_GROUP_EMPTY, &none) == MPI_SUCCESS && none == MPI_GROUP_EMPTY);
  MPI_Group same = MPI_GROUP_NULL;
  CHECK(MPI_Group_union(MPI_GROUP_EMPTY, even, &same) == MPI_SUCCESS);
  CHECK(MPI_Group_compare(same, even, &result) == MPI_SUCCESS && result == MPI_IDENT);

  traffic(world, odd_even, "odd_even");
  traffic(world, even_down, "even_down");
  traffic(world, reversed, "reversed");

  for (MPI_Group* g : {&even, &odd, &reversed, &odd_even, &both, &even_down, &odd_down, &same}) {
    CHECK(MPI_Group_free(g) == MPI_SUCCESS && *g == MPI_GROUP_NULL);
  }
}

void ranges(MPI_Group world) {
  // Every second rank from the top, then rank 0 if it was left out: a
  // negative stride and a second triplet.
  std::vector<int> expected;
  for (int r = size - 1; r >= 0; r -= 2) expected.push_back(r);
  const bool zero_missing = expected.back() != 0;
  int triplets[2][3] = {{size - 1, 0, -2}, {0, 0, 1}};
  MPI_Group picked = MPI_GROUP_NULL;
  CHECK(MPI_Group_range_incl(world, zero_missing ? 2 : 1, triplets, &picked) == MPI_SUCCESS);
  if (zero_missing) expected.push_back(0);
  CHECK(world_ranks(world, picked) == expected);
  // range_excl of the same ranks keeps the others in world's order.
  MPI_Group rest = MPI_GROUP_NULL;
  CHECK(MPI_Group_range_excl(world, zero_missing ? 2 : 1, triplets, &rest) == MPI_SUCCESS);
  std::vector<int> others;
  for (int r = 0; r < size; ++r) {
    bool named = false;
    for (int e : expected) named = named || e == r;
    if (!named) others.push_back(r);
  }
  CHECK(world_ranks(world, rest) == others);
  // A stride past `last` names `first` alone.
  int single[1][3] = {{size - 1, size - 1, 5}};
  MPI_Group one = MPI_GROUP_NULL;
  CHECK(MPI_Group_range_incl(world, 1, single, &one) == MPI_SUCCESS);
  CHECK(world_ranks(world, one) == std::vector<int>{size - 1});
  // n = 0: the empty group and the whole group.
  MPI_Group empty = MPI_GROUP_NULL, all = MPI_GROUP_NULL;
  CHECK(MPI_Group_range_incl(world, 0, nullptr, &empty) == MPI_SUCCESS && empty == MPI_GROUP_EMPTY);
  CHECK(MPI_Group_range_excl(world, 0, nullptr, &all) == MPI_SUCCESS);
  int result = -1;
  CHECK(MPI_Group_compare(all, world, &result) == MPI_SUCCESS && result == MPI_IDENT);
  traffic(world, picked, "picked");
  traffic(world, rest, "rest");
  for (MPI_Group* g : {&picked, &rest, &one, &all}) CHECK(MPI_Group_free(g) == MPI_SUCCESS);
}

void errors(MPI_Group world) {
  MPI_Group out = MPI_GROUP_NULL;
  int outside[1][3] = {{0, size, 1}};
  CHECK(MPI_Group_range_incl(world, 1, outside, &out) == MPI_ERR_RANK);
  CHECK(MPI_Group_range_excl(world, 1, outside, &out) == MPI_ERR_RANK);
  int negative[1][3] = {{-1, 0, 1}};
  CHECK(MPI_Group_range_incl(world, 1, negative, &out) == MPI_ERR_RANK);
  int overlapping[2][3] = {{0, size - 1, 1}, {size - 1, size - 1, 1}};
  CHECK(MPI_Group_range_incl(world, 2, overlapping, &out) == MPI_ERR_RANK);
  CHECK(MPI_Group_range_excl(world, 2, overlapping, &out) == MPI_ERR_RANK);
  int zero_stride[1][3] = {{0, 0, 0}};
  CHECK(MPI_Group_range_incl(world, 1, zero_stride, &out) == MPI_ERR_ARG);
  if (size > 1) {
    int away[1][3] = {{size - 1, 0, 1}};
    CHECK(MPI_Group_range_incl(world, 1, away, &out) == MPI_ERR_ARG);
    int away_down[1][3] = {{0, size - 1, -1}};
    CHECK(MPI_Group_range_excl(world, 1, away_down, &out) == MPI_ERR_ARG);
  }
  CHECK(MPI_Group_range_incl(world, -1, zero_stride, &out) == MPI_ERR_ARG);
  CHECK(MPI_Group_range_incl(world, 1, nullptr, &out) == MPI_ERR_ARG);
  CHECK(MPI_Group_union(world, 12345, &out) == MPI_ERR_GROUP);
  CHECK(MPI_Group_intersection(MPI_GROUP_NULL, world, &out) == MPI_ERR_GROUP);
  CHECK(MPI_Group_difference(world, world, nullptr) == MPI_ERR_ARG);
  CHECK(out == MPI_GROUP_NULL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  set_operations(world);
  ranges(world);
  errors(world);
  MPI_Group_free(&world);
  const int rc = tern::mpi_test::conclude("mpi_group_sets");
  MPI_Finalize();
  return rc;
}
