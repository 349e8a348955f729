// The non-blocking data movers and prefix reductions on 1 to 4 ranks,
// checked against the blocking forms: Igather(v), Iscatter(v),
// Iallgather(v), Ialltoall(v,w), Ireduce_scatter(_block), Iscan, Iexscan;
// counts from 0 up, every root, in place, a strided derived type, and all of
// them outstanding at once.
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

using Ints = std::vector<int>;

Ints pattern(int who, int count, int salt) {
  Ints v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = (who + 1) * 1000 + i * 7 + salt;
  return v;
}

void wait(MPI_Request& request) {
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(request == MPI_REQUEST_NULL);
}

std::size_t at(int i) { return static_cast<std::size_t>(i); }

void gather_scatter(int count) {
  const Ints mine = pattern(rank, count, 1);
  for (int root = 0; root < size; ++root) {
    Ints expect(at(count * size), -1), got(at(count * size), -2);
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK(MPI_Gather(mine.data(), count, MPI_INT, expect.data(), count, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Igather(mine.data(), count, MPI_INT, got.data(), count, MPI_INT, root, MPI_COMM_WORLD, &request) ==
          MPI_SUCCESS);
    wait(request);
    if (rank == root) CHECK(got == expect);
    // In place at the root: its part is already in its slot.
    Ints in_place(at(count * size), -3);
    if (rank == root && count > 0) std::memcpy(in_place.data() + count * root, mine.data(), at(count) * sizeof(int));
    CHECK(MPI_Igather(rank == root ? MPI_IN_PLACE : mine.data(), count, MPI_INT, in_place.data(), count, MPI_INT, root,
                      MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    if (rank == root) CHECK(in_place == expect);

    Ints part(at(count), -4);
    CHECK(MPI_Iscatter(expect.data(), count, MPI_INT, part.data(), count, MPI_INT, root, MPI_COMM_WORLD, &request) ==
          MPI_SUCCESS);
    wait(request);
    if (rank == root) CHECK(part == mine);
    CHECK(MPI_Bcast(expect.data(), count * size, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    Ints back(at(count), -5);
    CHECK(MPI_Iscatter(expect.data(), count, MPI_INT, rank == root ? MPI_IN_PLACE : back.data(), count, MPI_INT,
                       root, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    if (rank != root) CHECK(back == mine);

    // v forms: rank r has count + r elements, placed in reverse order with gaps.
    Ints counts(at(size)), displs(at(size));
    int offset = 0;
    for (int r = size - 1; r >= 0; --r) {
      counts[at(r)] = count + r;
      displs[at(r)] = offset;
      offset += count + r + 2;
    }
    const Ints longer = pattern(rank, count + rank, 2);
    Ints vexpect(at(offset), -6), vgot(at(offset), -6);
    CHECK(MPI_Gatherv(longer.data(), count + rank, MPI_INT, vexpect.data(), counts.data(), displs.data(), MPI_INT,
                      root, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Igatherv(longer.data(), count + rank, MPI_INT, vgot.data(), counts.data(), displs.data(), MPI_INT, root,
                       MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    if (rank == root) CHECK(vgot == vexpect);
    Ints vpart(at(count + rank), -7);
    CHECK(MPI_Iscatterv(vexpect.data(), counts.data(), displs.data(), MPI_INT, vpart.data(), count + rank, MPI_INT,
                        root, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    if (rank == root) CHECK(vpart == longer);
  }
}

void allgather_alltoall(int count) {
  const Ints mine = pattern(rank, count, 3);
  Ints expect(at(count * size)), got(at(count * size), -1);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Allgather(mine.data(), count, MPI_INT, expect.data(), count, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Iallgather(mine.data(), count, MPI_INT, got.data(), count, MPI_INT, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  wait(request);
  CHECK(got == expect);
  Ints in_place(at(count * size), -2);
  if (count > 0) std::memcpy(in_place.data() + count * rank, mine.data(), at(count) * sizeof(int));
  CHECK(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place.data(), count, MPI_INT, MPI_COMM_WORLD,
                       &request) == MPI_SUCCESS);
  wait(request);
  CHECK(in_place == expect);

  Ints counts(at(size)), displs(at(size));
  int offset = 0;
  for (int r = 0; r < size; ++r) {
    counts[at(r)] = count + 2 * r;
    displs[at(r)] = offset + 1;
    offset += count + 2 * r + 1;
  }
  const Ints longer = pattern(rank, count + 2 * rank, 4);
  Ints vexpect(at(offset), -3), vgot(at(offset), -3);
  CHECK(MPI_Allgatherv(longer.data(), count + 2 * rank, MPI_INT, vexpect.data(), counts.data(), displs.data(),
                       MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Iallgatherv(longer.data(), count + 2 * rank, MPI_INT, vgot.data(), counts.data(), displs.data(), MPI_INT,
                        MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  wait(request);
  CHECK(vgot == vexpect);

  // Alltoall: block r of rank s is pattern(s * 10 + r).
  Ints out, aexpect(at(count * size)), agot(at(count * size), -4);
  for (int r = 0; r < size; ++r) {
    const Ints block = pattern(rank * 10 + r, count, 5);
    out.insert(out.end(), block.begin(), block.end());
  }
  CHECK(MPI_Alltoall(out.data(), count, MPI_INT, aexpect.data(), count, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Ialltoall(out.data(), count, MPI_INT, agot.data(), count, MPI_INT, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  wait(request);
  CHECK(agot == aexpect);
  Ints inout = out;
  CHECK(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inout.data(), count, MPI_INT, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  wait(request);
  CHECK(inout == aexpect);

  // Alltoallv: rank s sends count + s + r elements to rank r.
  Ints scounts(at(size)), sdispls(at(size)), rcounts(at(size)), rdispls(at(size));
  int soff = 0, roff = 0;
  Ints vout;
  for (int r = 0; r < size; ++r) {
    scounts[at(r)] = count + rank + r;
    sdispls[at(r)] = soff;
    soff += scounts[at(r)];
    const Ints block = pattern(rank * 10 + r, scounts[at(r)], 6);
    vout.insert(vout.end(), block.begin(), block.end());
    rcounts[at(r)] = count + r + rank;
    rdispls[at(r)] = roff;
    roff += rcounts[at(r)] + 1;
  }
  Ints avexpect(at(roff), -5), avgot(at(roff), -5);
  CHECK(MPI_Alltoallv(vout.data(), scounts.data(), sdispls.data(), MPI_INT, avexpect.data(), rcounts.data(),
                      rdispls.data(), MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Ialltoallv(vout.data(), scounts.data(), sdispls.data(), MPI_INT, avgot.data(), rcounts.data(),
                       rdispls.data(), MPI_INT, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  wait(request);
  CHECK(avgot == avexpect);

  // Alltoallw with the same layout in bytes and one type per peer.
  Ints sbytes(at(size)), rbytes(at(size));
  std::vector<MPI_Datatype> types(at(size), MPI_INT);
  for (int r = 0; r < size; ++r) {
    sbytes[at(r)] = sdispls[at(r)] * static_cast<int>(sizeof(int));
    rbytes[at(r)] = rdispls[at(r)] * static_cast<int>(sizeof(int));
  }
  Ints wgot(at(roff), -5);
  CHECK(MPI_Ialltoallw(vout.data(), scounts.data(), sbytes.data(), types.data(), wgot.data(), rcounts.data(),
                       rbytes.data(), types.data(), MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  wait(request);
  CHECK(wgot == avexpect);
}

void reductions(int count) {
  const Ints mine = pattern(rank, count * size, 7);
  Ints expect(at(count), -1), got(at(count), -2);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Reduce_scatter_block(mine.data(), expect.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(MPI_Ireduce_scatter_block(mine.data(), got.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  wait(request);
  CHECK(got == expect);
  Ints inout = mine;
  CHECK(MPI_Ireduce_scatter_block(MPI_IN_PLACE, inout.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  wait(request);
  CHECK(Ints(inout.begin(), inout.begin() + count) == expect);

  Ints counts(at(size));
  int total = 0;
  for (int r = 0; r < size; ++r) total += counts[at(r)] = count + r;
  const Ints vmine = pattern(rank, total, 8);
  Ints vexpect(at(count + rank), -3), vgot(at(count + rank), -4);
  CHECK(MPI_Reduce_scatter(vmine.data(), vexpect.data(), counts.data(), MPI_INT, MPI_MAX, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(MPI_Ireduce_scatter(vmine.data(), vgot.data(), counts.data(), MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  wait(request);
  CHECK(vgot == vexpect);

  const Ints part = pattern(rank, count, 9);
  for (MPI_Op op : {MPI_SUM, MPI_BXOR}) {
    Ints scan_expect(at(count), -5), scan_got(at(count), -6);
    CHECK(MPI_Scan(part.data(), scan_expect.data(), count, MPI_INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Iscan(part.data(), scan_got.data(), count, MPI_INT, op, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    CHECK(scan_got == scan_expect);
    Ints scan_inout = part;
    CHECK(MPI_Iscan(MPI_IN_PLACE, scan_inout.data(), count, MPI_INT, op, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    CHECK(scan_inout == scan_expect);

    Ints ex_expect(at(count), -7), ex_got(at(count), -7);
    CHECK(MPI_Exscan(part.data(), ex_expect.data(), count, MPI_INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Iexscan(part.data(), ex_got.data(), count, MPI_INT, op, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    CHECK(ex_got == ex_expect);  // rank 0's is left as it was on both
    Ints ex_inout = part;
    CHECK(MPI_Iexscan(MPI_IN_PLACE, ex_inout.data(), count, MPI_INT, op, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
    wait(request);
    CHECK(ex_inout == (rank == 0 ? part : ex_expect));
  }
}

// Every other int: packed per part at the start, unpacked at the end.
void derived() {
  MPI_Datatype pair = MPI_DATATYPE_NULL, strided = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &pair) == MPI_SUCCESS);
  CHECK(MPI_Type_create_resized(pair, 0, 4 * sizeof(int), &strided) == MPI_SUCCESS);
  CHECK(MPI_Type_commit(&strided) == MPI_SUCCESS);
  // Rank r sends {r, 10 + r} (two ints) to everyone; each lands strided.
  const Ints mine = {rank, 10 + rank};
  Ints all(at(4 * size), -1);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Iallgather(mine.data(), 2, MPI_INT, all.data(), 1, strided, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  wait(request);
  bool ok = true;
  for (int r = 0; r < size; ++r) {
    ok = ok && all[at(4 * r)] == r && all[at(4 * r + 1)] == -1 && all[at(4 * r + 2)] == 10 + r &&
         all[at(4 * r + 3)] == -1;
  }
  CHECK(ok);
  // And back: every rank's strided block r goes to rank r as two ints.
  Ints back(at(2 * size), -2);
  CHECK(MPI_Ialltoall(all.data(), 1, strided, back.data(), 2, MPI_INT, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  wait(request);
  ok = true;
  for (int r = 0; r < size; ++r) ok = ok && back[at(2 * r)] == rank && back[at(2 * r + 1)] == 10 + rank;
  CHECK(ok);
  Ints scanned(4, -3);
  const Ints strided_mine = {rank + 1, 0, 2 * (rank + 1), 0};
  CHECK(MPI_Iscan(strided_mine.data(), scanned.data(), 1, strided, MPI_SUM, MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  wait(request);
  const int prefix = (rank + 1) * (rank + 2) / 2;
  CHECK((scanned == Ints{prefix, -3, 2 * prefix, -3}));
  CHECK(MPI_Type_free(&strided) == MPI_SUCCESS);
  CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
}

// Several of them outstanding at once, completed together.
void outstanding() {
  const int count = 50;
  const Ints mine = pattern(rank, count * size, 11);
  Ints gathered(at(count * size * size)), all(at(count * size * size)), exchanged(at(count * size)),
      scanned(at(count)), reduced(at(count));
  MPI_Request requests[5];
  CHECK(MPI_Igather(mine.data(), count * size, MPI_INT, gathered.data(), count * size, MPI_INT, size - 1,
                    MPI_COMM_WORLD, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Iallgather(mine.data(), count * size, MPI_INT, all.data(), count * size, MPI_INT, MPI_COMM_WORLD,
                       &requests[1]) == MPI_SUCCESS);
  CHECK(MPI_Ialltoall(mine.data(), count, MPI_INT, exchanged.data(), count, MPI_INT, MPI_COMM_WORLD, &requests[2]) ==
        MPI_SUCCESS);
  CHECK(MPI_Iscan(mine.data(), scanned.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[3]) ==
        MPI_SUCCESS);
  CHECK(MPI_Ireduce_scatter_block(mine.data(), reduced.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                  &requests[4]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(5, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  Ints expect(at(count * size * size));
  CHECK(MPI_Allgather(mine.data(), count * size, MPI_INT, expect.data(), count * size, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(all == expect);
  if (rank == size - 1) CHECK(gathered == expect);
  Ints exchange_expect(at(count * size)), scan_expect(at(count)), reduce_expect(at(count));
  CHECK(MPI_Alltoall(mine.data(), count, MPI_INT, exchange_expect.data(), count, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(exchanged == exchange_expect);
  CHECK(MPI_Scan(mine.data(), scan_expect.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(scanned == scan_expect);
  CHECK(MPI_Reduce_scatter_block(mine.data(), reduce_expect.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(reduced == reduce_expect);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int count : {0, 1, 7, 300}) {
    gather_scatter(count);
    allgather_alltoall(count);
    reductions(count);
  }
  derived();
  outstanding();
  const int code = tern::mpi_test::conclude("mpi_nbc_more");
  MPI_Finalize();
  return code;
}
