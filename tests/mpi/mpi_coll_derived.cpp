// The collectives beyond Bcast/Gather/Scatter with derived datatypes:
// Allgather(v), Alltoall(v), Gatherv, Scatterv through pack/unpack against the
// contiguous results; Reduce/Allreduce/Reduce_scatter_block on types of one
// basic type against a serial computation; user operations on mixed structs
// with holes in rank order; predefined operations on mixed structs refused.
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0, size = 1;
constexpr int K = 5;

// Every other double: K doubles over 2K slots (extent resized to 2K).
MPI_Datatype strided_doubles() {
  MPI_Datatype v, r;
  MPI_Type_vector(K, 1, 2, MPI_DOUBLE, &v);
  MPI_Type_create_resized(v, 0, static_cast<MPI_Aint>(2 * K * sizeof(double)), &r);
  MPI_Type_commit(&r);
  MPI_Type_free(&v);
  return r;
}

double value(int r, int i) { return r * 1000.0 + i + 0.25; }

void test_allgather() {
  MPI_Datatype t = strided_doubles();
  std::vector<double> strided(2 * K, -1.0), contiguous(K);
  for (int i = 0; i < K; ++i) strided[2 * i] = contiguous[i] = value(rank, i);
  std::vector<double> expect(static_cast<std::size_t>(K * size));
  MPI_Allgather(contiguous.data(), K, MPI_DOUBLE, expect.data(), K, MPI_DOUBLE, MPI_COMM_WORLD);
  // Derived send, contiguous receive.
  std::vector<double> got(static_cast<std::size_t>(K * size), -2.0);
  CHECK(MPI_Allgather(strided.data(), 1, t, got.data(), K, MPI_DOUBLE, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(got == expect);
  // Contiguous send, derived receive: rank r's block in the even slots of block r.
  std::vector<double> wide(static_cast<std::size_t>(2 * K * size), -3.0);
  CHECK(MPI_Allgather(contiguous.data(), K, MPI_DOUBLE, wide.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < K; ++i) {
      CHECK(wide[static_cast<std::size_t>(2 * K * r + 2 * i)] == expect[static_cast<std::size_t>(K * r + i)]);
      CHECK(wide[static_cast<std::size_t>(2 * K * r + 2 * i + 1)] == -3.0);
    }
  }
  // In place with a derived receive type.
  std::vector<double> inplace(static_cast<std::size_t>(2 * K * size), -4.0);
  for (int i = 0; i < K; ++i) inplace[static_cast<std::size_t>(2 * K * rank + 2 * i)] = value(rank, i);
  CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < K; ++i) CHECK(inplace[static_cast<std::size_t>(2 * K * r + 2 * i)] == value(r, i));
  }
  // Allgatherv: rank r contributes r + 1 elements of the derived type.
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = r + 1;
    displs[static_cast<std::size_t>(r)] = total;
    total += r + 1;
  }
  std::vector<double> mine(static_cast<std::size_t>(2 * K * (rank + 1)), -1.0);
  for (int j = 0; j < rank + 1; ++j) {
    for (int i = 0; i < K; ++i) mine[static_cast<std::size_t>(2 * K * j + 2 * i)] = value(rank, j * K + i);
  }
  std::vector<double> allv(static_cast<std::size_t>(K * total), -5.0);
  std::vector<int> dcounts(static_cast<std::size_t>(size)), ddispls(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    dcounts[static_cast<std::size_t>(r)] = counts[static_cast<std::size_t>(r)] * K;
    ddispls[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r)] * K;
  }
  CHECK(MPI_Allgatherv(mine.data(), rank + 1, t, allv.data(), dcounts.data(), ddispls.data(), MPI_DOUBLE,
                       MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < (r + 1) * K; ++k) {
      CHECK(allv[static_cast<std::size_t>(ddispls[static_cast<std::size_t>(r)] + k)] == value(r, k));
    }
  }
  // Gatherv to the last rank with a derived receive type, Scatterv back.
  const int root = size - 1;
  std::vector<double> gathered(static_cast<std::size_t>(2 * K * total), -6.0);
  CHECK(MPI_Gatherv(contiguous.data(), K, MPI_DOUBLE, gathered.data(), std::vector<int>(size, 1).data(),
                    displs.data(), t, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank == root) {
    for (int r = 0; r < size; ++r) {
      for (int i = 0; i < K; ++i) {
        CHECK(gathered[static_cast<std::size_t>(2 * K * displs[static_cast<std::size_t>(r)] + 2 * i)] ==
              value(r, i));
      }
    }
  }
  std::vector<double> back(K, -7.0);
  CHECK(MPI_Scatterv(gathered.data(), std::vector<int>(size, 1).data(), displs.data(), t, back.data(), K,
                     MPI_DOUBLE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(back == contiguous);
  MPI_Type_free(&t);
}

void test_alltoall() {
  MPI_Datatype t = strided_doubles();
  // Block for rank d: K values; strided in `wide`, packed in `flat`.
  std::vector<double> wide(static_cast<std::size_t>(2 * K * size), -1.0), flat(static_cast<std::size_t>(K * size));
  for (int d = 0; d < size; ++d) {
    for (int i = 0; i < K; ++i) {
      const double v = value(rank, d * K + i);
      wide[static_cast<std::size_t>(2 * K * d + 2 * i)] = v;
      flat[static_cast<std::size_t>(K * d + i)] = v;
    }
  }
  std::vector<double> expect(static_cast<std::size_t>(K * size));
  MPI_Alltoall(flat.data(), K, MPI_DOUBLE, expect.data(), K, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < K; ++i) CHECK(expect[static_cast<std::size_t>(K * s + i)] == value(s, rank * K + i));
  }
  std::vector<double> got(static_cast<std::size_t>(K * size), -2.0);
  CHECK(MPI_Alltoall(wide.data(), 1, t, got.data(), K, MPI_DOUBLE, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(got == expect);
  std::vector<double> got_wide(static_cast<std::size_t>(2 * K * size), -3.0);
  CHECK(MPI_Alltoall(wide.data(), 1, t, got_wide.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < K; ++i) {
      CHECK(got_wide[static_cast<std::size_t>(2 * K * s + 2 * i)] == expect[static_cast<std::size_t>(K * s + i)]);
      CHECK(got_wide[static_cast<std::size_t>(2 * K * s + 2 * i + 1)] == -3.0);
    }
  }
  // In place.
  std::vector<double> inplace = wide;
  CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < K; ++i) {
      CHECK(inplace[static_cast<std::size_t>(2 * K * s + 2 * i)] == expect[static_cast<std::size_t>(K * s + i)]);
    }
  }
  MPI_Type_free(&t);
}

void test_reductions() {
  // Vector of doubles: K doubles at stride 3 (not resized), count 2.
  MPI_Datatype v;
  MPI_Type_vector(K, 1, 3, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(v, &lb, &extent);
  const int per = static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(double)));  // 3K - 2
  const int count = 2;
  const std::size_t len = static_cast<std::size_t>(per * count);
  auto contribution = [&](int r, int slot) { return (r + 1) * 0.5 + slot * 3.0; };
  std::vector<double> in(len, -100.0), out(len, -1.0);
  for (std::size_t j = 0; j < len; ++j) in[j] = contribution(rank, static_cast<int>(j));
  CHECK(MPI_Allreduce(in.data(), out.data(), count, v, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int c = 0; c < count; ++c) {
    for (int s = 0; s < per; ++s) {
      const std::size_t j = static_cast<std::size_t>(c * per + s);
      if (s % 3 == 0) {
        double sum = 0.0;
        for (int r = 0; r < size; ++r) sum += contribution(r, static_cast<int>(j));
        CHECK(out[j] == sum);
      } else {
        CHECK(out[j] == -1.0);  // gaps untouched
      }
    }
  }
  // In place, MAX.
  std::vector<double> io = in;
  CHECK(MPI_Allreduce(MPI_IN_PLACE, io.data(), count, v, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (std::size_t j = 0; j < len; ++j) {
    CHECK(io[j] == (j % static_cast<std::size_t>(per) % 3 == 0 ? contribution(size - 1, static_cast<int>(j)) : in[j]));
  }
  // Reduce to rank 0.
  std::vector<double> red(len, -1.0);
  CHECK(MPI_Reduce(in.data(), red.data(), count, v, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank == 0) CHECK(red == out);
  // Reduce_scatter_block: one element of an indexed-of-int type per rank.
  MPI_Datatype idx;
  const int lens[2] = {1, 2}, disps[2] = {0, 3};
  MPI_Type_indexed(2, lens, disps, MPI_INT, &idx);
  MPI_Type_commit(&idx);
  MPI_Type_get_extent(idx, &lb, &extent);
  const int ext = static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(int)));  // 5
  std::vector<int> send(static_cast<std::size_t>(ext * size)), recv(static_cast<std::size_t>(ext), -1);
  for (std::size_t j = 0; j < send.size(); ++j) send[j] = rank + static_cast<int>(j);
  CHECK(MPI_Reduce_scatter_block(send.data(), recv.data(), 1, idx, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int s = 0; s < ext; ++s) {
    const int j = rank * ext + s;
    const bool data = s == 0 || s == 3 || s == 4;
    CHECK(recv[static_cast<std::size_t>(s)] == (data ? size * j + size * (size - 1) / 2 : -1));
  }
  MPI_Type_free(&idx);
  // MAXLOC on a contiguous type of pairs.
  MPI_Datatype pairs;
  MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pairs);
  MPI_Type_commit(&pairs);
  struct { double v; int i; } pin[2], pout[2];
  pin[0] = {static_cast<double>(rank), rank};
  pin[1] = {static_cast<double>(-rank), rank};
  CHECK(MPI_Allreduce(pin, pout, 1, pairs, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(pout[0].v == size - 1 && pout[0].i == size - 1);
  CHECK(pout[1].v == 0.0 && pout[1].i == 0);
  MPI_Type_free(&pairs);
  MPI_Type_free(&v);
}

// A 2x2 integer matrix and a tally, padded to 32 bytes so instances have
// holes between them. Matrix products do not commute, so the result shows
// whether the operands were combined in rank order.
struct Tagged {
  int m[4];
  double tally;
};
constexpr MPI_Aint kTaggedExtent = 32;

MPI_Datatype tagged_type() {
  const int lens[2] = {4, 1};
  const MPI_Aint disps[2] = {offsetof(Tagged, m), offsetof(Tagged, tally)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype s, r;
  MPI_Type_create_struct(2, lens, disps, types, &s);
  MPI_Type_create_resized(s, 0, kTaggedExtent, &r);
  MPI_Type_commit(&r);
  MPI_Type_free(&s);
  return r;
}

MPI_Datatype g_tagged = MPI_DATATYPE_NULL;
int g_bad_datatype_calls = 0;

Tagged* tagged_at(void* base, int i) {
  return reinterpret_cast<Tagged*>(static_cast<char*>(base) + i * kTaggedExtent);
}

void multiply(const int* a, const int* b, int* out) {
  const int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
  std::memcpy(out, r, sizeof r);
}

// inout = in * inout, as MPI defines a user operation.
void tagged_product(void* in, void* inout, int* len, MPI_Datatype* datatype) {
  if (*datatype != g_tagged) ++g_bad_datatype_calls;
  for (int i = 0; i < *len; ++i) {
    Tagged* a = tagged_at(in, i);
    Tagged* b = tagged_at(inout, i);
    multiply(a->m, b->m, b->m);
    b->tally += a->tally;
  }
}

void fill_tagged(void* base, int count, int r) {
  for (int i = 0; i < count; ++i) {
    Tagged* t = tagged_at(base, i);
    t->m[0] = 1;
    t->m[1] = r + 1;
    t->m[2] = 1 + i % 2;
    t->m[3] = r + 2;
    t->tally = r + 0.5 * i;
  }
}

// The product x0 * x1 * ... * x(n-1) of instance i, computed serially.
void expect_tagged(int i, int ranks, int* m, double& tally) {
  std::vector<char> x(static_cast<std::size_t>(kTaggedExtent) * static_cast<std::size_t>(i + 1));
  fill_tagged(x.data(), i + 1, 0);
  std::memcpy(m, tagged_at(x.data(), i)->m, sizeof(int) * 4);
  tally = tagged_at(x.data(), i)->tally;
  for (int r = 1; r < ranks; ++r) {
    fill_tagged(x.data(), i + 1, r);
    multiply(m, tagged_at(x.data(), i)->m, m);
    tally += tagged_at(x.data(), i)->tally;
  }
}

bool tagged_matches(void* base, int i, int ranks) {
  int m[4];
  double tally = 0;
  expect_tagged(i, ranks, m, tally);
  const Tagged* t = tagged_at(base, i);
  return std::memcmp(t->m, m, sizeof m) == 0 && t->tally == tally;
}

// Bytes after each instance's data (its hole) still hold the fill byte.
bool holes_untouched(const std::vector<char>& buffer, int count, char fill) {
  for (int i = 0; i < count; ++i) {
    for (std::size_t b = sizeof(Tagged); b < static_cast<std::size_t>(kTaggedExtent); ++b) {
      if (buffer[static_cast<std::size_t>(i) * kTaggedExtent + b] != fill) return false;
    }
  }
  return true;
}

void test_user_ops() {
  g_tagged = tagged_type();
  MPI_Op product;
  MPI_Op_create(tagged_product, 0, &product);
  for (int count : {1, 3, 17}) {
    const std::size_t span = static_cast<std::size_t>(count) * kTaggedExtent;
    std::vector<char> in(span, 0x5a), out(span, 0x7e);
    fill_tagged(in.data(), count, rank);
    CHECK(MPI_Allreduce(in.data(), out.data(), count, g_tagged, product, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < count; ++i) CHECK(tagged_matches(out.data(), i, size));
    CHECK(holes_untouched(out, count, 0x7e));

    const int root = size - 1;
    std::vector<char> reduced(span, 0x11);
    CHECK(MPI_Reduce(in.data(), reduced.data(), count, g_tagged, product, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == root) {
      for (int i = 0; i < count; ++i) CHECK(tagged_matches(reduced.data(), i, size));
      CHECK(holes_untouched(reduced, count, 0x11));
    }
    // In place at the root.
    std::vector<char> own(span, 0x22);
    fill_tagged(own.data(), count, rank);
    CHECK(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : own.data(), own.data(), count, g_tagged, product, 0,
                     MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) {
      for (int i = 0; i < count; ++i) CHECK(tagged_matches(own.data(), i, size));
    }

    // Reduce_scatter_block: rank r gets instances [r*count, (r+1)*count).
    const int total = count * size;
    std::vector<char> all(static_cast<std::size_t>(total) * kTaggedExtent, 0x33), mine(span, 0x44);
    fill_tagged(all.data(), total, rank);
    CHECK(MPI_Reduce_scatter_block(all.data(), mine.data(), count, g_tagged, product, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (int i = 0; i < count; ++i) {
      int m[4];
      double tally = 0;
      expect_tagged(rank * count + i, size, m, tally);
      const Tagged* t = tagged_at(mine.data(), i);
      CHECK(std::memcmp(t->m, m, sizeof m) == 0 && t->tally == tally);
    }
    CHECK(holes_untouched(mine, count, 0x44));
  }
  CHECK(g_bad_datatype_calls == 0);
  MPI_Op_free(&product);
  MPI_Type_free(&g_tagged);
}

void test_refused() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct Mixed {
    double d;
    int i;
  };
  MPI_Datatype mixed;
  const int lens[2] = {1, 1};
  const MPI_Aint disps[2] = {offsetof(Mixed, d), offsetof(Mixed, i)};
  const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, lens, disps, types, &mixed);
  MPI_Type_commit(&mixed);
  Mixed a[2] = {{1.0, 1}, {2.0, 2}}, b[2] = {};
  // Predefined operations are defined on one basic type only (MPI 4.1 6.9.2).
  CHECK(MPI_Allreduce(a, b, 2, mixed, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_OP);
  CHECK(MPI_Reduce(a, b, 2, mixed, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_ERR_OP);
  // Mixed structs still travel in the data-movement collectives.
  std::vector<Mixed> all(static_cast<std::size_t>(size));
  Mixed me{rank * 1.5, rank};
  CHECK(MPI_Allgather(&me, 1, mixed, all.data(), 1, mixed, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) CHECK(all[static_cast<std::size_t>(r)].d == r * 1.5 && all[static_cast<std::size_t>(r)].i == r);
  MPI_Type_free(&mixed);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_allgather();
  test_alltoall();
  test_reductions();
  test_user_ops();
  test_refused();
  const int rc = ::tern::mpi_test::conclude("mpi_coll_derived");
  MPI_Finalize();
  return rc;
}
