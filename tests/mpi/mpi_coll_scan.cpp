// Reduce_scatter(_block), Reduce_local, Scan, Exscan, Op_commutative and
// Alltoallw against serial references: every predefined operation on the
// types it is defined for, commutative and non-commutative user
// operations, MPI_IN_PLACE where the standard allows it.
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

// Rank r's i-th element: small, distinct, and non-zero for products.
long long value_of(int r, int i) { return (r * 7 + i * 3) % 5 + 1 + (r == i % 4 ? 2 : 0); }

long long combine(MPI_Op op, long long a, long long b) {
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_LAND) return (a != 0) && (b != 0);
  if (op == MPI_LOR) return (a != 0) || (b != 0);
  if (op == MPI_LXOR) return (a != 0) != (b != 0);
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  return a ^ b;  // MPI_BXOR
}

// The reduction over ranks [first, last] of element i.
long long reference(MPI_Op op, int first, int last, int i) {
  long long result = value_of(first, i);
  for (int r = first + 1; r <= last; ++r) result = combine(op, result, value_of(r, i));
  return result;
}

const MPI_Op kIntOps[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
const MPI_Op kFloatOps[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};

template <typename T>
std::vector<T> mine(int count) {
  std::vector<T> data(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) data[static_cast<std::size_t>(i)] = static_cast<T>(value_of(rank, i));
  return data;
}

template <typename T>
void scans(MPI_Datatype type, MPI_Op op) {
  const int count = 5;
  std::vector<T> out(count, T(-9));
  CHECK(MPI_Scan(mine<T>(count).data(), out.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int i = 0; i < count; ++i) CHECK(out[static_cast<std::size_t>(i)] == static_cast<T>(reference(op, 0, rank, i)));
  std::vector<T> in_place = mine<T>(count);
  CHECK(MPI_Scan(MPI_IN_PLACE, in_place.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(in_place == out);
  std::fill(out.begin(), out.end(), T(-9));
  CHECK(MPI_Exscan(mine<T>(count).data(), out.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int i = 0; i < count; ++i) {
    const T expected = rank == 0 ? T(-9) : static_cast<T>(reference(op, 0, rank - 1, i));  // rank 0 untouched
    CHECK(out[static_cast<std::size_t>(i)] == expected);
  }
  in_place = mine<T>(count);
  CHECK(MPI_Exscan(MPI_IN_PLACE, in_place.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank > 0) CHECK(in_place == out);
}

template <typename T>
void reduce_scatters(MPI_Datatype type, MPI_Op op) {
  // Rank r gets r + 1 elements.
  std::vector<int> counts(static_cast<std::size_t>(size));
  int total = 0, offset = 0;
  for (int r = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = r + 1;
    if (r < rank) offset += r + 1;
    total += r + 1;
  }
  std::vector<T> out(static_cast<std::size_t>(rank + 1), T(-9));
  CHECK(MPI_Reduce_scatter(mine<T>(total).data(), out.data(), counts.data(), type, op, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  for (int i = 0; i <= rank; ++i) {
    CHECK(out[static_cast<std::size_t>(i)] == static_cast<T>(reference(op, 0, size - 1, offset + i)));
  }
  std::vector<T> in_place = mine<T>(total);
  CHECK(MPI_Reduce_scatter(MPI_IN_PLACE, in_place.data(), counts.data(), type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int i = 0; i <= rank; ++i) CHECK(in_place[static_cast<std::size_t>(i)] == out[static_cast<std::size_t>(i)]);
  const int block = 3;
  std::vector<T> block_out(block, T(-9));
  CHECK(MPI_Reduce_scatter_block(mine<T>(block * size).data(), block_out.data(), block, type, op, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  for (int i = 0; i < block; ++i) {
    CHECK(block_out[static_cast<std::size_t>(i)] == static_cast<T>(reference(op, 0, size - 1, rank * block + i)));
  }
}

template <typename T>
void reduce_local(MPI_Datatype type, MPI_Op op) {
  std::vector<T> in(4), inout(4);
  for (int i = 0; i < 4; ++i) {
    in[static_cast<std::size_t>(i)] = static_cast<T>(value_of(1, i));
    inout[static_cast<std::size_t>(i)] = static_cast<T>(value_of(2, i));
  }
  CHECK(MPI_Reduce_local(in.data(), inout.data(), 4, type, op) == MPI_SUCCESS);
  for (int i = 0; i < 4; ++i) CHECK(inout[static_cast<std::size_t>(i)] == static_cast<T>(reference(op, 1, 2, i)));
}

void predefined_ops() {
  for (MPI_Op op : kIntOps) {
    scans<int>(MPI_INT, op);
    scans<int64_t>(MPI_INT64_T, op);
    reduce_scatters<int>(MPI_INT, op);
    reduce_scatters<unsigned char>(MPI_UNSIGNED_CHAR, op);
    reduce_local<long>(MPI_LONG, op);
  }
  for (MPI_Op op : kFloatOps) {
    scans<double>(MPI_DOUBLE, op);
    reduce_scatters<float>(MPI_FLOAT, op);
    reduce_local<double>(MPI_DOUBLE, op);
  }
  // MAXLOC on pairs.
  struct Pair {
    double value;
    int index;
  };
  Pair in{static_cast<double>(rank % 2), rank}, out{-1, -1};
  CHECK(MPI_Scan(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(out.value == (rank >= 1 ? 1.0 : 0.0) && out.index == (rank >= 1 ? 1 : 0));
  int commute = -1;
  CHECK(MPI_Op_commutative(MPI_SUM, &commute) == MPI_SUCCESS && commute == 1);
  CHECK(MPI_Op_commutative(MPI_MAXLOC, &commute) == MPI_SUCCESS && commute == 1);
  CHECK(MPI_Op_commutative(MPI_OP_NULL, &commute) == MPI_ERR_OP);
  int a = 1, b = 2;
  CHECK(MPI_Reduce_local(&a, &b, 1, MPI_FLOAT, MPI_BAND) == MPI_ERR_OP);  // not defined on floats
}

// 2x2 matrices multiplied in rank order: not commutative, so order shows.
// Given as MPI_INT, four elements make a matrix; as the matrix type, one.
void matrix_product(void* in, void* inout, int* len, MPI_Datatype* datatype) {
  auto* a = static_cast<const int*>(in);
  auto* b = static_cast<int*>(inout);
  const int matrices = datatype != nullptr && *datatype == MPI_INT ? *len / 4 : *len;
  for (int k = 0; k < matrices; ++k, a += 4, b += 4) {
    const int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                      a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, c, sizeof(c));
  }
}

void matrix_of(int r, int* m) {
  m[0] = 1;
  m[1] = r + 1;
  m[2] = 0;
  m[3] = 1 + (r % 2);
}

void product_of(int first, int last, int* m) {
  matrix_of(first, m);
  for (int r = first + 1; r <= last; ++r) {
    int next[4];
    matrix_of(r, next);
    int len = 1;
    // m = m * next: matrix_product computes inout = in * inout.
    matrix_product(m, next, &len, nullptr);
    std::memcpy(m, next, sizeof(next));
  }
}

void user_ops() {
  MPI_Datatype matrix;
  MPI_Type_contiguous(4, MPI_INT, &matrix);
  MPI_Type_commit(&matrix);
  MPI_Op product;
  CHECK(MPI_Op_create(matrix_product, 0, &product) == MPI_SUCCESS);
  int commute = -1;
  CHECK(MPI_Op_commutative(product, &commute) == MPI_SUCCESS && commute == 0);
  int m[4], out[4], expected[4];
  matrix_of(rank, m);
  CHECK(MPI_Scan(m, out, 4, MPI_INT, product, MPI_COMM_WORLD) == MPI_SUCCESS);
  product_of(0, rank, expected);
  CHECK(std::memcmp(out, expected, sizeof(out)) == 0);
  std::fill(out, out + 4, -9);
  CHECK(MPI_Exscan(m, out, 4, MPI_INT, product, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank > 0) {
    product_of(0, rank - 1, expected);
    CHECK(std::memcmp(out, expected, sizeof(out)) == 0);
  }
  // Reduce_scatter_block: block r of every rank's vector holds its matrix
  // scaled by nothing, so each block's result is the ordered product.
  std::vector<int> all(static_cast<std::size_t>(4 * size));
  for (int r = 0; r < size; ++r) std::memcpy(&all[static_cast<std::size_t>(4 * r)], m, sizeof(m));
  CHECK(MPI_Reduce_scatter_block(all.data(), out, 4, MPI_INT, product, MPI_COMM_WORLD) == MPI_SUCCESS);
  product_of(0, size - 1, expected);
  CHECK(std::memcmp(out, expected, sizeof(out)) == 0);
  // Reduce_local with a user op on a derived type: one call, the type as is.
  int left[4], right[4];
  matrix_of(3, left);
  matrix_of(4, right);
  CHECK(MPI_Reduce_local(left, right, 1, matrix, product) == MPI_SUCCESS);
  product_of(3, 4, expected);
  CHECK(std::memcmp(right, expected, sizeof(right)) == 0);
  // A predefined op on a derived type of one basic type: element-wise.
  int x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  CHECK(MPI_Reduce_local(x, y, 1, matrix, MPI_SUM) == MPI_SUCCESS);
  CHECK(y[0] == 11 && y[1] == 22 && y[2] == 33 && y[3] == 44);
  // The same on the matrix type itself (a derived type: the user operation
  // gets it), and a predefined op on a strided type (holes untouched).
  std::fill(out, out + 4, -9);
  CHECK(MPI_Scan(m, out, 1, matrix, product, MPI_COMM_WORLD) == MPI_SUCCESS);
  product_of(0, rank, expected);
  CHECK(std::memcmp(out, expected, sizeof(out)) == 0);
  std::fill(out, out + 4, -9);
  CHECK(MPI_Exscan(m, out, 1, matrix, product, MPI_COMM_WORLD) == MPI_SUCCESS);
  if (rank > 0) {
    product_of(0, rank - 1, expected);
    CHECK(std::memcmp(out, expected, sizeof(out)) == 0);
  } else {
    CHECK(out[0] == -9 && out[3] == -9);
  }
  std::vector<int> counts(static_cast<std::size_t>(size), 1);
  std::fill(out, out + 4, -9);
  CHECK(MPI_Reduce_scatter(all.data(), out, counts.data(), matrix, product, MPI_COMM_WORLD) == MPI_SUCCESS);
  product_of(0, size - 1, expected);
  CHECK(std::memcmp(out, expected, sizeof(out)) == 0);
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int strided[4] = {rank + 1, -1, 10 * (rank + 1), -1}, sums[4] = {-7, -7, -7, -7};
  CHECK(MPI_Scan(strided, sums, 1, every_other, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  const int triangle = (rank + 1) * (rank + 2) / 2;
  CHECK(sums[0] == triangle && sums[1] == -7 && sums[2] == 10 * triangle && sums[3] == -7);
  std::vector<int> mine_out(4, -7);
  // Instance r of every_other (extent 3 ints) holds ints 3r and 3r + 2.
  std::vector<int> laid(static_cast<std::size_t>(3 * size + 1), 0);
  for (int r = 0; r < size; ++r) {
    laid[static_cast<std::size_t>(3 * r)] = r + rank;
    laid[static_cast<std::size_t>(3 * r + 2)] = 1;
  }
  CHECK(MPI_Reduce_scatter(laid.data(), mine_out.data(), counts.data(), every_other, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK(mine_out[0] == size * rank + size * (size - 1) / 2 && mine_out[1] == -7 && mine_out[2] == size);
  MPI_Type_free(&every_other);
  MPI_Op_free(&product);
  MPI_Type_free(&matrix);
}

// Alltoallw: to rank r, r + 1 ints as MPI_INT, and back a vector type
// (every other int) for odd ranks; displacements in bytes.
void alltoallw() {
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  const auto n = static_cast<std::size_t>(size);
  std::vector<int> sendcounts(n), sdispls(n), recvcounts(n), rdispls(n);
  std::vector<MPI_Datatype> sendtypes(n, MPI_INT), recvtypes(n);
  std::vector<int> send(n * 8), recv(n * 8, -1);
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    sendcounts[i] = 2;
    sdispls[i] = r * 8 * static_cast<int>(sizeof(int));
    send[i * 8] = rank * 100 + r;
    send[i * 8 + 1] = rank * 100 + r + 50;
    // From rank r: 2 ints, as a vector (stride 2) into an odd-rank slot.
    recvtypes[i] = r % 2 == 1 ? every_other : MPI_INT;
    recvcounts[i] = r % 2 == 1 ? 1 : 2;
    rdispls[i] = r * 8 * static_cast<int>(sizeof(int));
  }
  CHECK(MPI_Alltoallw(send.data(), sendcounts.data(), sdispls.data(), sendtypes.data(), recv.data(),
                      recvcounts.data(), rdispls.data(), recvtypes.data(), MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    CHECK(recv[i * 8] == r * 100 + rank);
    const std::size_t second = r % 2 == 1 ? 2 : 1;
    CHECK(recv[i * 8 + second] == r * 100 + rank + 50);
    if (r % 2 == 1) CHECK(recv[i * 8 + 1] == -1);  // the hole stays
  }
  // In place: the receive buffer holds what goes out, with the receive
  // counts and types (MPI_INT pairs here, so both sides agree).
  std::vector<int> in_place(n * 8, -1);
  for (int r = 0; r < size; ++r) {
    in_place[static_cast<std::size_t>(r) * 8] = rank * 100 + r;
    in_place[static_cast<std::size_t>(r) * 8 + 1] = rank * 100 + r + 50;
  }
  std::vector<MPI_Datatype> ints(n, MPI_INT);
  std::vector<int> twos(n, 2);
  CHECK(MPI_Alltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, in_place.data(), twos.data(), rdispls.data(),
                      ints.data(), MPI_COMM_WORLD) == MPI_SUCCESS);
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    CHECK(in_place[i * 8] == r * 100 + rank && in_place[i * 8 + 1] == r * 100 + rank + 50);
  }
  MPI_Type_free(&every_other);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  predefined_ops();
  user_ops();
  alltoallw();
  const int code = tern::mpi_test::conclude("mpi_coll_scan");
  MPI_Finalize();
  return code;
}
