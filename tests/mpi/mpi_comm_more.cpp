// MPI_Comm_idup (alone, several outstanding, with point-to-point and a
// non-blocking collective on the parent meanwhile, with attributes and
// hints, of two parents started in opposite orders, beside blocking
// constructors started in other orders) and MPI_Comm_create_group (subsets, concurrent calls told apart by
// tag, groups in their own order).
#include <vector>

#include "check.hpp"

namespace {

int copies = 0;  // runs of the copy callback

int copy_plus_one(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  ++copies;
  *static_cast<void**>(out) = static_cast<char*>(in) + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

// Every rank sends its rank + `offset` to the right on each communicator,
// all receives posted first: each communicator must get its own value,
// which only holds if their contexts differ.
void check_separate(const std::vector<MPI_Comm>& comms, int rank, int size) {
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  std::vector<int> got(comms.size(), -1);
  std::vector<int> sent(comms.size());
  std::vector<MPI_Request> requests;
  for (std::size_t i = 0; i < comms.size(); ++i) {
    requests.push_back(MPI_REQUEST_NULL);
    CHECK(MPI_Irecv(&got[i], 1, MPI_INT, left, 3, comms[i], &requests.back()) == MPI_SUCCESS);
  }
  for (std::size_t i = comms.size(); i-- > 0;) {
    sent[i] = rank + 1000 * static_cast<int>(i);
    requests.push_back(MPI_REQUEST_NULL);
    CHECK(MPI_Isend(&sent[i], 1, MPI_INT, right, 3, comms[i], &requests.back()) == MPI_SUCCESS);
  }
  CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  for (std::size_t i = 0; i < comms.size(); ++i) CHECK(got[i] == left + 1000 * static_cast<int>(i));
}

void check_congruent(MPI_Comm comm, int rank, int size) {
  int result = -1;
  CHECK(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
  int r = -1, n = -1;
  CHECK(MPI_Comm_rank(comm, &r) == MPI_SUCCESS && r == rank);
  CHECK(MPI_Comm_size(comm, &n) == MPI_SUCCESS && n == size);
  int sum = 0;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS && sum == size * (size - 1) / 2);
}

void idup_with_work(int rank, int size) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &request) == MPI_SUCCESS);
  // Point-to-point on the parent while the duplicate is being made.
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  int got = -1;
  CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  CHECK(got == left);
  int done = 0;
  for (int i = 0; i < 1000 && !done; ++i) CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && request == MPI_REQUEST_NULL);
  check_congruent(dup, rank, size);
  check_separate({MPI_COMM_WORLD, dup}, rank, size);
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
}

void several_outstanding(int rank, int size) {
  constexpr int kCount = 5;
  std::vector<MPI_Comm> dups(kCount, MPI_COMM_NULL);
  std::vector<MPI_Request> requests(kCount + 1, MPI_REQUEST_NULL);
  int mine = rank + 1;
  int total = 0;
  // A non-blocking collective on the parent between the idups.
  for (int i = 0; i < kCount; ++i) {
    if (i == 2) CHECK(MPI_Iallreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[kCount]) == 0);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dups[static_cast<std::size_t>(i)], &requests[static_cast<std::size_t>(i)]) ==
          MPI_SUCCESS);
  }
  // Completed in the reverse order.
  for (int i = kCount; i >= 0; --i) {
    CHECK(MPI_Wait(&requests[static_cast<std::size_t>(i)], MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  CHECK(total == size * (size + 1) / 2);
  for (MPI_Comm dup : dups) check_congruent(dup, rank, size);
  std::vector<MPI_Comm> all = dups;
  all.push_back(MPI_COMM_WORLD);
  check_separate(all, rank, size);

  // Idups of a duplicate while the others are alive: contexts stay apart.
  MPI_Comm second = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Comm_idup(dups[1], &second, &request) == MPI_SUCCESS);
  CHECK(MPI_Waitall(1, &request, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  all.push_back(second);
  check_separate(all, rank, size);
  CHECK(MPI_Comm_free(&second) == MPI_SUCCESS);
  for (MPI_Comm& dup : dups) CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
}

// Idups of two parents outstanding together (the same order on every
// rank), and a blocking duplicate while an idup is pending.
void two_parents(int rank, int size) {
  MPI_Comm half = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half) == MPI_SUCCESS);
  MPI_Comm half_dup = MPI_COMM_NULL;
  MPI_Comm world_dup = MPI_COMM_NULL;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK(MPI_Comm_idup(half, &half_dup, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &world_dup, &requests[1]) == MPI_SUCCESS);
  MPI_Comm blocking = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &blocking) == MPI_SUCCESS);
  CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  check_congruent(world_dup, rank, size);
  check_congruent(blocking, rank, size);
  check_separate({MPI_COMM_WORLD, world_dup, blocking}, rank, size);
  int half_rank = -1, half_size = 0;
  MPI_Comm_rank(half_dup, &half_rank);
  MPI_Comm_size(half_dup, &half_size);
  CHECK(half_size == (size + 1 - rank % 2) / 2 && half_rank == rank / 2);
  check_separate({half, half_dup}, half_rank, half_size);
  for (MPI_Comm* comm : {&half, &half_dup, &world_dup, &blocking}) CHECK(MPI_Comm_free(comm) == MPI_SUCCESS);
}

