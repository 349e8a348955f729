// Intercommunicators on 2 to 4 ranks, built twice: from a contiguous split
// of the world (uneven groups on 3 and 4 ranks) and from a split by parity
// (members that are not neighbours in the world). Each time: the queries
// (test_inter, sizes, ranks, groups, compare), point-to-point across the
// groups (MPI_ANY_SOURCE, probe, persistent, cancel), every blocking
// collective with its values, dup, split, merge with the high flags, free;
// with Tern, the calls it refuses on intercommunicators.
#include <algorithm>
#include <numeric>
#include <vector>

#include "intercomm_side.hpp"

namespace {

using tern::mpi_test::Side;
using tern::mpi_test::world_rank;
using tern::mpi_test::world_size;

void queries(const Side& s) {
  int flag = -1;
  CHECK(MPI_Comm_test_inter(s.inter, &flag) == MPI_SUCCESS && flag == 1);
  CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag) == MPI_SUCCESS && flag == 0);
  CHECK(s.size == static_cast<int>(s.mine.size()));
  CHECK(s.remote_size == static_cast<int>(s.theirs.size()));
  CHECK(s.mine[static_cast<std::size_t>(s.rank)] == world_rank);
  MPI_Group world = MPI_GROUP_NULL, local = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  CHECK(MPI_Comm_group(s.inter, &local) == MPI_SUCCESS);
  CHECK(MPI_Comm_remote_group(s.inter, &remote) == MPI_SUCCESS);
  for (const auto& [group, expected] : {std::pair{local, s.mine}, std::pair{remote, s.theirs}}) {
    int n = -1;
    CHECK(MPI_Group_size(group, &n) == MPI_SUCCESS && n == static_cast<int>(expected.size()));
    std::vector<int> ranks(expected.size()), translated(expected.size(), -9);
    std::iota(ranks.begin(), ranks.end(), 0);
    MPI_Group_translate_ranks(group, n, ranks.data(), world, translated.data());
    CHECK(translated == expected);
  }
  MPI_Group_free(&local);
  MPI_Group_free(&remote);
  MPI_Group_free(&world);
  int result = -1;
  CHECK(MPI_Comm_compare(s.inter, s.inter, &result) == MPI_SUCCESS && result == MPI_IDENT);
  CHECK(MPI_Comm_compare(s.inter, MPI_COMM_WORLD, &result) == MPI_SUCCESS && result == MPI_UNEQUAL);
}

