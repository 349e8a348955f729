// Groups and communicator construction on 1 to 4 ranks: Comm_group,
// Group_size/rank/incl/excl/translate_ranks/compare/free, Comm_split (by
// parity, reversed keys, MPI_UNDEFINED), Comm_create (even ranks), and
// traffic on the new communicators (point-to-point and collectives) that
// must not cross between them.
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

void groups() {
  MPI_Group world = MPI_GROUP_NULL;
  CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
  int n = -1, r = -1;
  CHECK(MPI_Group_size(world, &n) == MPI_SUCCESS && n == size);
  CHECK(MPI_Group_rank(world, &r) == MPI_SUCCESS && r == rank);
  CHECK(MPI_Group_size(MPI_GROUP_EMPTY, &n) == MPI_SUCCESS && n == 0);
  CHECK(MPI_Group_rank(MPI_GROUP_EMPTY, &r) == MPI_SUCCESS && r == MPI_UNDEFINED);

  // Reversed order: rank i of `reversed` is world rank size-1-i.
  std::vector<int> order(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) order[static_cast<std::size_t>(i)] = size - 1 - i;
  MPI_Group reversed = MPI_GROUP_NULL;
  CHECK(MPI_Group_incl(world, size, order.data(), &reversed) == MPI_SUCCESS);
  CHECK(MPI_Group_rank(reversed, &r) == MPI_SUCCESS && r == size - 1 - rank);
  int result = -1;
  CHECK(MPI_Group_compare(world, world, &result) == MPI_SUCCESS && result == MPI_IDENT);
  CHECK(MPI_Group_compare(world, reversed, &result) == MPI_SUCCESS &&
        result == (size == 1 ? MPI_IDENT : MPI_SIMILAR));
  std::vector<int> translated(static_cast<std::size_t>(size) + 1, -7);
  std::vector<int> all(static_cast<std::size_t>(size) + 1);
  for (int i = 0; i < size; ++i) all[static_cast<std::size_t>(i)] = i;
  all[static_cast<std::size_t>(size)] = MPI_PROC_NULL;
  CHECK(MPI_Group_translate_ranks(world, size + 1, all.data(), reversed, translated.data()) == MPI_SUCCESS);
  bool ok = translated[static_cast<std::size_t>(size)] == MPI_PROC_NULL;
  for (int i = 0; i < size; ++i) ok = ok && translated[static_cast<std::size_t>(i)] == size - 1 - i;
  CHECK(ok);

  // Excluding rank 0 leaves 1..size-1 in order.
  const int zero = 0;
  MPI_Group rest = MPI_GROUP_NULL;
  CHECK(MPI_Group_excl(world, 1, &zero, &rest) == MPI_SUCCESS);
  CHECK(MPI_Group_size(rest, &n) == MPI_SUCCESS && n == size - 1);
  CHECK(MPI_Group_rank(rest, &r) == MPI_SUCCESS && r == (rank == 0 ? MPI_UNDEFINED : rank - 1));
  CHECK(MPI_Group_compare(world, rest, &result) == MPI_SUCCESS && result == MPI_UNEQUAL);
  std::vector<int> back(static_cast<std::size_t>(size), -7);
  CHECK(MPI_Group_translate_ranks(world, size, all.data(), rest, back.data()) == MPI_SUCCESS);
  CHECK(back[0] == MPI_UNDEFINED);
  if (size > 1) CHECK(back[static_cast<std::size_t>(size - 1)] == size - 2);
  MPI_Group none = MPI_GROUP_NULL;
  CHECK(MPI_Group_incl(world, 0, nullptr, &none) == MPI_SUCCESS);
  CHECK(MPI_Group_size(none, &n) == MPI_SUCCESS && n == 0);
  CHECK(MPI_Group_compare(none, MPI_GROUP_EMPTY, &result) == MPI_SUCCESS && result == MPI_IDENT);

  // Bad arguments, returned.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int bad = size;
  MPI_Group junk = MPI_GROUP_NULL;
  CHECK(MPI_Group_incl(world, 1, &bad, &junk) == MPI_ERR_RANK);
  const int twice[2] = {0, 0};
  if (size >= 2) CHECK(MPI_Group_incl(world, 2, twice, &junk) == MPI_ERR_RANK);
  CHECK(MPI_Group_size(12345, &n) == MPI_ERR_GROUP);
  CHECK(MPI_Group_size(MPI_GROUP_NULL, &n) == MPI_ERR_GROUP);
  CHECK(MPI_Group_translate_ranks(world, 1, &bad, rest, back.data()) == MPI_ERR_RANK);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  for (MPI_Group* g : {&world, &reversed, &rest, &none}) {
    CHECK(MPI_Group_free(g) == MPI_SUCCESS && *g == MPI_GROUP_NULL);
  }
}

// Sum of `value` over `comm` through a ring of point-to-point messages, so
// messages that crossed into another communicator would show.
int ring_sum(MPI_Comm comm, int value) {
  int r = 0, n = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  int total = value;
  int passing = value;
  for (int step = 1; step < n; ++step) {
    int incoming = 0;
    MPI_Sendrecv(&passing, 1, MPI_INT, (r + 1) % n, 5, &incoming, 1, MPI_INT, (r - 1 + n) % n, 5, comm,
                 MPI_STATUS_IGNORE);
    passing = incoming;
    total += incoming;
  }
  return total;
}