// Even ranks start the idups of `a` then `b`, odd ranks `b` then `a`, with
// a blocking MPI_Comm_dup before them on even ranks and between them on odd
// ones, and an MPI_Comm_create_group of the whole world after them: the
// members' proposals cross, so the agreements must refuse and try again
// rather than end on one context (or wait for each other).
void opposite_orders(int rank, int size) {
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &a) == MPI_SUCCESS);
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &b) == MPI_SUCCESS);
  MPI_Group world_group = MPI_GROUP_NULL;
  CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS);
  const bool even = rank % 2 == 0;
  for (int round = 0; round < 8; ++round) {
    MPI_Comm a_dup = MPI_COMM_NULL, b_dup = MPI_COMM_NULL, blocking = MPI_COMM_NULL, grouped = MPI_COMM_NULL;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    // The idups alone first.
    CHECK(MPI_Comm_idup(even ? a : b, even ? &a_dup : &b_dup, &requests[even ? 0 : 1]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(even ? b : a, even ? &b_dup : &a_dup, &requests[even ? 1 : 0]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    check_separate({MPI_COMM_WORLD, a, b, a_dup, b_dup}, rank, size);
    for (MPI_Comm* comm : {&a_dup, &b_dup}) CHECK(MPI_Comm_free(comm) == MPI_SUCCESS);
    if (even) {
      CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &blocking) == MPI_SUCCESS);
      CHECK(MPI_Comm_idup(a, &a_dup, &requests[0]) == MPI_SUCCESS);
      CHECK(MPI_Comm_idup(b, &b_dup, &requests[1]) == MPI_SUCCESS);
    } else {
      CHECK(MPI_Comm_idup(b, &b_dup, &requests[1]) == MPI_SUCCESS);
      CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &blocking) == MPI_SUCCESS);
      CHECK(MPI_Comm_idup(a, &a_dup, &requests[0]) == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 11, &grouped) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (MPI_Comm comm : {a_dup, b_dup, blocking, grouped}) check_congruent(comm, rank, size);
    check_separate({MPI_COMM_WORLD, a, b, a_dup, b_dup, blocking, grouped}, rank, size);
    for (MPI_Comm* comm : {&a_dup, &b_dup, &blocking, &grouped}) CHECK(MPI_Comm_free(comm) == MPI_SUCCESS);
  }
  CHECK(MPI_Group_free(&world_group) == MPI_SUCCESS);
  for (MPI_Comm* comm : {&a, &b}) CHECK(MPI_Comm_free(comm) == MPI_SUCCESS);
}

