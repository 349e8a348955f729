// Non-blocking collectives on intercommunicators, on 2 to 4 ranks, over a
// contiguous split of the world (uneven groups on 3 and 4 ranks) and a
// split by parity: barrier, bcast, reduce, allreduce, gather, scatter,
// allgather and alltoall with their values, each group taking its turn as
// root, while point-to-point traffic across the groups is in flight; a
// derived datatype, a persistent allreduce started twice, and with Tern the
// forms still refused.
#include <initializer_list>
#include <vector>

#include "intercomm_side.hpp"

namespace {

using tern::mpi_test::Side;
using tern::mpi_test::world_rank;

// A value only world rank `w` gives for element `i`.
int value_of(int w, int i) { return 1000 * (w + 1) + i; }

// Point-to-point across the groups posted before a collective and
// completed after it: every rank to remote rank 0 and back.
struct Traffic {
  explicit Traffic(const Side& s) : in(static_cast<std::size_t>(s.rank == 0 ? s.remote_size : 0), -1) {
    out = world_rank;
    MPI_Isend(&out, 1, MPI_INT, 0, 5, s.inter, &requests.emplace_back());
    for (int r = 0; s.rank == 0 && r < s.remote_size; ++r) {
      MPI_Irecv(&in[static_cast<std::size_t>(r)], 1, MPI_INT, r, 5, s.inter, &requests.emplace_back());
    }
  }
  void finish(const Side& s) {
    CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int r = 0; s.rank == 0 && r < s.remote_size; ++r) CHECK(in[static_cast<std::size_t>(r)] == s.theirs[r]);
  }
  int out = 0;
  std::vector<int> in;
  std::vector<MPI_Request> requests;
};

// Completes `request` by testing, as a program computing meanwhile would.
void complete(MPI_Request& request) {
  int done = 0;
  while (!done) CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(request == MPI_REQUEST_NULL);
}

void barrier(const Side& s) {
  Traffic traffic(s);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibarrier(s.inter, &request) == MPI_SUCCESS);
  complete(request);
  traffic.finish(s);
}

void bcast(const Side& s, int root_group) {
  constexpr int kCount = 5;
  const bool in_root_group = s.color == root_group;
  const std::vector<int>& root_members = in_root_group ? s.mine : s.theirs;
#ifdef TERN_MPI
  const int root_at = root_group == 0 ? 0 : static_cast<int>(root_members.size()) - 1;
#else
  // MPICH 4.0's Ibcast on an intercommunicator delivers nothing when the
  // root is not its group's rank 0 (its blocking Bcast does).
  const int root_at = 0;
#endif
  const int root_world = root_members[static_cast<std::size_t>(root_at)];
  std::vector<int> data(kCount, -1);
  int root = root_at;
  if (in_root_group) {
    root = s.rank == root_at ? MPI_ROOT : MPI_PROC_NULL;
    if (root == MPI_ROOT) {
      for (int i = 0; i < kCount; ++i) data[static_cast<std::size_t>(i)] = value_of(world_rank, i);
    }
  }
  Traffic traffic(s);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast(data.data(), kCount, MPI_INT, root, s.inter, &request) == MPI_SUCCESS);
  complete(request);
  traffic.finish(s);
  for (int i = 0; i < kCount; ++i) {
    const int expected = (in_root_group && root == MPI_PROC_NULL) ? -1 : value_of(root_world, i);
    CHECK(data[static_cast<std::size_t>(i)] == expected);
  }
}

// Sum over the world ranks `group` of value_of(w, i).
long long group_sum(const std::vector<int>& group, int i) {
  long long sum = 0;
  for (int w : group) sum += value_of(w, i);
  return sum;
}