void point_to_point(const Side& s, MPI_Comm comm) {
  // Every process sends to every remote rank; receives take any source.
  std::vector<int> out(static_cast<std::size_t>(s.remote_size));
  std::vector<MPI_Request> requests(out.size());
  for (int r = 0; r < s.remote_size; ++r) {
    out[static_cast<std::size_t>(r)] = world_rank * 100 + r;
    CHECK(MPI_Isend(&out[static_cast<std::size_t>(r)], 1, MPI_INT, r, 5 + s.rank, comm,
                    &requests[static_cast<std::size_t>(r)]) == MPI_SUCCESS);
  }
  std::vector<int> seen(static_cast<std::size_t>(s.remote_size), 0);
  for (int i = 0; i < s.remote_size; ++i) {
    int value = -1;
    MPI_Status status;
    CHECK(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status) == MPI_SUCCESS);
    const int source = status.MPI_SOURCE;
    CHECK(source >= 0 && source < s.remote_size);
    if (source < 0 || source >= s.remote_size) continue;
    ++seen[static_cast<std::size_t>(source)];
    CHECK(status.MPI_TAG == 5 + source);
    CHECK(value == s.theirs[static_cast<std::size_t>(source)] * 100 + s.rank);
  }
  CHECK(seen == std::vector<int>(seen.size(), 1));
  CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  // The receives above take any tag: nothing else may be on the way.
  CHECK(MPI_Barrier(comm) == MPI_SUCCESS);

  // Rank 0 of each group: probe, persistent requests, a cancelled receive.
  if (s.rank != 0) return;
  const int three[3] = {world_rank, 7, 8};
  CHECK(MPI_Send(three, 3, MPI_INT, 0, 9, comm) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Probe(MPI_ANY_SOURCE, 9, comm, &status) == MPI_SUCCESS && status.MPI_SOURCE == 0);
  int count = -1;
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == 3);
  int got[3] = {};
  CHECK(MPI_Recv(got, 3, MPI_INT, 0, 9, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(got[0] == s.theirs[0] && got[1] == 7 && got[2] == 8);

  int send_value = 0, recv_value = -1;
  MPI_Request persistent[2];
  CHECK(MPI_Send_init(&send_value, 1, MPI_INT, 0, 11, comm, &persistent[0]) == MPI_SUCCESS);
  CHECK(MPI_Recv_init(&recv_value, 1, MPI_INT, 0, 11, comm, &persistent[1]) == MPI_SUCCESS);
  for (int round = 0; round < 2; ++round) {
    send_value = world_rank * 10 + round;
    CHECK(MPI_Startall(2, persistent) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(recv_value == s.theirs[0] * 10 + round);
  }
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);

  MPI_Request never = MPI_REQUEST_NULL;
  int unused = 0;
  CHECK(MPI_Irecv(&unused, 1, MPI_INT, 0, 12, comm, &never) == MPI_SUCCESS);
  CHECK(MPI_Cancel(&never) == MPI_SUCCESS);
  CHECK(MPI_Wait(&never, &status) == MPI_SUCCESS);
  int cancelled = 0;
  MPI_Test_cancelled(&status, &cancelled);
  CHECK(cancelled == 1);
}

int sum_of(const std::vector<int>& v, int add) {
  int total = 0;
  for (int x : v) total += x + add;
  return total;
}

// Roots: group A's rank 0 (`a_root`) or group B's last rank.
int root_arg(const Side& s, int root_color) {
  const int root_rank = root_color == 0 ? 0 : (root_color == s.color ? s.size : s.remote_size) - 1;
  if (s.color == root_color) return s.rank == root_rank ? MPI_ROOT : MPI_PROC_NULL;
  return root_rank;
}

void rooted(const Side& s, MPI_Comm comm) {
  for (int root_color = 0; root_color < 2; ++root_color) {
    const int root = root_arg(s, root_color);
    const bool receiving = s.color != root_color;
    // Bcast.
    int data[4] = {-1, -1, -1, -1};
    if (root == MPI_ROOT) data[0] = 42, data[1] = 43, data[2] = 44, data[3] = 45 + root_color;
    CHECK(MPI_Bcast(data, 4, MPI_INT, root, comm) == MPI_SUCCESS);
    if (receiving) CHECK(data[0] == 42 && data[1] == 43 && data[2] == 44 && data[3] == 45 + root_color);
    if (root == MPI_PROC_NULL) CHECK(data[0] == -1);
    // Reduce: the root gets the other group's sum.
    const int part[2] = {world_rank, 1};
    int total[2] = {-1, -1};
    CHECK(MPI_Reduce(part, total, 2, MPI_INT, MPI_SUM, root, comm) == MPI_SUCCESS);
    if (root == MPI_ROOT) CHECK(total[0] == sum_of(s.theirs, 0) && total[1] == s.remote_size);
    // Gather(v) to the root; Scatter(v) from it.
    std::vector<int> all(2 * s.theirs.size(), -1);
    CHECK(MPI_Gather(&world_rank, 1, MPI_INT, all.data(), 1, MPI_INT, root, comm) == MPI_SUCCESS);
    if (root == MPI_ROOT) {
      CHECK(std::vector<int>(all.begin(), all.begin() + s.remote_size) == s.theirs);
    }
    std::vector<int> counts(s.theirs.size()), displs(s.theirs.size());
    for (int r = 0; r < s.remote_size; ++r) {
      counts[static_cast<std::size_t>(r)] = r % 2 + 1;
      displs[static_cast<std::size_t>(r)] = 2 * (s.remote_size - 1 - r);
    }
    const int pair[2] = {world_rank, -world_rank};
    std::fill(all.begin(), all.end(), -1);
    CHECK(MPI_Gatherv(pair, s.rank % 2 + 1, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, root, comm) ==
          MPI_SUCCESS);
    if (root == MPI_ROOT) {
      for (int r = 0; r < s.remote_size; ++r) {
        const auto at = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]);
        const int w = s.theirs[static_cast<std::size_t>(r)];
        CHECK(all[at] == w && (r % 2 == 0 || all[at + 1] == -w));
      }
    }
    std::vector<int> parts(2 * s.theirs.size());
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i] = 1000 + static_cast<int>(i);
    int piece[2] = {-1, -1};
    CHECK(MPI_Scatter(parts.data(), 2, MPI_INT, piece, 2, MPI_INT, root, comm) == MPI_SUCCESS);
    if (receiving) CHECK(piece[0] == 1000 + 2 * s.rank && piece[1] == 1001 + 2 * s.rank);
    piece[0] = piece[1] = -1;
    CHECK(MPI_Scatterv(parts.data(), counts.data(), displs.data(), MPI_INT, piece, s.rank % 2 + 1, MPI_INT, root,
                       comm) == MPI_SUCCESS);
    if (receiving) {
      const int at = 1000 + 2 * (s.size - 1 - s.rank);
      CHECK(piece[0] == at && (s.rank % 2 == 0 ? piece[1] == -1 : piece[1] == at + 1));
    }
  }
}