void idup_attributes_and_info(int rank, int size) {
  int keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Comm_create_keyval(&copy_plus_one, MPI_COMM_NULL_DELETE_FN, &keyval, nullptr) == MPI_SUCCESS);
  static char base[4];
  MPI_Comm parent = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &parent) == MPI_SUCCESS);
  CHECK(MPI_Comm_set_attr(parent, keyval, base) == MPI_SUCCESS);
  copies = 0;
  MPI_Info info = MPI_INFO_NULL;
  CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
  CHECK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true") == MPI_SUCCESS);
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Comm_idup_with_info(parent, info, &dup, &request) == MPI_SUCCESS);
  CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(copies == 1);
  void* value = nullptr;
  int flag = 0;
  CHECK(MPI_Comm_get_attr(dup, keyval, &value, &flag) == MPI_SUCCESS && flag == 1 && value == base + 1);
  MPI_Info used = MPI_INFO_NULL;
  CHECK(MPI_Comm_get_info(dup, &used) == MPI_SUCCESS && used != MPI_INFO_NULL);
  CHECK(MPI_Info_free(&used) == MPI_SUCCESS);
  check_congruent(dup, rank, size);
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
  CHECK(MPI_Comm_free(&parent) == MPI_SUCCESS);
  CHECK(MPI_Comm_free_keyval(&keyval) == MPI_SUCCESS);

  // A duplicate of MPI_COMM_SELF is done alone.
  CHECK(MPI_Comm_idup(MPI_COMM_SELF, &dup, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  int n = 0;
  CHECK(MPI_Comm_size(dup, &n) == MPI_SUCCESS && n == 1);
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
}

// The communicator of `ranks` (world ranks, in that order) by
// MPI_Comm_create_group, called by its members only; checks its ranks.
MPI_Comm create_group(const std::vector<int>& ranks, int tag, int rank) {
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
  CHECK(MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &group) == MPI_SUCCESS);
  MPI_Comm comm = MPI_COMM_NULL;
  int position = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == rank) position = static_cast<int>(i);
  }
  if (position >= 0) {
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &comm) == MPI_SUCCESS && comm != MPI_COMM_NULL);
    int r = -1, n = -1;
    CHECK(MPI_Comm_rank(comm, &r) == MPI_SUCCESS && r == position);
    CHECK(MPI_Comm_size(comm, &n) == MPI_SUCCESS && n == static_cast<int>(ranks.size()));
    // Collectives run on it: the sum of the members' world ranks.
    int expected = 0;
    for (int member : ranks) expected += member;
    int sum = -1;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS && sum == expected);
  }
  CHECK(MPI_Group_free(&group) == MPI_SUCCESS);
  CHECK(MPI_Group_free(&world) == MPI_SUCCESS);
  return comm;
}

void create_groups(int rank, int size) {
  // Even and odd ranks at once, each set with its own tag; the odd one in reverse order.
  std::vector<int> even;
  std::vector<int> odd;
  for (int r = 0; r < size; ++r) (r % 2 == 0 ? even : odd).push_back(r);
  std::vector<int> odd_reversed(odd.rbegin(), odd.rend());
  MPI_Comm half = rank % 2 == 0 ? create_group(even, 7, rank) : create_group(odd_reversed, 8, rank);
  CHECK(half != MPI_COMM_NULL);

  // Everyone but rank 0, while rank 0 sends to the last rank on the parent.
  std::vector<int> rest;
  for (int r = 1; r < size; ++r) rest.push_back(r);
  int token = 0;
  if (rank == 0 && size > 1) {
    token = 55;
    CHECK(MPI_Send(&token, 1, MPI_INT, size - 1, 4, MPI_COMM_WORLD) == MPI_SUCCESS);
  }
  MPI_Comm others = rest.empty() ? MPI_COMM_NULL : create_group(rest, 7, rank);
  CHECK((others == MPI_COMM_NULL) == (rank == 0));
  if (rank == size - 1 && size > 1) {
    CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS && token == 55);
  }

  // Overlapping groups one after the other with one tag.
  MPI_Comm low = size >= 3 ? create_group({0, 1, 2}, 5, rank) : MPI_COMM_NULL;
  MPI_Comm high = size >= 4 ? create_group({1, 2, 3}, 5, rank) : MPI_COMM_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  // The new communicators' traffic stays apart from the parent's.
  check_separate({MPI_COMM_WORLD}, rank, size);
  if (others != MPI_COMM_NULL) {
    int n = 0;
    MPI_Comm_size(others, &n);
    int r = 0;
    MPI_Comm_rank(others, &r);
    check_separate({others}, r, n);
  }
  for (MPI_Comm* comm : {&half, &others, &low, &high}) {
    if (*comm != MPI_COMM_NULL) CHECK(MPI_Comm_free(comm) == MPI_SUCCESS);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  idup_with_work(rank, size);
  several_outstanding(rank, size);
  two_parents(rank, size);
  opposite_orders(rank, size);
  idup_attributes_and_info(rank, size);
  create_groups(rank, size);
  const int result = tern::mpi_test::conclude("mpi_comm_more");
  MPI_Finalize();
  return result;
}
