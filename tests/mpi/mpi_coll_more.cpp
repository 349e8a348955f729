// The collectives beyond the first slice on 1 to 4 ranks, checked against a
// serial computation of every rank's contribution: Scatter(v), Gatherv,
// Allgatherv, Alltoall(v), Reduce_scatter_block (every predefined
// arithmetic op), MAXLOC/MINLOC on the pair types, user ops (commutative and
// not) through Reduce and Allreduce; counts from 0 up, every root, in place.
#include <algorithm>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

int value_at(int r, int i) { return r * 1000 + i; }

const int kCounts[] = {0, 1, 7, 1000};

void scatter_gather() {
  for (int count : kCounts) {
    for (int root = 0; root < size; ++root) {
      std::vector<int> all(static_cast<std::size_t>(count * size));
      for (int r = 0; r < size; ++r) {
        for (int i = 0; i < count; ++i) all[static_cast<std::size_t>(r * count + i)] = value_at(r, i);
      }
      std::vector<int> mine(static_cast<std::size_t>(count), -1);
      CHECK(MPI_Scatter(rank == root ? all.data() : nullptr, count, MPI_INT, mine.data(), count, MPI_INT, root,
                        MPI_COMM_WORLD) == MPI_SUCCESS);
      bool ok = true;
      for (int i = 0; i < count; ++i) ok = ok && mine[static_cast<std::size_t>(i)] == value_at(rank, i);
      CHECK(ok);
      // In place at the root.
      std::vector<int> copy = all;
      if (rank == root) {
        CHECK(MPI_Scatter(copy.data(), count, MPI_INT, MPI_IN_PLACE, count, MPI_INT, root, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        CHECK(copy == all);
      } else {
        std::fill(mine.begin(), mine.end(), -1);
        CHECK(MPI_Scatter(nullptr, count, MPI_INT, mine.data(), count, MPI_INT, root, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        ok = true;
        for (int i = 0; i < count; ++i) ok = ok && mine[static_cast<std::size_t>(i)] == value_at(rank, i);
        CHECK(ok);
      }

      // Rank r holds count + r elements, placed with gaps of 3 in reverse order.
      std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
      int offset = 0;
      for (int r = size - 1; r >= 0; --r) {
        counts[static_cast<std::size_t>(r)] = count + r;
        displs[static_cast<std::size_t>(r)] = offset;
        offset += count + r + 3;
      }
      std::vector<int> spread(static_cast<std::size_t>(offset), -5);
      for (int r = 0; r < size; ++r) {
        for (int i = 0; i < count + r; ++i) {
          spread[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + i)] = value_at(r, i);
        }
      }
      std::vector<int> part(static_cast<std::size_t>(count + rank), -1);
      std::vector<int> expected_part(static_cast<std::size_t>(count + rank));
      for (int i = 0; i < count + rank; ++i) expected_part[static_cast<std::size_t>(i)] = value_at(rank, i);
      CHECK(MPI_Scatterv(spread.data(), counts.data(), displs.data(), MPI_INT, part.data(), count + rank, MPI_INT,
                         root, MPI_COMM_WORLD) == MPI_SUCCESS);
      CHECK(part == expected_part);

      std::vector<int> gathered(static_cast<std::size_t>(offset), -5);
      CHECK(MPI_Gatherv(expected_part.data(), count + rank, MPI_INT, gathered.data(), counts.data(), displs.data(),
                        MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
      if (rank == root) CHECK(gathered == spread);
      // In place at the root.
      std::vector<int> in_place(static_cast<std::size_t>(offset), -5);
      if (rank == root) {
        std::copy(expected_part.begin(), expected_part.end(),
                  in_place.begin() + displs[static_cast<std::size_t>(rank)]);
      }
      CHECK(MPI_Gatherv(rank == root ? MPI_IN_PLACE : expected_part.data(), count + rank, MPI_INT, in_place.data(),
                        counts.data(), displs.data(), MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
      if (rank == root) CHECK(in_place == spread);
      if (root == 0) {
        std::vector<int> everywhere(static_cast<std::size_t>(offset), -5);
        CHECK(MPI_Allgatherv(expected_part.data(), count + rank, MPI_INT, everywhere.data(), counts.data(),
                             displs.data(), MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(everywhere == spread);
        std::vector<int> inplace_all(static_cast<std::size_t>(offset), -5);
        std::copy(expected_part.begin(), expected_part.end(),
                  inplace_all.begin() + displs[static_cast<std::size_t>(rank)]);
        CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace_all.data(), counts.data(), displs.data(),
                             MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(inplace_all == spread);
      }
    }
  }
}

// Element i of the block rank s sends to rank d.
int a2a(int s, int d, int i) { return s * 100000 + d * 1000 + i; }

void alltoall() {
  for (int count : kCounts) {
    std::vector<int> out(static_cast<std::size_t>(count * size)), in(out.size(), -1), expected(out.size());
    for (int d = 0; d < size; ++d) {
      for (int i = 0; i < count; ++i) {
        out[static_cast<std::size_t>(d * count + i)] = a2a(rank, d, i);
        expected[static_cast<std::size_t>(d * count + i)] = a2a(d, rank, i);
      }
    }
    CHECK(MPI_Alltoall(out.data(), count, MPI_INT, in.data(), count, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(in == expected);
    std::vector<int> inout = out;
    CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inout.data(), count, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(inout == expected);

    // v: rank s sends count + s + d elements to d, blocks in reverse order.
    auto n_of = [&](int s, int d) { return count + s + d; };
    std::vector<int> scounts(static_cast<std::size_t>(size)), sdispls(scounts.size()), rcounts(scounts.size()),
        rdispls(scounts.size());
    int soff = 0, roff = 0;
    for (int d = size - 1; d >= 0; --d) {
      scounts[static_cast<std::size_t>(d)] = n_of(rank, d);
      sdispls[static_cast<std::size_t>(d)] = soff;
      soff += n_of(rank, d) + 1;
      rcounts[static_cast<std::size_t>(d)] = n_of(d, rank);
      rdispls[static_cast<std::size_t>(d)] = roff;
      roff += n_of(d, rank) + 2;
    }
    std::vector<int> vout(static_cast<std::size_t>(soff), -3), vin(static_cast<std::size_t>(roff), -4),
        vexpected(static_cast<std::size_t>(roff), -4);
    for (int d = 0; d < size; ++d) {
      for (int i = 0; i < n_of(rank, d); ++i) vout[static_cast<std::size_t>(sdispls[static_cast<std::size_t>(d)] + i)] = a2a(rank, d, i);
      for (int i = 0; i < n_of(d, rank); ++i) vexpected[static_cast<std::size_t>(rdispls[static_cast<std::size_t>(d)] + i)] = a2a(d, rank, i);
    }
    CHECK(MPI_Alltoallv(vout.data(), scounts.data(), sdispls.data(), MPI_INT, vin.data(), rcounts.data(),
                        rdispls.data(), MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(vin == vexpected);
  }
  // In-place alltoallv: symmetric counts.
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
  int off = 0;
  for (int r = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = 3;
    displs[static_cast<std::size_t>(r)] = off;
    off += 3;
  }
  std::vector<int> buffer(static_cast<std::size_t>(off)), expected(buffer.size());
  for (int d = 0; d < size; ++d) {
    for (int i = 0; i < 3; ++i) {
      buffer[static_cast<std::size_t>(d * 3 + i)] = a2a(rank, d, i);
      expected[static_cast<std::size_t>(d * 3 + i)] = a2a(d, rank, i);
    }
  }
  CHECK(MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, buffer.data(), counts.data(), displs.data(),
                      MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(buffer == expected);
}

template <typename T>
T contribution(int r, int i) {
  return static_cast<T>((i * 7 + r * 3) % 5 - 1 + r);
}

template <typename T>
T fold(MPI_Op op, int i) {
  T result = contribution<T>(0, i);
  for (int r = 1; r < size; ++r) {
    const T v = contribution<T>(r, i);
    if (op == MPI_SUM) result = static_cast<T>(result + v);
    if (op == MPI_PROD) result = static_cast<T>(result * v);
    if (op == MPI_MAX) result = std::max(result, v);
    if (op == MPI_MIN) result = std::min(result, v);
  }
  return result;
}

template <typename T>
void reduce_scatter(MPI_Datatype type) {
  for (int count : kCounts) {
    const int total = count * size;
    std::vector<T> mine(static_cast<std::size_t>(total));
    for (int i = 0; i < total; ++i) mine[static_cast<std::size_t>(i)] = contribution<T>(rank, i);
    for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN}) {
      std::vector<T> out(static_cast<std::size_t>(count), T(-9));
      CHECK(MPI_Reduce_scatter_block(mine.data(), out.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
      bool ok = true;
      for (int i = 0; i < count; ++i) ok = ok && out[static_cast<std::size_t>(i)] == fold<T>(op, rank * count + i);
      CHECK(ok);
      std::vector<T> inout = mine;
      CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, inout.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
      ok = true;
      for (int i = 0; i < count; ++i) ok = ok && inout[static_cast<std::size_t>(i)] == out[static_cast<std::size_t>(i)];
      CHECK(ok);
    }
  }
}

template <typename Pair>
void maxloc_minloc(MPI_Datatype type) {
  for (int count : kCounts) {
    std::vector<Pair> mine(static_cast<std::size_t>(count));
    // Values with ties between ranks; the index is the rank.
    for (int i = 0; i < count; ++i) {
      mine[static_cast<std::size_t>(i)].value = static_cast<decltype(Pair::value)>((i + rank) % 3);
      mine[static_cast<std::size_t>(i)].index = rank;
    }
    for (MPI_Op op : {MPI_MAXLOC, MPI_MINLOC}) {
      std::vector<Pair> out(static_cast<std::size_t>(count));
      CHECK(MPI_Allreduce(mine.data(), out.data(), count, type, op, MPI_COMM_WORLD) == MPI_SUCCESS);
      bool ok = true;
      for (int i = 0; i < count; ++i) {
        int best_value = (i + 0) % 3, best_index = 0;
        for (int r = 1; r < size; ++r) {
          const int v = (i + r) % 3;
          if (op == MPI_MAXLOC ? v > best_value : v < best_value) {
            best_value = v;
            best_index = r;
          }
        }
        ok = ok && out[static_cast<std::size_t>(i)].value == best_value &&
             out[static_cast<std::size_t>(i)].index == best_index;
      }
      CHECK(ok);
      for (int root = 0; root < size; ++root) {
        std::vector<Pair> at_root(static_cast<std::size_t>(count));
        CHECK(MPI_Reduce(mine.data(), at_root.data(), count, type, op, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        if (rank == root) {
          bool same = true;
          for (int i = 0; i < count; ++i) {
            same = same && at_root[static_cast<std::size_t>(i)].value == out[static_cast<std::size_t>(i)].value &&
                   at_root[static_cast<std::size_t>(i)].index == out[static_cast<std::size_t>(i)].index;
          }
          CHECK(same);
        }
      }
    }
  }
}

struct DoubleInt {
  double value;
  int index;
};
struct FloatInt {
  float value;
  int index;
};
struct LongInt {
  long value;
  int index;
};
struct IntInt {
  int value;
  int index;
};

// Affine maps x -> a x + b modulo kPrime, composed: associative, not commutative.
constexpr long long kPrime = 1000003;
void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type != MPI_2INT) return;
  auto* u = static_cast<IntInt*>(in);
  auto* v = static_cast<IntInt*>(inout);
  for (int i = 0; i < *len; ++i) {
    const long long a = static_cast<long long>(u[i].value) * v[i].value % kPrime;
    const long long b = (static_cast<long long>(u[i].value) * v[i].index + u[i].index) % kPrime;
    v[i].value = static_cast<int>(a);
    v[i].index = static_cast<int>(b);
  }
}

void plus(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<long long*>(inout)[i] += static_cast<long long*>(in)[i];
}

void user_ops() {
  MPI_Op affine = MPI_OP_NULL, sum = MPI_OP_NULL;
  CHECK(MPI_Op_create(compose, 0, &affine) == MPI_SUCCESS);
  CHECK(MPI_Op_create(plus, 1, &sum) == MPI_SUCCESS);
  auto map_of = [](int r, int i) { return IntInt{(r + 2) * (i % 5 + 1), r * 7 + i}; };
  for (int count : kCounts) {
    std::vector<IntInt> mine(static_cast<std::size_t>(count)), out(mine.size());
    std::vector<IntInt> expected(mine.size());
    for (int i = 0; i < count; ++i) {
      mine[static_cast<std::size_t>(i)] = map_of(rank, i);
      IntInt acc = map_of(0, i);
      for (int r = 1; r < size; ++r) {
        IntInt next = map_of(r, i);
        int len = 1;
        MPI_Datatype t = MPI_2INT;
        // acc = acc op next: `compose` computes inout = in op inout.
        compose(&acc, &next, &len, &t);
        acc = next;
      }
      expected[static_cast<std::size_t>(i)] = acc;
    }
    auto same = [&](const std::vector<IntInt>& got) {
      bool ok = true;
      for (int i = 0; i < count; ++i) {
        ok = ok && got[static_cast<std::size_t>(i)].value == expected[static_cast<std::size_t>(i)].value &&
             got[static_cast<std::size_t>(i)].index == expected[static_cast<std::size_t>(i)].index;
      }
      return ok;
    };
    CHECK(MPI_Allreduce(mine.data(), out.data(), count, MPI_2INT, affine, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(same(out));
    for (int root = 0; root < size; ++root) {
      std::vector<IntInt> at_root(mine.size());
      CHECK(MPI_Reduce(mine.data(), at_root.data(), count, MPI_2INT, affine, root, MPI_COMM_WORLD) == MPI_SUCCESS);
      if (rank == root) CHECK(same(at_root));
    }
    std::vector<long long> values(static_cast<std::size_t>(count)), sums(values.size());
    for (int i = 0; i < count; ++i) values[static_cast<std::size_t>(i)] = rank * 10 + i;
    CHECK(MPI_Allreduce(values.data(), sums.data(), count, MPI_LONG_LONG, sum, MPI_COMM_WORLD) == MPI_SUCCESS);
    bool ok = true;
    for (int i = 0; i < count; ++i) {
      ok = ok && sums[static_cast<std::size_t>(i)] == 10LL * size * (size - 1) / 2 + static_cast<long long>(i) * size;
    }
    CHECK(ok);
  }
  CHECK(MPI_Op_free(&affine) == MPI_SUCCESS && affine == MPI_OP_NULL);
  CHECK(MPI_Op_free(&sum) == MPI_SUCCESS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Op predefined = MPI_SUM;
  CHECK(MPI_Op_free(&predefined) == MPI_ERR_OP);
  CHECK(MPI_Op_free(&sum) == MPI_ERR_OP);  // already freed (MPI_OP_NULL)
  int x = 1, y = 0;
  CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_ERR_OP);
  CHECK(MPI_Allreduce(&x, &y, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_OP);
  CHECK(MPI_Scatter(&x, 1, MPI_INT, &y, 1, MPI_INT, size, MPI_COMM_WORLD) == MPI_ERR_ROOT);
  const int negative[4] = {-1, -1, -1, -1};
  const int zeros[4] = {0, 0, 0, 0};
  CHECK(MPI_Allgatherv(&x, 0, MPI_INT, &y, negative, zeros, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Alltoall(&x, 1, MPI_INT, &y, 1, 999, MPI_COMM_WORLD) == MPI_ERR_TYPE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The pair types must match the C structs.
  int type_size = 0;
  MPI_Type_size(MPI_DOUBLE_INT, &type_size);
  CHECK(type_size == static_cast<int>(sizeof(DoubleInt)));
  MPI_Type_size(MPI_FLOAT_INT, &type_size);
  CHECK(type_size == static_cast<int>(sizeof(FloatInt)));
  MPI_Type_size(MPI_LONG_INT, &type_size);
  CHECK(type_size == static_cast<int>(sizeof(LongInt)));
  MPI_Type_size(MPI_2INT, &type_size);
  CHECK(type_size == static_cast<int>(sizeof(IntInt)));
  scatter_gather();
  alltoall();
  reduce_scatter<int>(MPI_INT);
  reduce_scatter<double>(MPI_DOUBLE);
  reduce_scatter<long>(MPI_LONG);
  maxloc_minloc<DoubleInt>(MPI_DOUBLE_INT);
  maxloc_minloc<FloatInt>(MPI_FLOAT_INT);
  maxloc_minloc<LongInt>(MPI_LONG_INT);
  maxloc_minloc<IntInt>(MPI_2INT);
  user_ops();
  const int code = tern::mpi_test::conclude("mpi_coll_more");
  MPI_Finalize();
  return code;
}
