// Non-blocking collectives on intercommunicators, on 2 to 4 ranks, over a
// contiguous split of the world (uneven groups on 3 and 4 ranks) and a
// split by parity: barrier, bcast, reduce, allreduce, gather, scatter,
// allgather and alltoall with their values, each group taking its turn as
// root, while point-to-point traffic across the groups is in flight; their
// v and w forms and reduce_scatter(_block) with counts that differ by rank; a
// derived datatype, a persistent allreduce started twice, and with Tern the
// arguments refused there.
#include <algorithm>
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

// The v and w forms with counts that differ by rank: to and from remote
// rank r go (sender's rank + receiver's rank + 1) ints.
int pair_count(int sender, int receiver) { return sender + receiver + 1; }

void varied(const Side& s, int root_group) {
  // Gatherv and Scatterv: remote rank r's part holds r + 1 ints, the parts
  // laid out in reverse order of rank.
  const bool in_root_group = s.color == root_group;
  int root = 0;  // the root group's rank 0
  if (in_root_group) root = s.rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
  std::vector<int> counts(static_cast<std::size_t>(s.remote_size)), displs(counts.size());
  int total = 0;
  for (int r = s.remote_size - 1; r >= 0; --r) {
    counts[static_cast<std::size_t>(r)] = r + 1;
    displs[static_cast<std::size_t>(r)] = total;
    total += r + 1;
  }
  const int own_count = s.rank + 1;
  std::vector<int> own(static_cast<std::size_t>(own_count)), scattered(own.size(), -1);
  for (int i = 0; i < own_count; ++i) own[static_cast<std::size_t>(i)] = value_of(world_rank, i);
  std::vector<int> gathered(static_cast<std::size_t>(total), -1), parts(gathered.size());
  for (int k = 0; k < total; ++k) parts[static_cast<std::size_t>(k)] = 3 * k + 2;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK(MPI_Igatherv(own.data(), own_count, MPI_INT, gathered.data(), counts.data(), displs.data(), MPI_INT, root,
                     s.inter, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Iscatterv(parts.data(), counts.data(), displs.data(), MPI_INT, scattered.data(), own_count, MPI_INT, root,
                      s.inter, &requests[1]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  for (int r = 0; root == MPI_ROOT && r < s.remote_size; ++r) {
    for (int i = 0; i <= r; ++i) {
      CHECK(gathered[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + i)] ==
            value_of(s.theirs[static_cast<std::size_t>(r)], i));
    }
  }
  if (!in_root_group) {
    // This rank's part began where the root's displs put it.
    int start = 0;
    for (int r = s.size - 1; r > s.rank; --r) start += r + 1;
    for (int i = 0; i < own_count; ++i) CHECK(scattered[static_cast<std::size_t>(i)] == 3 * (start + i) + 2);
  }

  // Allgatherv, Alltoallv and Alltoallw.
  std::vector<int> in_counts(static_cast<std::size_t>(s.remote_size)), in_displs(in_counts.size());
  std::vector<int> out_counts(in_counts.size()), out_displs(in_counts.size());
  std::vector<int> gv_counts(in_counts.size()), gv_displs(in_counts.size());
  int in_total = 0, out_total = 0, gv_total = 0;
  for (int r = 0; r < s.remote_size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    in_counts[i] = pair_count(r, s.rank);
    in_displs[i] = in_total;
    in_total += in_counts[i];
    out_counts[i] = pair_count(s.rank, r);
    out_displs[i] = out_total;
    out_total += out_counts[i];
    gv_counts[i] = r + 1;
    gv_displs[i] = gv_total;
    gv_total += r + 1;
  }
  std::vector<int> out(static_cast<std::size_t>(out_total)), in(static_cast<std::size_t>(in_total), -1),
      in_w(in.size(), -1), all(static_cast<std::size_t>(gv_total), -1);
  for (int r = 0; r < s.remote_size; ++r) {
    for (int i = 0; i < out_counts[static_cast<std::size_t>(r)]; ++i) {
      out[static_cast<std::size_t>(out_displs[static_cast<std::size_t>(r)] + i)] = 1000 * world_rank + 10 * r + i;
    }
  }
  std::vector<int> in_bytes(in_displs), out_bytes(out_displs);
  for (int& d : in_bytes) d *= static_cast<int>(sizeof(int));
  for (int& d : out_bytes) d *= static_cast<int>(sizeof(int));
  const std::vector<MPI_Datatype> types(in_counts.size(), MPI_INT);
  MPI_Request more[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK(MPI_Iallgatherv(own.data(), own_count, MPI_INT, all.data(), gv_counts.data(), gv_displs.data(), MPI_INT,
                        s.inter, &more[0]) == MPI_SUCCESS);
  CHECK(MPI_Ialltoallv(out.data(), out_counts.data(), out_displs.data(), MPI_INT, in.data(), in_counts.data(),
                       in_displs.data(), MPI_INT, s.inter, &more[1]) == MPI_SUCCESS);
  CHECK(MPI_Ialltoallw(out.data(), out_counts.data(), out_bytes.data(), types.data(), in_w.data(), in_counts.data(),
                       in_bytes.data(), types.data(), s.inter, &more[2]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(3, more, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  for (int r = 0; r < s.remote_size; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    const int w = s.theirs[ri];
    for (int i = 0; i <= r; ++i) CHECK(all[static_cast<std::size_t>(gv_displs[ri] + i)] == value_of(w, i));
    for (int i = 0; i < in_counts[ri]; ++i) {
      const auto at = static_cast<std::size_t>(in_displs[ri] + i);
      CHECK(in[at] == 1000 * w + 10 * s.rank + i && in_w[at] == in[at]);
    }
  }
}

// Reduce_scatter: each group's sum of 6-int vectors, scattered over the
// other group's ranks by their counts (both groups' counts add up to 6);
// Reduce_scatter_block where the groups are of one size.
void reduce_scatters(const Side& s) {
  constexpr int kTotal = 6;
  std::vector<int> counts(static_cast<std::size_t>(s.size));
  int start = 0, mine_start = 0;
  for (int r = 0; r < s.size; ++r) {
    counts[static_cast<std::size_t>(r)] = kTotal / s.size + (r < kTotal % s.size ? 1 : 0);
    if (r == s.rank) mine_start = start;
    start += counts[static_cast<std::size_t>(r)];
  }
  std::vector<int> vector(kTotal), result(static_cast<std::size_t>(counts[static_cast<std::size_t>(s.rank)]), -1);
  for (int k = 0; k < kTotal; ++k) vector[static_cast<std::size_t>(k)] = value_of(world_rank, k);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ireduce_scatter(vector.data(), result.data(), counts.data(), MPI_INT, MPI_SUM, s.inter, &request) ==
        MPI_SUCCESS);
  complete(request);
  for (std::size_t i = 0; i < result.size(); ++i) {
    int expected = 0;
    for (int w : s.theirs) expected += value_of(w, mine_start + static_cast<int>(i));
    CHECK(result[i] == expected);
  }
  if (s.size != s.remote_size) return;
  std::vector<int> block(2, -1), whole(static_cast<std::size_t>(2 * s.size));
  for (std::size_t k = 0; k < whole.size(); ++k) whole[k] = value_of(world_rank, static_cast<int>(k));
  CHECK(MPI_Ireduce_scatter_block(whole.data(), block.data(), 2, MPI_INT, MPI_MAX, s.inter, &request) ==
        MPI_SUCCESS);
  complete(request);
  for (int i = 0; i < 2; ++i) {
    int expected = 0;
    for (int w : s.theirs) expected = std::max(expected, value_of(w, 2 * s.rank + i));
    CHECK(block[static_cast<std::size_t>(i)] == expected);
  }
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
  CHECK(error_class_of(MPI_Ialltoallv(MPI_IN_PLACE, counts.data(), displs.data(), MPI_INT, buffer.data(),
                                      counts.data(), displs.data(), MPI_INT, s.inter, &request)) == MPI_ERR_BUFFER);
  CHECK(error_class_of(MPI_Ireduce_scatter_block(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_SUM, s.inter, &request)) ==
        MPI_ERR_BUFFER);
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
    varied(s, root_group);
  }
  reduce_scatters(s);
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