void all_to_all(const Side& s, MPI_Comm comm) {
  CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
  // Allreduce: each group gets the other's reduction.
  const int part[2] = {world_rank + 1, world_rank};
  int total[2] = {-1, -1};
  CHECK(MPI_Allreduce(part, total, 2, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
  CHECK(total[0] == sum_of(s.theirs, 1) && total[1] == sum_of(s.theirs, 0));
  int highest = -1;
  CHECK(MPI_Allreduce(&world_rank, &highest, 1, MPI_INT, MPI_MAX, comm) == MPI_SUCCESS);
  CHECK(highest == s.theirs.back());
  // Allgather(v): the remote group's world ranks in remote rank order.
  const auto rn = static_cast<std::size_t>(s.remote_size);
  std::vector<int> gathered(2 * rn, -1);
  CHECK(MPI_Allgather(&world_rank, 1, MPI_INT, gathered.data(), 1, MPI_INT, comm) == MPI_SUCCESS);
  CHECK(std::vector<int>(gathered.begin(), gathered.begin() + s.remote_size) == s.theirs);
  std::vector<int> counts(rn), displs(rn);
  for (std::size_t r = 0; r < rn; ++r) {
    counts[r] = static_cast<int>(r % 2) + 1;
    displs[r] = 2 * static_cast<int>(rn - 1 - r);
  }
  const int pair[2] = {world_rank, world_rank + 50};
  std::fill(gathered.begin(), gathered.end(), -1);
  CHECK(MPI_Allgatherv(pair, s.rank % 2 + 1, MPI_INT, gathered.data(), counts.data(), displs.data(), MPI_INT,
                       comm) == MPI_SUCCESS);
  for (std::size_t r = 0; r < rn; ++r) {
    const auto at = static_cast<std::size_t>(displs[r]);
    CHECK(gathered[at] == s.theirs[r] && (r % 2 == 0 || gathered[at + 1] == s.theirs[r] + 50));
  }
  // Alltoall(v,w): block r goes to remote rank r.
  std::vector<int> out(rn), in(rn, -1);
  for (std::size_t r = 0; r < rn; ++r) out[r] = world_rank * 100 + static_cast<int>(r);
  CHECK(MPI_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, comm) == MPI_SUCCESS);
  for (std::size_t r = 0; r < rn; ++r) CHECK(in[r] == s.theirs[r] * 100 + s.rank);
  std::vector<int> ones(rn, 1), reversed(rn);
  for (std::size_t r = 0; r < rn; ++r) reversed[r] = static_cast<int>(rn - 1 - r);
  std::fill(in.begin(), in.end(), -1);
  CHECK(MPI_Alltoallv(out.data(), ones.data(), reversed.data(), MPI_INT, in.data(), ones.data(), reversed.data(),
                      MPI_INT, comm) == MPI_SUCCESS);
  // Remote rank r sent its block for this rank from its reversed slot.
  for (std::size_t r = 0; r < rn; ++r) CHECK(in[rn - 1 - r] == s.theirs[r] * 100 + s.size - 1 - s.rank);
  std::vector<int> bytes(rn);
  std::vector<MPI_Datatype> types(rn, MPI_INT);
  for (std::size_t r = 0; r < rn; ++r) bytes[r] = static_cast<int>(r * sizeof(int));
  std::fill(in.begin(), in.end(), -1);
  CHECK(MPI_Alltoallw(out.data(), ones.data(), bytes.data(), types.data(), in.data(), ones.data(), bytes.data(),
                      types.data(), comm) == MPI_SUCCESS);
  for (std::size_t r = 0; r < rn; ++r) CHECK(in[r] == s.theirs[r] * 100 + s.rank);
  // Reduce_scatter(_block): both groups reduce vectors of size * remote_size
  // elements; element k is sum over the other group of (world rank + k).
  const int total_n = s.size * s.remote_size;
  std::vector<int> vec(static_cast<std::size_t>(total_n));
  for (int k = 0; k < total_n; ++k) vec[static_cast<std::size_t>(k)] = world_rank + k;
  std::vector<int> mine(static_cast<std::size_t>(total_n), -1);
  CHECK(MPI_Reduce_scatter_block(vec.data(), mine.data(), s.remote_size, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
  for (int k = 0; k < s.remote_size; ++k) {
    CHECK(mine[static_cast<std::size_t>(k)] == sum_of(s.theirs, s.rank * s.remote_size + k));
  }
  std::vector<int> shares(static_cast<std::size_t>(s.size), 1);
  shares[0] = total_n - (s.size - 1);
  std::fill(mine.begin(), mine.end(), -1);
  CHECK(MPI_Reduce_scatter(vec.data(), mine.data(), shares.data(), MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
  const int first = s.rank == 0 ? 0 : shares[0] + s.rank - 1;
  for (int k = 0; k < shares[static_cast<std::size_t>(s.rank)]; ++k) {
    CHECK(mine[static_cast<std::size_t>(k)] == sum_of(s.theirs, first + k));
  }
}

void derived(const Side& s) {
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(s.inter, &dup) == MPI_SUCCESS);
  int flag = 0, result = -1;
  CHECK(MPI_Comm_test_inter(dup, &flag) == MPI_SUCCESS && flag == 1);
  CHECK(MPI_Comm_compare(s.inter, dup, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
  point_to_point(s, dup);
  all_to_all(s, dup);
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL);

  // Split by local parity, keys reversed.
  MPI_Comm half = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(s.inter, s.rank % 2, -s.rank, &half) == MPI_SUCCESS);
  const int local_n = (s.size + 1 - s.rank % 2) / 2, remote_n = (s.remote_size + 1 - s.rank % 2) / 2;
  if (remote_n == 0) {
    CHECK(half == MPI_COMM_NULL);
  } else {
    int n = -1, r = -1, rn = -1;
    MPI_Comm_size(half, &n);
    MPI_Comm_rank(half, &r);
    MPI_Comm_remote_size(half, &rn);
    CHECK(n == local_n && rn == remote_n && r == local_n - 1 - s.rank / 2);
    int top = -1;
    CHECK(MPI_Allreduce(&world_rank, &top, 1, MPI_INT, MPI_MAX, half) == MPI_SUCCESS);
    int expected = -1;
    for (int i = s.rank % 2; i < s.remote_size; i += 2) {
      expected = std::max(expected, s.theirs[static_cast<std::size_t>(i)]);
    }
    CHECK(top == expected);
    MPI_Comm_free(&half);
  }

  // Merge: the group passing high = 0 comes first.
  for (int a_high = 0; a_high < 2; ++a_high) {
    const int high = s.color == 0 ? a_high : 1 - a_high;
    MPI_Comm merged = MPI_COMM_NULL;
    CHECK(MPI_Intercomm_merge(s.inter, high, &merged) == MPI_SUCCESS);
    int n = -1, r = -1;
    MPI_Comm_size(merged, &n);
    MPI_Comm_rank(merged, &r);
    CHECK(n == world_size);
    CHECK(r == (high == 0 ? s.rank : s.remote_size + s.rank));
    CHECK(MPI_Comm_test_inter(merged, &flag) == MPI_SUCCESS && flag == 0);
    int total = -1;
    CHECK(MPI_Allreduce(&world_rank, &total, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS);
    CHECK(total == world_size * (world_size - 1) / 2);
    MPI_Comm_free(&merged);
  }
  // The same flag on both sides: one group first, whichever, in one block.
  MPI_Comm merged = MPI_COMM_NULL;
  CHECK(MPI_Intercomm_merge(s.inter, 1, &merged) == MPI_SUCCESS);
  int r = -1;
  MPI_Comm_rank(merged, &r);
  CHECK(r == s.rank || r == s.remote_size + s.rank);
  int ranks_in_order = r - s.rank, agreed = -1;
  MPI_Allreduce(&ranks_in_order, &agreed, 1, MPI_INT, MPI_MAX, s.local);
  CHECK(agreed == ranks_in_order);
  MPI_Comm_free(&merged);
}

void refused(const Side& s) {
#ifdef TERN_MPI
  MPI_Comm_set_errhandler(s.inter, MPI_ERRORS_RETURN);
  auto is_unsupported = [](int err) {
    int error_class = -1;
    MPI_Error_class(err, &error_class);
    return error_class == MPI_ERR_UNSUPPORTED_OPERATION;
  };
  int value = 1, result = 0;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm_group(s.inter, &group);
  MPI_Comm created = MPI_COMM_NULL;
  CHECK(is_unsupported(MPI_Comm_create(s.inter, group, &created)));
  MPI_Group_free(&group);
  int error_class = -1;
  MPI_Error_class(MPI_Scan(&value, &result, 1, MPI_INT, MPI_SUM, s.inter), &error_class);
  CHECK(error_class == MPI_ERR_COMM);
  // Calls defined on intracommunicators only.
  MPI_Comm cart = MPI_COMM_NULL;
  const int dims[1] = {s.size}, periods[1] = {0};
  MPI_Error_class(MPI_Cart_create(s.inter, 1, dims, periods, 0, &cart), &error_class);
  CHECK(error_class == MPI_ERR_COMM && cart == MPI_COMM_NULL);
  MPI_Win win = MPI_WIN_NULL;
  MPI_Error_class(MPI_Win_create(&value, sizeof value, 1, MPI_INFO_NULL, s.inter, &win), &error_class);
  CHECK(error_class == MPI_ERR_COMM);
  MPI_Error_class(MPI_Bcast(&value, 1, MPI_INT, s.remote_size, s.inter), &error_class);
  CHECK(error_class == MPI_ERR_ROOT);
  MPI_Error_class(MPI_Send(&value, 1, MPI_INT, s.remote_size, 0, s.inter), &error_class);
  CHECK(error_class == MPI_ERR_RANK);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Error_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &size), &error_class);
  CHECK(error_class == MPI_ERR_COMM);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(s.inter, MPI_ERRORS_ARE_FATAL);
#else
  (void)s;
#endif
}

void suite(const std::vector<int>& colors) {
  Side s = tern::mpi_test::make_side(colors, 77);
  queries(s);
  point_to_point(s, s.inter);
  rooted(s, s.inter);
  all_to_all(s, s.inter);
  derived(s);
  refused(s);
  CHECK(MPI_Comm_free(&s.inter) == MPI_SUCCESS && s.inter == MPI_COMM_NULL);
  MPI_Comm_free(&s.local);
}

}  // namespace

int main(int argc, char** argv) { return tern::mpi_test::run_splits(argc, argv, "mpi_intercomm", suite); }