void split() {
  // By parity, keys reversed: new rank order is descending world rank.
  const int color = rank % 2;
  MPI_Comm half = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half) == MPI_SUCCESS);
  CHECK(half != MPI_COMM_NULL);
  std::vector<int> members;
  for (int r = 0; r < size; ++r) {
    if (r % 2 == color) members.push_back(r);
  }
  const int n = static_cast<int>(members.size());
  int hr = -1, hn = -1;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  CHECK(hn == n);
  // Descending: my position counts the members above me.
  int above = 0;
  for (int m : members) above += m > rank;
  CHECK(hr == above);
  // Traffic stays inside each half, both point-to-point and collective.
  int expected = 0;
  for (int m : members) expected += m;
  CHECK(ring_sum(half, rank) == expected);
  int sum = -1;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half) == MPI_SUCCESS && sum == expected);
  int from_root = rank;
  CHECK(MPI_Bcast(&from_root, 1, MPI_INT, 0, half) == MPI_SUCCESS && from_root == members.back());
  // The group of the half maps to the world ranks.
  MPI_Group hg = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
  MPI_Comm_group(half, &hg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  std::vector<int> hranks(static_cast<std::size_t>(n)), wranks(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) hranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(hg, n, hranks.data(), wg, wranks.data());
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && wranks[static_cast<std::size_t>(i)] == members[static_cast<std::size_t>(n - 1 - i)];
  CHECK(ok);
  MPI_Group_free(&hg);
  MPI_Group_free(&wg);
  int result = -1;
  CHECK(MPI_Comm_compare(half, MPI_COMM_WORLD, &result) == MPI_SUCCESS &&
        result == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));

  // A split of the split, same color and key everywhere: ordered by rank.
  MPI_Comm again = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(half, 0, 0, &again) == MPI_SUCCESS);
  CHECK(MPI_Comm_compare(half, again, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
  CHECK(ring_sum(again, 1) == n);
  MPI_Comm_free(&again);

  // MPI_UNDEFINED: the last rank stays out.
  MPI_Comm some = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 ? MPI_UNDEFINED : 3, rank, &some) == MPI_SUCCESS);
  if (rank == size - 1) {
    CHECK(some == MPI_COMM_NULL);
  } else {
    int sn = 0;
    MPI_Comm_size(some, &sn);
    CHECK(sn == size - 1);
    CHECK(ring_sum(some, 1) == size - 1);
    MPI_Comm_free(&some);
  }
  // Dup and the world still work after the context agreement.
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(half, &dup) == MPI_SUCCESS);
  CHECK(MPI_Comm_compare(half, dup, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
  CHECK(ring_sum(dup, rank) == expected);
  MPI_Comm_free(&dup);
  CHECK(ring_sum(MPI_COMM_WORLD, 1) == size);
  CHECK(MPI_Comm_free(&half) == MPI_SUCCESS && half == MPI_COMM_NULL);
}

void create() {
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> evens;
  for (int r = 0; r < size; r += 2) evens.push_back(r);
  MPI_Group even_group = MPI_GROUP_NULL;
  MPI_Group_incl(world, static_cast<int>(evens.size()), evens.data(), &even_group);
  MPI_Comm even = MPI_COMM_NULL;
  CHECK(MPI_Comm_create(MPI_COMM_WORLD, even_group, &even) == MPI_SUCCESS);
  if (rank % 2 == 0) {
    CHECK(even != MPI_COMM_NULL);
    int er = -1, en = -1;
    MPI_Comm_rank(even, &er);
    MPI_Comm_size(even, &en);
    CHECK(er == rank / 2 && en == static_cast<int>(evens.size()));
    int sum = -1;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even) == MPI_SUCCESS);
    int expected = 0;
    for (int e : evens) expected += e;
    CHECK(sum == expected && ring_sum(even, rank) == expected);
    MPI_Comm_free(&even);
  } else {
    CHECK(even == MPI_COMM_NULL);
  }
  // Empty group: nobody is a member.
  MPI_Comm nobody = 99;
  CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &nobody) == MPI_SUCCESS && nobody == MPI_COMM_NULL);
  // The whole world, reversed.
  std::vector<int> order;
  for (int r = size - 1; r >= 0; --r) order.push_back(r);
  MPI_Group reversed = MPI_GROUP_NULL;
  MPI_Group_incl(world, size, order.data(), &reversed);
  MPI_Comm backwards = MPI_COMM_NULL;
  CHECK(MPI_Comm_create(MPI_COMM_WORLD, reversed, &backwards) == MPI_SUCCESS);
  int br = -1;
  MPI_Comm_rank(backwards, &br);
  CHECK(br == size - 1 - rank);
  int result = -1;
  CHECK(MPI_Comm_compare(backwards, MPI_COMM_WORLD, &result) == MPI_SUCCESS &&
        result == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR));
  CHECK(ring_sum(backwards, rank) == size * (size - 1) / 2);
  MPI_Comm_free(&backwards);
  // A group with a member outside the communicator.
  if (size >= 2) {
    MPI_Comm self_group_comm = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_create(MPI_COMM_SELF, world, &self_group_comm) == MPI_ERR_GROUP);
  }
  MPI_Group_free(&reversed);
  MPI_Group_free(&even_group);
  MPI_Group_free(&world);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  groups();
  split();
  create();
  // Many communicators in a row: contexts keep being agreed.
  for (int i = 0; i < 50; ++i) {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &c);
    CHECK(c != MPI_COMM_NULL);
    MPI_Comm_free(&c);
  }
  const int code = tern::mpi_test::conclude("mpi_group");
  MPI_Finalize();
  return code;
}
