// MPI 4.0's large-count (_c) collectives: each called with small counts and
// compared with its int form (the non-blocking and persistent _c forms with
// the blocking int form; the neighbourhood forms on a ring), a derived
// datatype and an intercommunicator through a _c collective, the
// MPI_ERR_COUNT of a count past INT_MAX on a path that takes ints only, and
// (at 2 ranks) an MPI_Bcast_c of 2^31 + 8 bytes checked at several offsets.
#include <sys/mman.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;
constexpr int kCount = 6;

void check_that(bool ok, const char* what, int line) { tern::mpi_test::check(ok, what, line); }

std::vector<int> pattern(int count, int seed) {
  std::vector<int> data(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) data[static_cast<std::size_t>(i)] = seed * 1000 + i + 1;
  return data;
}

// The counts and displacements of the v and w calls, as ints and as the _c
// forms take them: rank r's block holds r + 1 elements, packed in order.
struct VLayout {
  std::vector<int> counts, displs;
  std::vector<MPI_Count> counts_c;
  std::vector<MPI_Aint> displs_c;
  int total = 0;

  explicit VLayout(int per_rank_extra) {
    for (int r = 0; r < size; ++r) {
      counts.push_back(r + 1 + per_rank_extra);
      displs.push_back(total);
      total += counts.back();
    }
    counts_c.assign(counts.begin(), counts.end());
    displs_c.assign(displs.begin(), displs.end());
  }
  // The byte displacements of the w calls.
  [[nodiscard]] std::vector<int> bytes() const {
    std::vector<int> out;
    for (int d : displs) out.push_back(d * static_cast<int>(sizeof(int)));
    return out;
  }
};

