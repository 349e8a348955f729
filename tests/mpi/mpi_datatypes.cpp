// Derived datatypes: constructors' size/extent/true extent against
// hand-computed values, Pack/Unpack, non-contiguous point-to-point (blocking,
// nonblocking through Wait/Waitall/Test), Get_count/Get_elements, Type_free
// with a send in flight, Bcast/Gather/Scatter, persistent requests restarted
// and Mprobe/Mrecv, Improbe/Imrecv with a vector type, and the error classes.
#include <mpi.h>

#include <cstddef>
#include <complex>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0, size = 1;

void check_shape(MPI_Datatype t, int size_expected, MPI_Aint lb, MPI_Aint extent, MPI_Aint true_lb,
                 MPI_Aint true_extent, int line) {
  int s = -1;
  MPI_Aint l = -1, e = -1, tl = -1, te = -1;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_true_extent(t, &tl, &te);
  ::tern::mpi_test::check(s == size_expected, "size", line);
  ::tern::mpi_test::check(l == lb, "lb", line);
  ::tern::mpi_test::check(e == extent, "extent", line);
  ::tern::mpi_test::check(tl == true_lb, "true lb", line);
  ::tern::mpi_test::check(te == true_extent, "true extent", line);
}
#define SHAPE(t, s, lb, ext, tlb, text) check_shape(t, s, lb, ext, tlb, text, __LINE__)