void reductions(const Side& s, int root_group) {
  constexpr int kCount = 4;
  std::vector<long long> send(kCount), recv(kCount, -1);
  for (int i = 0; i < kCount; ++i) send[static_cast<std::size_t>(i)] = value_of(world_rank, i);
  const bool in_root_group = s.color == root_group;
  const int root_local = root_group == 0 ? s.size - 1 : 0;
  int root = 0;
  if (in_root_group) root = s.rank == root_local ? MPI_ROOT : MPI_PROC_NULL;
  else root = root_group == 0 ? s.remote_size - 1 : 0;
  Traffic traffic(s);
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  std::vector<long long> all(kCount, -1);
  CHECK(MPI_Ireduce(send.data(), recv.data(), kCount, MPI_LONG_LONG, MPI_SUM, root, s.inter, &requests[0]) ==
        MPI_SUCCESS);
  CHECK(MPI_Iallreduce(send.data(), all.data(), kCount, MPI_LONG_LONG, MPI_SUM, s.inter, &requests[1]) ==
        MPI_SUCCESS);
  CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  traffic.finish(s);
  for (int i = 0; i < kCount; ++i) {
    const auto k = static_cast<std::size_t>(i);
    CHECK(all[k] == group_sum(s.theirs, i));
    CHECK(recv[k] == (root == MPI_ROOT ? group_sum(s.theirs, i) : -1));
  }
}