void rooted_and_gathers() {
  const std::vector<int> mine = pattern(kCount, rank);
  const auto n = static_cast<std::size_t>(size);
  // Bcast.
  std::vector<int> a = pattern(kCount, rank == 1 ? 99 : rank), b = a;
  CHECK(MPI_Bcast(a.data(), kCount, MPI_INT, 1 % size, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Bcast_c(b.data(), kCount, MPI_INT, 1 % size, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(a == b && a == pattern(kCount, 1 % size == 1 ? 99 : 0), "MPI_Bcast_c", __LINE__);
  // Gather, Scatter, Allgather, Alltoall.
  std::vector<int> all(n * kCount, -1), all_c(n * kCount, -1);
  CHECK(MPI_Gather(mine.data(), kCount, MPI_INT, all.data(), kCount, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Gather_c(mine.data(), kCount, MPI_INT, all_c.data(), kCount, MPI_INT, 0, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  check_that(all == all_c, "MPI_Gather_c", __LINE__);
  const std::vector<int> source = pattern(static_cast<int>(n) * kCount, 7);
  std::vector<int> part(kCount, -1), part_c(kCount, -1);
  CHECK(MPI_Scatter(source.data(), kCount, MPI_INT, part.data(), kCount, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Scatter_c(source.data(), kCount, MPI_INT, part_c.data(), kCount, MPI_INT, 0, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  check_that(part == part_c && part[0] == source[static_cast<std::size_t>(rank) * kCount], "MPI_Scatter_c",
             __LINE__);
  std::fill(all.begin(), all.end(), -1);
  std::fill(all_c.begin(), all_c.end(), -1);
  CHECK(MPI_Allgather(mine.data(), kCount, MPI_INT, all.data(), kCount, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Allgather_c(mine.data(), kCount, MPI_INT, all_c.data(), kCount, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  check_that(all == all_c && all.back() == pattern(kCount, size - 1).back(), "MPI_Allgather_c", __LINE__);
  const std::vector<int> outgoing = pattern(static_cast<int>(n) * kCount, rank);
  CHECK(MPI_Alltoall(outgoing.data(), kCount, MPI_INT, all.data(), kCount, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Alltoall_c(outgoing.data(), kCount, MPI_INT, all_c.data(), kCount, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  check_that(all == all_c, "MPI_Alltoall_c", __LINE__);
  // In place.
  std::vector<int> in_place(n * kCount, 0);
  std::copy(mine.begin(), mine.end(), in_place.begin() + static_cast<std::ptrdiff_t>(rank) * kCount);
  CHECK(MPI_Allgather_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place.data(), kCount, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  std::vector<int> expected;
  for (int r = 0; r < size; ++r) {
    const std::vector<int> p = pattern(kCount, r);
    expected.insert(expected.end(), p.begin(), p.end());
  }
  check_that(in_place == expected, "MPI_Allgather_c in place", __LINE__);
}

void v_and_w() {
  const VLayout layout(0);
  const auto total = static_cast<std::size_t>(layout.total);
  const int mine_count = rank + 1;
  const std::vector<int> mine = pattern(mine_count, rank);
  std::vector<int> all(total, -1), all_c(total, -1);
  CHECK(MPI_Gatherv(mine.data(), mine_count, MPI_INT, all.data(), layout.counts.data(), layout.displs.data(), MPI_INT,
                    0, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Gatherv_c(mine.data(), mine_count, MPI_INT, all_c.data(), layout.counts_c.data(), layout.displs_c.data(),
                      MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(all == all_c, "MPI_Gatherv_c", __LINE__);
  const std::vector<int> source = pattern(layout.total, 5);
  std::vector<int> part(static_cast<std::size_t>(mine_count), -1), part_c = part;
  CHECK(MPI_Scatterv(source.data(), layout.counts.data(), layout.displs.data(), MPI_INT, part.data(), mine_count,
                     MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Scatterv_c(source.data(), layout.counts_c.data(), layout.displs_c.data(), MPI_INT, part_c.data(),
                       mine_count, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(part == part_c && part[0] == source[static_cast<std::size_t>(layout.displs[rank])], "MPI_Scatterv_c",
             __LINE__);
  std::fill(all.begin(), all.end(), -1);
  std::fill(all_c.begin(), all_c.end(), -1);
  CHECK(MPI_Allgatherv(mine.data(), mine_count, MPI_INT, all.data(), layout.counts.data(), layout.displs.data(),
                       MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Allgatherv_c(mine.data(), mine_count, MPI_INT, all_c.data(), layout.counts_c.data(),
                         layout.displs_c.data(), MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(all == all_c && all.back() == pattern(size, size - 1).back(), "MPI_Allgatherv_c", __LINE__);

  // Alltoallv and Alltoallw: rank r gets r + 1 elements from everyone, so
  // each rank sends rank s's block s + 1 elements.
  const VLayout sends(0);
  std::vector<MPI_Count> recv_counts_c(static_cast<std::size_t>(size), mine_count);
  std::vector<int> recv_counts(static_cast<std::size_t>(size), mine_count), recv_displs(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) recv_displs[static_cast<std::size_t>(r)] = r * mine_count;
  const std::vector<MPI_Aint> recv_displs_c(recv_displs.begin(), recv_displs.end());
  const std::vector<int> outgoing = pattern(sends.total, rank);
  const auto received = static_cast<std::size_t>(size * mine_count);
  std::vector<int> in(received, -1), in_c(received, -1), in_w(received, -1);
  CHECK(MPI_Alltoallv(outgoing.data(), sends.counts.data(), sends.displs.data(), MPI_INT, in.data(),
                      recv_counts.data(), recv_displs.data(), MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Alltoallv_c(outgoing.data(), sends.counts_c.data(), sends.displs_c.data(), MPI_INT, in_c.data(),
                        recv_counts_c.data(), recv_displs_c.data(), MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(in == in_c && in[0] == pattern(sends.total, 0)[static_cast<std::size_t>(sends.displs[rank])],
             "MPI_Alltoallv_c", __LINE__);
  const std::vector<MPI_Datatype> types(static_cast<std::size_t>(size), MPI_INT);
  std::vector<MPI_Aint> send_bytes_c, recv_bytes_c;
  for (int d : sends.displs) send_bytes_c.push_back(static_cast<MPI_Aint>(d) * 4);
  for (int d : recv_displs) recv_bytes_c.push_back(static_cast<MPI_Aint>(d) * 4);
  CHECK(MPI_Alltoallw_c(outgoing.data(), sends.counts_c.data(), send_bytes_c.data(), types.data(), in_w.data(),
                        recv_counts_c.data(), recv_bytes_c.data(), types.data(), MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(in_w == in, "MPI_Alltoallw_c", __LINE__);
  std::vector<int> in_wi(received, -1);
  const std::vector<int> send_bytes = sends.bytes();
  std::vector<int> recv_bytes;
  for (int d : recv_displs) recv_bytes.push_back(d * 4);
  CHECK(MPI_Alltoallw(outgoing.data(), sends.counts.data(), send_bytes.data(), types.data(), in_wi.data(),
                      recv_counts.data(), recv_bytes.data(), types.data(), MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(in_wi == in_w, "MPI_Alltoallw", __LINE__);
}

void reductions() {
  const std::vector<int> mine = pattern(kCount, rank);
  std::vector<int> out(kCount, -1), out_c(kCount, -1);
  CHECK(MPI_Reduce(mine.data(), out.data(), kCount, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Reduce_c(mine.data(), out_c.data(), kCount, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(out == out_c, "MPI_Reduce_c", __LINE__);
  CHECK(MPI_Allreduce(mine.data(), out.data(), kCount, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Allreduce_c(mine.data(), out_c.data(), kCount, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(out == out_c && out == pattern(kCount, size - 1), "MPI_Allreduce_c", __LINE__);
  std::vector<int> in_place = mine;
  CHECK(MPI_Allreduce_c(MPI_IN_PLACE, in_place.data(), kCount, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(in_place == out, "MPI_Allreduce_c in place", __LINE__);
  CHECK(MPI_Scan(mine.data(), out.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Scan_c(mine.data(), out_c.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(out == out_c, "MPI_Scan_c", __LINE__);
  std::fill(out.begin(), out.end(), -1);
  std::fill(out_c.begin(), out_c.end(), -1);
  CHECK(MPI_Exscan(mine.data(), out.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Exscan_c(mine.data(), out_c.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(out == out_c, "MPI_Exscan_c", __LINE__);

  const VLayout layout(1);
  const std::vector<int> vector = pattern(layout.total, rank);
  const auto mine_count = static_cast<std::size_t>(layout.counts[rank]);
  std::vector<int> block(mine_count, -1), block_c(mine_count, -1);
  CHECK(MPI_Reduce_scatter(vector.data(), block.data(), layout.counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(MPI_Reduce_scatter_c(vector.data(), block_c.data(), layout.counts_c.data(), MPI_INT, MPI_SUM,
                             MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(block == block_c, "MPI_Reduce_scatter_c", __LINE__);
  const std::vector<int> uniform = pattern(size * kCount, rank);
  std::vector<int> piece(kCount, -1), piece_c(kCount, -1);
  CHECK(MPI_Reduce_scatter_block(uniform.data(), piece.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(MPI_Reduce_scatter_block_c(uniform.data(), piece_c.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  check_that(piece == piece_c, "MPI_Reduce_scatter_block_c", __LINE__);
}

// The non-blocking (`persistent` false) or persistent _c form of a
// collective, posted by `post` into `out`; `init` is what `out` holds before
// each run (the persistent form runs twice), `want` what it must hold after.
template <class Post>
void both_forms(const char* what, int line, const std::vector<int>& init, const std::vector<int>& want, Post post) {
  for (const bool persistent : {false, true}) {
    std::vector<int> out = init;
    MPI_Request request = MPI_REQUEST_NULL;
    bool ok = post(persistent, out.data(), &request) == MPI_SUCCESS;
    for (int round = 0; ok && round < (persistent ? 2 : 1); ++round) {
      if (persistent) {
        out = init;
        ok &= MPI_Start(&request) == MPI_SUCCESS;
      }
      ok &= MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && out == want;
    }
    if (persistent && request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    check_that(ok, what, line);
  }
}

void nonblocking_and_persistent() {
  const auto n = static_cast<std::size_t>(size);
  const MPI_Comm world = MPI_COMM_WORLD;
  const MPI_Info none = MPI_INFO_NULL;
  const std::vector<int> mine = pattern(kCount, rank);
  const std::vector<int> blank(kCount, -1), blank_all(n * kCount, -1);
  const std::vector<int> source = pattern(static_cast<int>(n) * kCount, rank + 3);
  std::vector<int> want;

  const std::vector<int> root_data = rank == 0 ? mine : blank;
  want = root_data;
  MPI_Bcast(want.data(), kCount, MPI_INT, 0, world);
  both_forms("MPI_Ibcast_c / MPI_Bcast_init_c", __LINE__, root_data, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Bcast_init_c(out, kCount, MPI_INT, 0, world, none, r)
             : MPI_Ibcast_c(out, kCount, MPI_INT, 0, world, r);
  });
  want = blank_all;
  MPI_Gather(mine.data(), kCount, MPI_INT, want.data(), kCount, MPI_INT, 0, world);
  both_forms("MPI_Igather_c / MPI_Gather_init_c", __LINE__, blank_all, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Gather_init_c(mine.data(), kCount, MPI_INT, out, kCount, MPI_INT, 0, world, none, r)
             : MPI_Igather_c(mine.data(), kCount, MPI_INT, out, kCount, MPI_INT, 0, world, r);
  });
  want = blank;
  MPI_Scatter(source.data(), kCount, MPI_INT, want.data(), kCount, MPI_INT, 0, world);
  both_forms("MPI_Iscatter_c / MPI_Scatter_init_c", __LINE__, blank, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Scatter_init_c(source.data(), kCount, MPI_INT, out, kCount, MPI_INT, 0, world, none, r)
             : MPI_Iscatter_c(source.data(), kCount, MPI_INT, out, kCount, MPI_INT, 0, world, r);
  });
  want = blank_all;
  MPI_Allgather(mine.data(), kCount, MPI_INT, want.data(), kCount, MPI_INT, world);
  both_forms("MPI_Iallgather_c / MPI_Allgather_init_c", __LINE__, blank_all, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Allgather_init_c(mine.data(), kCount, MPI_INT, out, kCount, MPI_INT, world, none, r)
                        : MPI_Iallgather_c(mine.data(), kCount, MPI_INT, out, kCount, MPI_INT, world, r);
             });
  want = blank_all;
  MPI_Alltoall(source.data(), kCount, MPI_INT, want.data(), kCount, MPI_INT, world);
  both_forms("MPI_Ialltoall_c / MPI_Alltoall_init_c", __LINE__, blank_all, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Alltoall_init_c(source.data(), kCount, MPI_INT, out, kCount, MPI_INT, world, none, r)
                        : MPI_Ialltoall_c(source.data(), kCount, MPI_INT, out, kCount, MPI_INT, world, r);
             });

  // The v and w forms: rank r's block holds r + 1 elements.
  const VLayout v(0);
  const int mine_count = rank + 1;
  const std::vector<int> blank_v(static_cast<std::size_t>(v.total), -1);
  const std::vector<int> blank_mine(static_cast<std::size_t>(mine_count), -1);
  const std::vector<int> v_source = pattern(v.total, rank + 5);
  want = blank_v;
  MPI_Gatherv(mine.data(), mine_count, MPI_INT, want.data(), v.counts.data(), v.displs.data(), MPI_INT, 0, world);
  both_forms("MPI_Igatherv_c / MPI_Gatherv_init_c", __LINE__, blank_v, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Gatherv_init_c(mine.data(), mine_count, MPI_INT, out, v.counts_c.data(), v.displs_c.data(), MPI_INT,
                                  0, world, none, r)
             : MPI_Igatherv_c(mine.data(), mine_count, MPI_INT, out, v.counts_c.data(), v.displs_c.data(), MPI_INT, 0,
                              world, r);
  });
  want = blank_mine;
  MPI_Scatterv(v_source.data(), v.counts.data(), v.displs.data(), MPI_INT, want.data(), mine_count, MPI_INT, 0, world);
  both_forms("MPI_Iscatterv_c / MPI_Scatterv_init_c", __LINE__, blank_mine, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Scatterv_init_c(v_source.data(), v.counts_c.data(), v.displs_c.data(), MPI_INT, out,
                                              mine_count, MPI_INT, 0, world, none, r)
                        : MPI_Iscatterv_c(v_source.data(), v.counts_c.data(), v.displs_c.data(), MPI_INT, out,
                                          mine_count, MPI_INT, 0, world, r);
             });
  want = blank_v;
  MPI_Allgatherv(mine.data(), mine_count, MPI_INT, want.data(), v.counts.data(), v.displs.data(), MPI_INT, world);
  both_forms("MPI_Iallgatherv_c / MPI_Allgatherv_init_c", __LINE__, blank_v, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Allgatherv_init_c(mine.data(), mine_count, MPI_INT, out, v.counts_c.data(),
                                                v.displs_c.data(), MPI_INT, world, none, r)
                        : MPI_Iallgatherv_c(mine.data(), mine_count, MPI_INT, out, v.counts_c.data(),
                                            v.displs_c.data(), MPI_INT, world, r);
             });
  // Alltoallv/w: everyone sends rank s its s + 1 elements.
  std::vector<int> recv_counts(n, mine_count), recv_displs(n);
  for (int r = 0; r < size; ++r) recv_displs[static_cast<std::size_t>(r)] = r * mine_count;
  const std::vector<MPI_Count> recv_counts_c(recv_counts.begin(), recv_counts.end());
  const std::vector<MPI_Aint> recv_displs_c(recv_displs.begin(), recv_displs.end());
  std::vector<MPI_Aint> send_bytes_c, recv_bytes_c;
  for (MPI_Aint d : v.displs_c) send_bytes_c.push_back(d * 4);
  for (MPI_Aint d : recv_displs_c) recv_bytes_c.push_back(d * 4);
  const std::vector<MPI_Datatype> types(n, MPI_INT);
  const std::vector<int> blank_in(n * static_cast<std::size_t>(mine_count), -1);
  want = blank_in;
  MPI_Alltoallv(v_source.data(), v.counts.data(), v.displs.data(), MPI_INT, want.data(), recv_counts.data(),
                recv_displs.data(), MPI_INT, world);
  both_forms("MPI_Ialltoallv_c / MPI_Alltoallv_init_c", __LINE__, blank_in, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Alltoallv_init_c(v_source.data(), v.counts_c.data(), v.displs_c.data(), MPI_INT, out,
                                               recv_counts_c.data(), recv_displs_c.data(), MPI_INT, world, none, r)
                        : MPI_Ialltoallv_c(v_source.data(), v.counts_c.data(), v.displs_c.data(), MPI_INT, out,
                                           recv_counts_c.data(), recv_displs_c.data(), MPI_INT, world, r);
             });
  both_forms("MPI_Ialltoallw_c / MPI_Alltoallw_init_c", __LINE__, blank_in, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Alltoallw_init_c(v_source.data(), v.counts_c.data(), send_bytes_c.data(), types.data(),
                                               out, recv_counts_c.data(), recv_bytes_c.data(), types.data(), world,
                                               none, r)
                        : MPI_Ialltoallw_c(v_source.data(), v.counts_c.data(), send_bytes_c.data(), types.data(), out,
                                           recv_counts_c.data(), recv_bytes_c.data(), types.data(), world, r);
             });

  // Reductions.
  want = blank;
  MPI_Reduce(mine.data(), want.data(), kCount, MPI_INT, MPI_SUM, 0, world);
  both_forms("MPI_Ireduce_c / MPI_Reduce_init_c", __LINE__, blank, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Reduce_init_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, 0, world, none, r)
             : MPI_Ireduce_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, 0, world, r);
  });
  want = blank;
  MPI_Allreduce(mine.data(), want.data(), kCount, MPI_INT, MPI_SUM, world);
  both_forms("MPI_Iallreduce_c / MPI_Allreduce_init_c", __LINE__, blank, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Allreduce_init_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, world, none, r)
             : MPI_Iallreduce_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, world, r);
  });
  want = blank;
  MPI_Scan(mine.data(), want.data(), kCount, MPI_INT, MPI_SUM, world);
  both_forms("MPI_Iscan_c / MPI_Scan_init_c", __LINE__, blank, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Scan_init_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, world, none, r)
             : MPI_Iscan_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, world, r);
  });
  want = blank;
  MPI_Exscan(mine.data(), want.data(), kCount, MPI_INT, MPI_SUM, world);
  both_forms("MPI_Iexscan_c / MPI_Exscan_init_c", __LINE__, blank, want, [&](bool p, int* out, MPI_Request* r) {
    return p ? MPI_Exscan_init_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, world, none, r)
             : MPI_Iexscan_c(mine.data(), out, kCount, MPI_INT, MPI_SUM, world, r);
  });
  const VLayout rs(1);
  const std::vector<int> vector = pattern(rs.total, rank);
  const std::vector<int> blank_rs(static_cast<std::size_t>(rs.counts[static_cast<std::size_t>(rank)]), -1);
  want = blank_rs;
  MPI_Reduce_scatter(vector.data(), want.data(), rs.counts.data(), MPI_INT, MPI_SUM, world);
  both_forms("MPI_Ireduce_scatter_c / MPI_Reduce_scatter_init_c", __LINE__, blank_rs, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Reduce_scatter_init_c(vector.data(), out, rs.counts_c.data(), MPI_INT, MPI_SUM, world,
                                                    none, r)
                        : MPI_Ireduce_scatter_c(vector.data(), out, rs.counts_c.data(), MPI_INT, MPI_SUM, world, r);
             });
  want = blank;
  MPI_Reduce_scatter_block(source.data(), want.data(), kCount, MPI_INT, MPI_SUM, world);
  both_forms("MPI_Ireduce_scatter_block_c / MPI_Reduce_scatter_block_init_c", __LINE__, blank, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Reduce_scatter_block_init_c(source.data(), out, kCount, MPI_INT, MPI_SUM, world, none, r)
                        : MPI_Ireduce_scatter_block_c(source.data(), out, kCount, MPI_INT, MPI_SUM, world, r);
             });
}

// The neighbourhood _c forms on a periodic ring (two neighbours each), each
// against the blocking int form.
void neighbours() {
  MPI_Comm ring;
  const int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  const MPI_Info none = MPI_INFO_NULL;
  const std::vector<int> mine = pattern(kCount, rank);
  const std::vector<int> two = pattern(2 * kCount, rank + 11);  // one block per neighbour
  const std::vector<int> blank(2 * kCount, -1);
  const int counts[2] = {kCount, kCount}, displs[2] = {0, kCount}, bytes[2] = {0, kCount * 4};
  const MPI_Count counts_c[2] = {kCount, kCount};
  const MPI_Aint displs_c[2] = {0, kCount}, bytes_c[2] = {0, kCount * 4};
  const MPI_Aint bytes_a[2] = {bytes[0], bytes[1]};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  std::vector<int> want = blank, got = blank;

  MPI_Neighbor_allgather(mine.data(), kCount, MPI_INT, want.data(), kCount, MPI_INT, ring);
  CHECK(MPI_Neighbor_allgather_c(mine.data(), kCount, MPI_INT, got.data(), kCount, MPI_INT, ring) == MPI_SUCCESS);
  check_that(got == want, "MPI_Neighbor_allgather_c", __LINE__);
  both_forms("MPI_Ineighbor_allgather_c / MPI_Neighbor_allgather_init_c", __LINE__, blank, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Neighbor_allgather_init_c(mine.data(), kCount, MPI_INT, out, kCount, MPI_INT, ring,
                                                        none, r)
                        : MPI_Ineighbor_allgather_c(mine.data(), kCount, MPI_INT, out, kCount, MPI_INT, ring, r);
             });
  got = blank;
  CHECK(MPI_Neighbor_allgatherv_c(mine.data(), kCount, MPI_INT, got.data(), counts_c, displs_c, MPI_INT, ring) ==
        MPI_SUCCESS);
  check_that(got == want, "MPI_Neighbor_allgatherv_c", __LINE__);
  both_forms("MPI_Ineighbor_allgatherv_c / MPI_Neighbor_allgatherv_init_c", __LINE__, blank, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Neighbor_allgatherv_init_c(mine.data(), kCount, MPI_INT, out, counts_c, displs_c,
                                                         MPI_INT, ring, none, r)
                        : MPI_Ineighbor_allgatherv_c(mine.data(), kCount, MPI_INT, out, counts_c, displs_c, MPI_INT,
                                                     ring, r);
             });

  want = blank;
  MPI_Neighbor_alltoallv(two.data(), counts, displs, MPI_INT, want.data(), counts, displs, MPI_INT, ring);
  got = blank;
  CHECK(MPI_Neighbor_alltoall_c(two.data(), kCount, MPI_INT, got.data(), kCount, MPI_INT, ring) == MPI_SUCCESS);
  check_that(got == want, "MPI_Neighbor_alltoall_c", __LINE__);
  got = blank;
  CHECK(MPI_Neighbor_alltoallv_c(two.data(), counts_c, displs_c, MPI_INT, got.data(), counts_c, displs_c, MPI_INT,
                                 ring) == MPI_SUCCESS);
  check_that(got == want, "MPI_Neighbor_alltoallv_c", __LINE__);
  got = blank;
  CHECK(MPI_Neighbor_alltoallw_c(two.data(), counts_c, bytes_c, types, got.data(), counts_c, bytes_c, types, ring) ==
        MPI_SUCCESS);
  check_that(got == want, "MPI_Neighbor_alltoallw_c", __LINE__);
  std::vector<int> got_w = blank;
  MPI_Neighbor_alltoallw(two.data(), counts, bytes_a, types, got_w.data(), counts, bytes_a, types, ring);
  check_that(got_w == want, "MPI_Neighbor_alltoallw", __LINE__);
  both_forms("MPI_Ineighbor_alltoall_c / MPI_Neighbor_alltoall_init_c", __LINE__, blank, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Neighbor_alltoall_init_c(two.data(), kCount, MPI_INT, out, kCount, MPI_INT, ring, none,
                                                       r)
                        : MPI_Ineighbor_alltoall_c(two.data(), kCount, MPI_INT, out, kCount, MPI_INT, ring, r);
             });
  both_forms("MPI_Ineighbor_alltoallv_c / MPI_Neighbor_alltoallv_init_c", __LINE__, blank, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Neighbor_alltoallv_init_c(two.data(), counts_c, displs_c, MPI_INT, out, counts_c,
                                                        displs_c, MPI_INT, ring, none, r)
                        : MPI_Ineighbor_alltoallv_c(two.data(), counts_c, displs_c, MPI_INT, out, counts_c, displs_c,
                                                    MPI_INT, ring, r);
             });
  both_forms("MPI_Ineighbor_alltoallw_c / MPI_Neighbor_alltoallw_init_c", __LINE__, blank, want,
             [&](bool p, int* out, MPI_Request* r) {
               return p ? MPI_Neighbor_alltoallw_init_c(two.data(), counts_c, bytes_c, types, out, counts_c, bytes_c,
                                                        types, ring, none, r)
                        : MPI_Ineighbor_alltoallw_c(two.data(), counts_c, bytes_c, types, out, counts_c, bytes_c,
                                                    types, ring, r);
             });
  MPI_Comm_free(&ring);
}

// On an intercommunicator (even and odd ranks) the _c forms' counts go in as
// ints: small ones match the int forms, one past INT_MAX is MPI_ERR_COUNT
// before any buffer is touched.
void intercommunicator() {
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 77, &inter);
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  const auto n = static_cast<std::size_t>(remote);
  const std::vector<int> mine = pattern(kCount, rank);
  std::vector<int> want(n * kCount, -1), got(n * kCount, -1);
  MPI_Allgather(mine.data(), kCount, MPI_INT, want.data(), kCount, MPI_INT, inter);
  CHECK(MPI_Allgather_c(mine.data(), kCount, MPI_INT, got.data(), kCount, MPI_INT, inter) == MPI_SUCCESS);
  check_that(got == want, "MPI_Allgather_c on an intercommunicator", __LINE__);
  std::vector<MPI_Count> counts(n, kCount);
  std::vector<MPI_Aint> displs(n);
  for (std::size_t r = 0; r < n; ++r) displs[r] = static_cast<MPI_Aint>(r) * kCount;
  std::fill(got.begin(), got.end(), -1);
  CHECK(MPI_Allgatherv_c(mine.data(), kCount, MPI_INT, got.data(), counts.data(), displs.data(), MPI_INT, inter) ==
        MPI_SUCCESS);
  check_that(got == want, "MPI_Allgatherv_c on an intercommunicator", __LINE__);
  const std::vector<int> outgoing = pattern(static_cast<int>(n) * kCount, rank);
  std::vector<int> want_a(n * kCount, -1), got_a(n * kCount, -1);
  MPI_Alltoall(outgoing.data(), kCount, MPI_INT, want_a.data(), kCount, MPI_INT, inter);
  CHECK(MPI_Alltoallv_c(outgoing.data(), counts.data(), displs.data(), MPI_INT, got_a.data(), counts.data(),
                        displs.data(), MPI_INT, inter) == MPI_SUCCESS);
  check_that(got_a == want_a, "MPI_Alltoallv_c on an intercommunicator", __LINE__);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int value = 0;
  CHECK(MPI_Allreduce_c(&value, &value, MPI_Count{INT_MAX} + 1, MPI_INT, MPI_SUM, inter) == MPI_ERR_COUNT);
  counts[0] = MPI_Count{INT_MAX} + 1;
  CHECK(MPI_Allgatherv_c(mine.data(), kCount, MPI_INT, got.data(), counts.data(), displs.data(), MPI_INT, inter) ==
        MPI_ERR_COUNT);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

// A derived datatype goes through the int-count packing path: small counts
// pass, a count past INT_MAX is refused there (before any buffer is read).
void derived_and_errors() {
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const std::vector<int> mine = pattern(2 * kCount, rank);
  const auto n = static_cast<std::size_t>(size);
  std::vector<int> all(n * 2 * kCount, -1), all_c(n * 2 * kCount, -1);
  CHECK(MPI_Allgather(mine.data(), kCount, pair, all.data(), kCount, pair, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Allgather_c(mine.data(), kCount, pair, all_c.data(), kCount, pair, MPI_COMM_WORLD) == MPI_SUCCESS);
  check_that(all == all_c && all.back() == pattern(2 * kCount, size - 1).back(), "MPI_Allgather_c, derived type",
             __LINE__);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int value = 0, sink_value = 0;
  CHECK(MPI_Bcast_c(&value, MPI_Count{INT_MAX} + 1, pair, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Bcast_c(&value, -1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Allreduce_c(&value, &value, LLONG_MAX, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Ibcast_c(&value, LLONG_MAX, MPI_INT, 0, MPI_COMM_WORLD, &request) == MPI_ERR_COUNT);
  CHECK(MPI_Iallreduce_c(&value, &sink_value, LLONG_MAX / 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request) ==
        MPI_ERR_COUNT);
  CHECK(request == MPI_REQUEST_NULL);
  std::vector<MPI_Count> negative(n, 1);
  negative[0] = -2;
  std::vector<MPI_Aint> displs(n, 0);
  std::vector<int> sink(n, 0);
  CHECK(MPI_Allgatherv_c(&value, 1, MPI_INT, sink.data(), negative.data(), displs.data(), MPI_INT, MPI_COMM_WORLD) ==
        MPI_ERR_COUNT);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&pair);
}

// MPI_Bcast_c of 2^31 + 8 bytes from rank 0 to rank 1, checked at offsets
// around 2^31 and at both ends. The buffers are anonymous mappings: only the
// pages written hold memory on the root; the receiver's all arrive.
void large_bcast() {
  if (size != 2) return;
  constexpr MPI_Count kBytes = (MPI_Count{1} << 31) + 8;
  const auto length = static_cast<std::size_t>(kBytes);
  void* mapped = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(mapped != MAP_FAILED);
  if (mapped == MAP_FAILED) return;
  auto* bytes = static_cast<unsigned char*>(mapped);
  const std::size_t offsets[] = {0, 4096, length / 2, (std::size_t{1} << 31) - 1, std::size_t{1} << 31,
                                 length - 1};
  if (rank == 0) {
    for (std::size_t offset : offsets) bytes[offset] = static_cast<unsigned char>(offset % 251 + 1);
  }
  CHECK(MPI_Bcast_c(mapped, kBytes, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  bool same = true;
  for (std::size_t offset : offsets) same &= bytes[offset] == static_cast<unsigned char>(offset % 251 + 1);
  check_that(same, "MPI_Bcast_c of 2^31 + 8 bytes", __LINE__);
  munmap(mapped, length);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rooted_and_gathers();
  v_and_w();
  reductions();
  nonblocking_and_persistent();
  neighbours();
  intercommunicator();
  derived_and_errors();
  large_bcast();
  const int rc = tern::mpi_test::conclude("mpi_large_count_coll");
  MPI_Finalize();
  return rc;
}