// The Fortran and C++ named datatypes have C handles of the right size, and
// reductions work on them.
void test_named_types_of_other_languages() {
  int bytes = 0;
  CHECK(MPI_Type_size(MPI_INTEGER, &bytes) == MPI_SUCCESS && bytes == 4);
  CHECK(MPI_Type_size(MPI_LOGICAL, &bytes) == MPI_SUCCESS && bytes == 4);
  CHECK(MPI_Type_size(MPI_DOUBLE_PRECISION, &bytes) == MPI_SUCCESS && bytes == 8);
  CHECK(MPI_Type_size(MPI_DOUBLE_COMPLEX, &bytes) == MPI_SUCCESS && bytes == 16);
  CHECK(MPI_Type_size(MPI_INTEGER8, &bytes) == MPI_SUCCESS && bytes == 8);
  CHECK(MPI_Type_size(MPI_CXX_BOOL, &bytes) == MPI_SUCCESS && bytes == static_cast<int>(sizeof(bool)));
  CHECK(MPI_Type_size(MPI_CXX_DOUBLE_COMPLEX, &bytes) == MPI_SUCCESS && bytes == 16);
  int mine = rank + 1, sum = 0;
  CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(sum == size * (size + 1) / 2);
  bool flag = rank == 0, any = false;
  CHECK(MPI_Allreduce(&flag, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(any);
  // Complex types take MPI_SUM and MPI_PROD (and only those of the arithmetic ops).
  std::complex<double> z(rank + 1, 1), z_sum, z_prod, z_expected_sum, z_expected_prod(1, 0);
  for (int r = 0; r < size; ++r) {
    z_expected_sum += std::complex<double>(r + 1, 1);
    z_expected_prod *= std::complex<double>(r + 1, 1);
  }
  CHECK(MPI_Allreduce(&z, &z_sum, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(z_sum == z_expected_sum);
  CHECK(MPI_Allreduce(&z, &z_prod, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(std::abs(z_prod - z_expected_prod) < 1e-9 * std::abs(z_expected_prod));
  std::complex<float> f[3] = {{1, float(rank)}, {2, 0}, {0, 1}}, f_sum[3];
  CHECK(MPI_Reduce(f, f_sum, 3, MPI_COMPLEX, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank == 0) {
    CHECK(f_sum[0] == std::complex<float>(float(size), float(size * (size - 1) / 2)));
    CHECK(f_sum[1] == std::complex<float>(2.0f * float(size), 0) && f_sum[2] == std::complex<float>(0, float(size)));
  }
  std::complex<long double> l(rank, -1), l_sum;
  CHECK(MPI_Type_size(MPI_C_LONG_DOUBLE_COMPLEX, &bytes) == MPI_SUCCESS &&
        bytes == static_cast<int>(sizeof(std::complex<long double>)));
  CHECK(MPI_Allreduce(&l, &l_sum, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(l_sum == std::complex<long double>(size * (size - 1) / 2, -size));
  // external32: two binary128 parts, back to the same value.
  unsigned char packed[32];
  MPI_Aint position = 0, external = 0;
  CHECK(MPI_Pack_external_size("external32", 1, MPI_C_LONG_DOUBLE_COMPLEX, &external) == MPI_SUCCESS &&
        external == 32);
  const std::complex<long double> third(1.0L / 3, -2.5L);
  CHECK(MPI_Pack_external("external32", &third, 1, MPI_C_LONG_DOUBLE_COMPLEX, packed, 32, &position) ==
        MPI_SUCCESS);
  std::complex<long double> back;
  position = 0;
  CHECK(MPI_Unpack_external("external32", packed, 32, &position, &back, 1, MPI_C_LONG_DOUBLE_COMPLEX) ==
        MPI_SUCCESS);
  CHECK(back == third && packed[16] == 0xC0);  // -2.5's sign and exponent lead the second part
  std::complex<double> z_max;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Allreduce(&z, &z_max, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD) == MPI_ERR_OP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

void test_constructors() {
  MPI_Datatype t;
  MPI_Type_contiguous(5, MPI_INT, &t);
  SHAPE(t, 20, 0, 20, 0, 20);
  MPI_Type_free(&t);
  CHECK(t == MPI_DATATYPE_NULL);

  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);  // blocks at 0,32,64 of 16 bytes
  SHAPE(t, 48, 0, 80, 0, 80);
  MPI_Type_free(&t);

  MPI_Type_vector(3, 1, -2, MPI_INT, &t);  // elements at 0,-8,-16
  SHAPE(t, 12, -16, 20, -16, 20);
  MPI_Type_free(&t);

  MPI_Type_create_hvector(2, 3, 100, MPI_CHAR, &t);
  SHAPE(t, 6, 0, 103, 0, 103);
  MPI_Type_free(&t);

  int bl[3] = {2, 0, 1};
  int dp[3] = {1, 10, 5};
  MPI_Type_indexed(3, bl, dp, MPI_INT, &t);  // ints 1,2 and 5: bytes 4..12, 20..24
  SHAPE(t, 12, 4, 20, 4, 20);
  MPI_Type_free(&t);

  MPI_Aint hdp[2] = {8, 0};
  int hbl[2] = {1, 1};
  MPI_Type_create_hindexed(2, hbl, hdp, MPI_SHORT, &t);
  SHAPE(t, 4, 0, 10, 0, 10);
  MPI_Type_free(&t);

  int idp[2] = {3, 0};
  MPI_Type_create_indexed_block(2, 2, idp, MPI_FLOAT, &t);  // floats 3,4 and 0,1
  SHAPE(t, 16, 0, 20, 0, 20);
  MPI_Type_free(&t);

  MPI_Aint hbdp[3] = {0, 16, 32};
  MPI_Type_create_hindexed_block(3, 1, hbdp, MPI_DOUBLE, &t);
  SHAPE(t, 24, 0, 40, 0, 40);
  MPI_Type_free(&t);

  // struct {int; double; char[3]}: 0, 8, 16 -> ub 19, padded to 24.
  struct S {
    int i;
    double d;
    char c[3];
  };
  int sbl[3] = {1, 1, 3};
  MPI_Aint sdp[3] = {offsetof(S, i), offsetof(S, d), offsetof(S, c)};
  MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, sbl, sdp, sty, &t);
  SHAPE(t, 15, 0, static_cast<MPI_Aint>(sizeof(S)), 0, 19);
  MPI_Datatype r;
  MPI_Type_create_resized(t, -8, 40, &r);
  SHAPE(r, 15, -8, 40, 0, 19);
  MPI_Datatype d;
  MPI_Type_dup(r, &d);
  SHAPE(d, 15, -8, 40, 0, 19);
  MPI_Type_free(&d);
  MPI_Type_free(&r);
  MPI_Type_free(&t);

  // Nested: a vector of a contiguous pair.
  MPI_Datatype pair, vec;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_vector(2, 1, 3, pair, &vec);  // pairs at 0 and 24
  SHAPE(vec, 16, 0, 32, 0, 32);
  MPI_Type_free(&vec);
  MPI_Type_free(&pair);

  // Names.
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Type_get_name(MPI_DOUBLE, name, &len);
  CHECK(std::strcmp(name, "MPI_DOUBLE") == 0 && len == 10);
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_get_name(t, name, &len);
  CHECK(len == 0 && name[0] == '\0');
  MPI_Type_set_name(t, "two ints");
  MPI_Type_get_name(t, name, &len);
  CHECK(std::strcmp(name, "two ints") == 0 && len == 8);
  MPI_Type_free(&t);

  // Addresses.
  int a[4];
  MPI_Aint p0, p2;
  MPI_Get_address(&a[0], &p0);
  MPI_Get_address(&a[2], &p2);
  CHECK(MPI_Aint_diff(p2, p0) == 8);
  CHECK(MPI_Aint_add(p0, 8) == p2);
}

void test_pack() {
  MPI_Datatype col;
  MPI_Type_vector(4, 1, 4, MPI_INT, &col);
  MPI_Type_commit(&col);
  int m[16];
  for (int i = 0; i < 16; ++i) m[i] = i;
  int psize = 0;
  MPI_Pack_size(2, col, MPI_COMM_WORLD, &psize);
  CHECK(psize == 32);
  std::vector<char> buf(64);
  int pos = 0;
  MPI_Pack(&m[1], 1, col, buf.data(), 64, &pos, MPI_COMM_WORLD);
  CHECK(pos == 16);
  double x = 2.5;
  MPI_Pack(&x, 1, MPI_DOUBLE, buf.data(), 64, &pos, MPI_COMM_WORLD);
  CHECK(pos == 24);
  int packed[4];
  std::memcpy(packed, buf.data(), 16);
  CHECK(packed[0] == 1 && packed[1] == 5 && packed[2] == 9 && packed[3] == 13);
  int out[16] = {};
  double y = 0;
  pos = 0;
  MPI_Unpack(buf.data(), 64, &pos, &out[2], 1, col, MPI_COMM_WORLD);
  MPI_Unpack(buf.data(), 64, &pos, &y, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK(pos == 24 && y == 2.5);
  CHECK(out[2] == 1 && out[6] == 5 && out[10] == 9 && out[14] == 13 && out[3] == 0 && out[0] == 0);
  MPI_Type_free(&col);
}

constexpr int N = 6;

void test_vector_p2p() {
  if (size < 2 || rank > 1) return;
  const int peer = 1 - rank;
  MPI_Datatype col;
  MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double m[N * N];
  if (rank == 0) {
    for (int i = 0; i < N * N; ++i) m[i] = i;
    MPI_Send(&m[2], 1, col, peer, 1, MPI_COMM_WORLD);  // column 2 out as a vector
    double in[N];
    MPI_Status st;
    MPI_Recv(in, N, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &st);
    for (int i = 0; i < N; ++i) CHECK(in[i] == 2 + i * N);
    // Contiguous out, a column in.
    double c[N];
    for (int i = 0; i < N; ++i) c[i] = 100 + i;
    MPI_Send(c, N, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD);
  } else {
    double in[N];
    MPI_Status st;
    MPI_Recv(in, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &st);
    for (int i = 0; i < N; ++i) CHECK(in[i] == 2 + i * N);
    MPI_Send(in, N, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
    for (int i = 0; i < N * N; ++i) m[i] = -1;
    MPI_Recv(&m[4], 1, col, peer, 3, MPI_COMM_WORLD, &st);
    int count = -1, elements = -1;
    MPI_Get_count(&st, col, &count);
    MPI_Get_elements(&st, col, &elements);
    CHECK(count == 1 && elements == N);
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) CHECK(m[i * N + j] == (j == 4 ? 100 + i : -1));
    }
  }
  MPI_Type_free(&col);
}

struct Item {
  int i;
  double d;
  char c[3];
};

MPI_Datatype item_type() {
  int bl[3] = {1, 1, 3};
  MPI_Aint dp[3] = {offsetof(Item, i), offsetof(Item, d), offsetof(Item, c)};
  MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype s, r;
  MPI_Type_create_struct(3, bl, dp, ty, &s);
  MPI_Type_create_resized(s, 0, sizeof(Item), &r);
  MPI_Type_free(&s);
  MPI_Type_commit(&r);
  return r;
}

void test_struct_p2p() {
  if (size < 2 || rank > 1) return;
  const int peer = 1 - rank;
  MPI_Datatype t = item_type();
  constexpr int K = 5;
  Item items[K];
  if (rank == 0) {
    for (int k = 0; k < K; ++k) {
      items[k].i = k;
      items[k].d = k * 1.5;
      items[k].c[0] = 'a';
      items[k].c[1] = static_cast<char>('a' + k);
      items[k].c[2] = 'z';
    }
    MPI_Send(items, K, t, peer, 10, MPI_COMM_WORLD);
  } else {
    std::memset(items, 0, sizeof items);
    MPI_Status st;
    MPI_Recv(items, K + 2, t, peer, 10, MPI_COMM_WORLD, &st);
    int count = -1, elements = -1;
    MPI_Get_count(&st, t, &count);
    MPI_Get_elements(&st, t, &elements);
    CHECK(count == K);
    CHECK(elements == 5 * K);
    for (int k = 0; k < K; ++k) {
      CHECK(items[k].i == k && items[k].d == k * 1.5 && items[k].c[0] == 'a' && items[k].c[1] == 'a' + k &&
            items[k].c[2] == 'z');
    }
    // Partial: 15 + 4 + 8 bytes = one item, an int and a double -> 7 elements, count undefined.
    // (checked with a synthetic byte count through MPI_BYTE below)
  }
  // Partial element counts: send 27 bytes, receive as items.
  if (rank == 0) {
    char raw[27] = {};
    MPI_Send(raw, 27, MPI_BYTE, peer, 11, MPI_COMM_WORLD);
  } else {
    MPI_Status st;
    MPI_Recv(items, 2, t, peer, 11, MPI_COMM_WORLD, &st);
    int count = 0, elements = 0;
    MPI_Get_count(&st, t, &count);
    MPI_Get_elements(&st, t, &elements);
    CHECK(count == MPI_UNDEFINED);
    CHECK(elements == 7);
  }
  MPI_Type_free(&t);
}

void test_indexed_nonblocking() {
  if (size < 2 || rank > 1) return;
  const int peer = 1 - rank;
  int bl[3] = {2, 1, 3};
  int dp[3] = {0, 4, 7};  // ints 0,1, 4, 7,8,9 of 10
  MPI_Datatype t;
  MPI_Type_indexed(3, bl, dp, MPI_INT, &t);
  MPI_Type_commit(&t);
  const int sel[6] = {0, 1, 4, 7, 8, 9};
  int src[20], dst[20], dst2[20], dst3[20];
  for (int i = 0; i < 20; ++i) src[i] = 1000 * rank + i;
  for (int i = 0; i < 20; ++i) dst[i] = dst2[i] = dst3[i] = -1;
  // Wait: one each way.
  MPI_Request rq[2];
  MPI_Irecv(dst, 1, t, peer, 20, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(src, 1, t, peer, 20, MPI_COMM_WORLD, &rq[1]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  for (int k = 0; k < 6; ++k) CHECK(dst[sel[k]] == 1000 * peer + sel[k]);
  CHECK(dst[2] == -1 && dst[3] == -1 && dst[5] == -1 && dst[6] == -1);
  // Waitall: count 2 (extent 40 bytes: second copy from int 10).
  MPI_Irecv(dst2, 2, t, peer, 21, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(src, 2, t, peer, 21, MPI_COMM_WORLD, &rq[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, rq, sts);
  for (int k = 0; k < 6; ++k) {
    CHECK(dst2[sel[k]] == 1000 * peer + sel[k]);
    CHECK(dst2[10 + sel[k]] == 1000 * peer + 10 + sel[k]);
  }
  int count = 0;
  MPI_Get_count(&sts[0], t, &count);
  CHECK(count == 2);
  // Test loop.
  MPI_Irecv(dst3, 1, t, peer, 22, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(src, 1, t, peer, 22, MPI_COMM_WORLD, &rq[1]);
  int done0 = 0, done1 = 0;
  while (!done0 || !done1) {
    if (!done0) MPI_Test(&rq[0], &done0, MPI_STATUS_IGNORE);
    if (!done1) MPI_Test(&rq[1], &done1, MPI_STATUS_IGNORE);
  }
  for (int k = 0; k < 6; ++k) CHECK(dst3[sel[k]] == 1000 * peer + sel[k]);
  // Sendrecv with derived types on both sides.
  int dst4[20];
  for (int i = 0; i < 20; ++i) dst4[i] = -1;
  MPI_Sendrecv(src, 1, t, peer, 23, dst4, 1, t, peer, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int k = 0; k < 6; ++k) CHECK(dst4[sel[k]] == 1000 * peer + sel[k]);
  MPI_Type_free(&t);
}

// The type is freed while a large send with it is in flight.
void test_free_in_flight() {
  if (size < 2) return;
  if (rank > 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  const int peer = 1 - rank;
  constexpr int M = 1 << 16;
  std::vector<int> data(2 * M), got(2 * M, -1);
  for (int i = 0; i < 2 * M; ++i) data[i] = i * 3 + rank;
  MPI_Datatype even;
  MPI_Type_vector(M, 1, 2, MPI_INT, &even);
  MPI_Type_commit(&even);
  MPI_Request rq[2];
  if (rank == 0) {
    MPI_Isend(data.data(), 1, even, peer, 30, MPI_COMM_WORLD, &rq[0]);
    MPI_Type_free(&even);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  } else {
    MPI_Irecv(got.data(), 1, even, peer, 30, MPI_COMM_WORLD, &rq[1]);
    MPI_Type_free(&even);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    bool ok = true;
    for (int i = 0; i < M; ++i) ok = ok && got[2 * i] == data[2 * i] - rank && got[2 * i + 1] == -1;
    CHECK(ok);
  }
}

void test_collectives() {
  MPI_Datatype col;
  MPI_Type_vector(N, 1, N, MPI_INT, &col);
  MPI_Type_commit(&col);
  int m[N * N];
  for (int i = 0; i < N * N; ++i) m[i] = rank == 0 ? i : -1;
  MPI_Bcast(&m[1], 1, col, 0, MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) CHECK(m[i * N + j] == (rank == 0 || j == 1 ? i * N + j : -1));
  }
  // Gather: each rank's column k of a resized column type into root's matrix.
  MPI_Datatype col1;
  MPI_Type_create_resized(col, 0, sizeof(int), &col1);
  MPI_Type_commit(&col1);
  std::vector<int> mine(N), all(static_cast<std::size_t>(N * size), -1);
  for (int i = 0; i < N; ++i) mine[i] = rank * 100 + i;
  // Each rank contributes N ints; root stores rank r's as column r of an N x size matrix.
  MPI_Datatype colr, colr1;
  MPI_Type_vector(N, 1, size, MPI_INT, &colr);
  MPI_Type_create_resized(colr, 0, sizeof(int), &colr1);
  MPI_Type_commit(&colr1);
  MPI_Gather(mine.data(), N, MPI_INT, all.data(), 1, colr1, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < N; ++i) {
      for (int r = 0; r < size; ++r) CHECK(all[i * size + r] == r * 100 + i);
    }
  }
  // Scatter back: rank r receives column r as N contiguous ints.
  std::vector<int> back(N, -1);
  MPI_Scatter(all.data(), 1, colr1, back.data(), N, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) CHECK(back[i] == rank * 100 + i);
  MPI_Type_free(&colr);
  MPI_Type_free(&colr1);
  MPI_Type_free(&col1);
  // Reductions take a type of one basic type: column sums.
  int x[N * N], y[N * N];
  for (int i = 0; i < N * N; ++i) x[i] = y[i] = i + rank;
  CHECK(MPI_Allreduce(x, y, 1, col, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int i = 0; i < N * N; ++i) CHECK(y[i] == (i % N == 0 ? size * i + size * (size - 1) / 2 : i + rank));
  // Predefined operations refuse mixed structs.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype mixed;
  const int mlens[2] = {1, 1};
  const MPI_Aint mdisps[2] = {0, sizeof(double)};
  const MPI_Datatype mtypes[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, mlens, mdisps, mtypes, &mixed);
  MPI_Type_commit(&mixed);
  double mx[2] = {}, my[2] = {};
  CHECK(MPI_Allreduce(mx, my, 1, mixed, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_OP);
  MPI_Type_free(&mixed);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&col);
}

// Persistent send/receive of a column type restarted 50 times, the data
// changing each round; both Wait and Test complete the receive rounds.
void test_persistent_vector() {
  if (size < 2 || rank > 1) return;
  const int peer = 1 - rank;
  MPI_Datatype col;
  MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double m[N * N];
  MPI_Request send_rq, recv_rq;
  if (rank == 0) {
    CHECK(MPI_Send_init(&m[1], 1, col, peer, 7, MPI_COMM_WORLD, &send_rq) == MPI_SUCCESS);
    MPI_Request ssend_rq;
    CHECK(MPI_Ssend_init(&m[3], 1, col, peer, 8, MPI_COMM_WORLD, &ssend_rq) == MPI_SUCCESS);
    for (int round = 0; round < 50; ++round) {
      for (int i = 0; i < N * N; ++i) m[i] = round * 1000 + i;
      CHECK(MPI_Start(&send_rq) == MPI_SUCCESS);
      CHECK(MPI_Start(&ssend_rq) == MPI_SUCCESS);
      // The packed copy was taken at Start: changing m now changes nothing sent.
      for (int i = 0; i < N * N; ++i) m[i] = -7;
      MPI_Request both[2] = {send_rq, ssend_rq};
      CHECK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
      CHECK(both[0] == send_rq && both[1] == ssend_rq);
    }
    MPI_Request_free(&send_rq);
    MPI_Request_free(&ssend_rq);
  } else {
    CHECK(MPI_Recv_init(&m[2], 1, col, peer, 7, MPI_COMM_WORLD, &recv_rq) == MPI_SUCCESS);
    MPI_Request recv2_rq;
    double in[N];
    CHECK(MPI_Recv_init(in, N, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, &recv2_rq) == MPI_SUCCESS);
    for (int round = 0; round < 50; ++round) {
      for (int i = 0; i < N * N; ++i) m[i] = -1;
      CHECK(MPI_Start(&recv_rq) == MPI_SUCCESS);
      CHECK(MPI_Start(&recv2_rq) == MPI_SUCCESS);
      MPI_Status st;
      if (round % 2 == 0) {
        CHECK(MPI_Wait(&recv_rq, &st) == MPI_SUCCESS);
      } else {
        int flag = 0;
        while (!flag) CHECK(MPI_Test(&recv_rq, &flag, &st) == MPI_SUCCESS);
      }
      int count = -1;
      MPI_Get_count(&st, col, &count);
      CHECK(count == 1 && st.MPI_SOURCE == peer && st.MPI_TAG == 7);
      for (int i = 0; i < N; ++i) {
        for (int j = 0; j < N; ++j) {
          CHECK(m[i * N + j] == (j == 2 ? round * 1000 + i * N + 1 : -1));
        }
      }
      CHECK(MPI_Wait(&recv2_rq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      for (int i = 0; i < N; ++i) CHECK(in[i] == round * 1000 + i * N + 3);
    }
    MPI_Request_free(&recv_rq);
    MPI_Request_free(&recv2_rq);
  }
  MPI_Type_free(&col);
}

// Mprobe+Mrecv and Improbe+Imrecv of a column type.
void test_mrecv_vector() {
  if (size < 2 || rank > 1) return;
  const int peer = 1 - rank;
  MPI_Datatype col;
  MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double m[N * N];
  if (rank == 0) {
    for (int i = 0; i < N * N; ++i) m[i] = i;
    MPI_Send(&m[1], 1, col, peer, 11, MPI_COMM_WORLD);
    MPI_Send(&m[5], 1, col, peer, 12, MPI_COMM_WORLD);
  } else {
    for (int i = 0; i < N * N; ++i) m[i] = -1;
    MPI_Message msg;
    MPI_Status st;
    CHECK(MPI_Mprobe(peer, 11, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
    CHECK(MPI_Mrecv(&m[3], 1, col, &msg, &st) == MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NULL);
    int count = -1;
    MPI_Get_count(&st, col, &count);
    CHECK(count == 1);
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) CHECK(m[i * N + j] == (j == 3 ? i * N + 1 : -1));
    }
    for (int i = 0; i < N * N; ++i) m[i] = -1;
    int flag = 0;
    while (!flag) CHECK(MPI_Improbe(peer, 12, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS);
    MPI_Request rq;
    CHECK(MPI_Imrecv(&m[0], 1, col, &msg, &rq) == MPI_SUCCESS);
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, col, &count);
    CHECK(count == 1 && st.MPI_TAG == 12);
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) CHECK(m[i * N + j] == (j == 0 ? i * N + 5 : -1));
    }
  }
  MPI_Type_free(&col);
}

void test_errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_contiguous(-1, MPI_INT, &t) == MPI_ERR_COUNT);
  CHECK(MPI_Type_contiguous(2, 12345, &t) == MPI_ERR_TYPE);
  CHECK(MPI_Type_vector(2, -1, 2, MPI_INT, &t) == MPI_ERR_ARG);
  CHECK(MPI_Type_contiguous(2, MPI_INT, nullptr) == MPI_ERR_ARG);
  int bl[1] = {1};
  MPI_Aint dp[1] = {0};
  MPI_Datatype ty[1] = {MPI_DATATYPE_NULL};
  CHECK(MPI_Type_create_struct(1, bl, dp, ty, &t) == MPI_ERR_TYPE);
  MPI_Datatype pre = MPI_INT;
  CHECK(MPI_Type_free(&pre) == MPI_ERR_TYPE);
  MPI_Type_contiguous(2, MPI_INT, &t);
  int v[2] = {1, 2};
  // Not committed: non-contiguous send refused with MPI_ERR_TYPE.
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  int w[4] = {};
  CHECK(MPI_Send(w, 1, vec, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
  char out[4];
  int pos = 0;
  CHECK(MPI_Pack(v, 1, vec, out, 4, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE);
  MPI_Type_commit(&vec);
  MPI_Type_commit(&t);
  CHECK(MPI_Pack(v, 1, t, out, 4, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
  MPI_Request rq;
  // Persistent requests take non-contiguous types (test_persistent_vector).
  CHECK(MPI_Send_init(w, 1, vec, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq) == MPI_SUCCESS);
  CHECK(MPI_Start(&rq) == MPI_SUCCESS && MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_Request_free(&rq) == MPI_SUCCESS);
  MPI_Datatype freed = t;
  MPI_Type_free(&t);
  CHECK(MPI_Type_free(&freed) == MPI_ERR_TYPE);
  MPI_Aint lb, ext;
  CHECK(MPI_Type_get_extent(freed, &lb, &ext) == MPI_ERR_TYPE);
  MPI_Type_free(&vec);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_constructors();
  test_named_types_of_other_languages();
  test_pack();
  test_vector_p2p();
  test_struct_p2p();
  test_indexed_nonblocking();
  test_free_in_flight();
  test_collectives();
  test_persistent_vector();
  test_mrecv_vector();
  test_errors();
  const int rc = ::tern::mpi_test::conclude("mpi_datatypes");
  MPI_Finalize();
  return rc;
}