void rooted(const Side& s, int root_group) {
  constexpr int kCount = 3;
  const bool in_root_group = s.color == root_group;
  const int root_local = s.size / 2;
  int root = s.remote_size / 2;
  if (in_root_group) root = s.rank == root_local ? MPI_ROOT : MPI_PROC_NULL;
  std::vector<int> own(kCount), parts(static_cast<std::size_t>(kCount * s.remote_size), -1);
  for (int i = 0; i < kCount; ++i) own[static_cast<std::size_t>(i)] = value_of(world_rank, i);
  if (root == MPI_ROOT) {
    for (std::size_t k = 0; k < parts.size(); ++k) parts[k] = 7 * static_cast<int>(k) + 1;
  }
  std::vector<int> gathered(static_cast<std::size_t>(kCount * s.remote_size), -1), scattered(kCount, -1);
  Traffic traffic(s);
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK(MPI_Igather(own.data(), kCount, MPI_INT, gathered.data(), kCount, MPI_INT, root, s.inter, &requests[0]) ==
        MPI_SUCCESS);
  CHECK(MPI_Iscatter(parts.data(), kCount, MPI_INT, scattered.data(), kCount, MPI_INT, root, s.inter,
                     &requests[1]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  traffic.finish(s);
  for (int r = 0; r < s.remote_size; ++r) {
    for (int i = 0; i < kCount; ++i) {
      const int got = gathered[static_cast<std::size_t>(r * kCount + i)];
      CHECK(got == (root == MPI_ROOT ? value_of(s.theirs[static_cast<std::size_t>(r)], i) : -1));
    }
  }
  for (int i = 0; i < kCount; ++i) {
    const int expected = in_root_group ? -1 : 7 * (s.rank * kCount + i) + 1;
    CHECK(scattered[static_cast<std::size_t>(i)] == expected);
  }
}

void all_to_all(const Side& s) {
  constexpr int kCount = 2;
  std::vector<int> own(kCount), gathered(static_cast<std::size_t>(kCount * s.remote_size), -1);
  for (int i = 0; i < kCount; ++i) own[static_cast<std::size_t>(i)] = value_of(world_rank, i);
  // Block r of `out` is for remote rank r: 100 * (sender world) + r.
  std::vector<int> out(static_cast<std::size_t>(kCount * s.remote_size)),
      in(static_cast<std::size_t>(kCount * s.remote_size), -1);
  for (int r = 0; r < s.remote_size; ++r) {
    for (int i = 0; i < kCount; ++i) out[static_cast<std::size_t>(r * kCount + i)] = 100 * world_rank + 10 * r + i;
  }
  Traffic traffic(s);
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK(MPI_Iallgather(own.data(), kCount, MPI_INT, gathered.data(), kCount, MPI_INT, s.inter, &requests[0]) ==
        MPI_SUCCESS);
  CHECK(MPI_Ialltoall(out.data(), kCount, MPI_INT, in.data(), kCount, MPI_INT, s.inter, &requests[1]) ==
        MPI_SUCCESS);
  CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  traffic.finish(s);
  for (int r = 0; r < s.remote_size; ++r) {
    const int w = s.theirs[static_cast<std::size_t>(r)];
    for (int i = 0; i < kCount; ++i) {
      CHECK(gathered[static_cast<std::size_t>(r * kCount + i)] == value_of(w, i));
      CHECK(in[static_cast<std::size_t>(r * kCount + i)] == 100 * w + 10 * s.rank + i);
    }
  }
}

// A strided type (every other int) broadcast to the other group, and a
// persistent allreduce started twice with new values.
void derived_and_persistent(const Side& s) {
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  std::vector<int> data(6, -1);
  int root = 0;
  if (s.color == 0) {
    root = s.rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    if (root == MPI_ROOT) data = {1, -1, 2, -1, 3, -1};
  }
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast(data.data(), 1, strided, root, s.inter, &request) == MPI_SUCCESS);
  complete(request);
  if (s.color == 1) CHECK((data == std::vector<int>{1, -1, 2, -1, 3, -1}));
  MPI_Type_free(&strided);

  int value = 0, sum = -1;
  CHECK(MPI_Allreduce_init(&value, &sum, 1, MPI_INT, MPI_SUM, s.inter, MPI_INFO_NULL, &request) == MPI_SUCCESS);
  for (int round = 1; round <= 2; ++round) {
    value = round * (world_rank + 1);
    CHECK(MPI_Start(&request) == MPI_SUCCESS);
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    int expected = 0;
    for (int w : s.theirs) expected += round * (w + 1);
    CHECK(sum == expected);
  }
  MPI_Request_free(&request);
}

void refused(const Side& s) {
#ifdef TERN_MPI
  MPI_Comm_set_errhandler(s.inter, MPI_ERRORS_RETURN);
  auto error_class_of = [](int err) {
    int error_class = -1;
    MPI_Error_class(err, &error_class);
    return error_class;
  };
  MPI_Request request = MPI_REQUEST_NULL;
  int value = 1, result = 0;
  const std::vector<int> counts(static_cast<std::size_t>(s.remote_size), 1), displs(counts.size(), 0);
  std::vector<int> buffer(counts.size(), 0);
  CHECK(error_class_of(MPI_Ialltoallv(buffer.data(), counts.data(), displs.data(), MPI_INT, buffer.data(),
                                      counts.data(), displs.data(), MPI_INT, s.inter, &request)) ==
        MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(error_class_of(MPI_Iallgatherv(&value, 1, MPI_INT, buffer.data(), counts.data(), displs.data(), MPI_INT,
                                       s.inter, &request)) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(error_class_of(MPI_Ireduce_scatter_block(&value, &result, 1, MPI_INT, MPI_SUM, s.inter, &request)) ==
        MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(request == MPI_REQUEST_NULL);
  // Refused on any intercommunicator root, in place.
  CHECK(error_class_of(MPI_Iallreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_SUM, s.inter, &request)) ==
        MPI_ERR_BUFFER);
  CHECK(error_class_of(MPI_Ibcast(&value, 1, MPI_INT, s.remote_size, s.inter, &request)) == MPI_ERR_ROOT);
  CHECK(request == MPI_REQUEST_NULL);
  MPI_Comm_set_errhandler(s.inter, MPI_ERRORS_ARE_FATAL);
#else
  (void)s;
#endif
}

void suite(const std::vector<int>& colors) {
  Side s = tern::mpi_test::make_side(colors, 78);
  barrier(s);
  for (int root_group : {0, 1}) {
    bcast(s, root_group);
    reductions(s, root_group);
    rooted(s, root_group);
  }
  all_to_all(s);
  derived_and_persistent(s);
  // Blocking and non-blocking collectives on one intercommunicator keep
  // their order.
  int value = world_rank, sum = -1;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Iallreduce(&value, &sum, 1, MPI_INT, MPI_SUM, s.inter, &request) == MPI_SUCCESS);
  int blocking = -1;
  CHECK(MPI_Allreduce(&value, &blocking, 1, MPI_INT, MPI_MAX, s.inter) == MPI_SUCCESS);
  complete(request);
  int expected_sum = 0, expected_max = 0;
  for (int w : s.theirs) {
    expected_sum += w;
    expected_max = w > expected_max ? w : expected_max;
  }
  CHECK(sum == expected_sum && blocking == expected_max);
  refused(s);
  CHECK(MPI_Comm_free(&s.inter) == MPI_SUCCESS);
  MPI_Comm_free(&s.local);
}

}  // namespace

int main(int argc, char** argv) { return tern::mpi_test::run_splits(argc, argv, "mpi_intercomm_nbc", suite); }
