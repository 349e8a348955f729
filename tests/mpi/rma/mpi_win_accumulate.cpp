// Accumulate operations: every predefined operation on the types the
// standard allows it for (int, long long, signed and unsigned char, float,
// double; MAXLOC/MINLOC on MPI_2INT and MPI_DOUBLE_INT), from every rank to
// every rank at once; MPI_REPLACE and MPI_NO_OP; the atomicity of
// concurrent accumulates to one location; MPI_Get_accumulate,
// MPI_Fetch_and_op (a shared counter: every fetched value distinct) and
// MPI_Compare_and_swap (one winner; a lock built from it).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

enum Kind { kInteger, kFloating };

struct Op {
  MPI_Op op;
  bool integer_only;
};

const Op kOps[] = {{MPI_SUM, false},  {MPI_PROD, false}, {MPI_MAX, false}, {MPI_MIN, false},
                   {MPI_LAND, true},  {MPI_LOR, true},   {MPI_LXOR, true}, {MPI_BAND, true},
                   {MPI_BOR, true},   {MPI_BXOR, true},  {MPI_REPLACE, false}};
constexpr int kOpCount = sizeof(kOps) / sizeof(kOps[0]);
constexpr int kElements = 2;  // elements per operation and call

// What rank r contributes to element e under operation index k: small
// values so that products and sums stay exact in every type.
template <typename T>
T contribution(int k, int r, int e) {
  const MPI_Op op = kOps[k].op;
  if (op == MPI_PROD) return static_cast<T>((r + e) % 3 == 0 ? 2 : 1);
  if (op == MPI_LAND) return static_cast<T>((r + e) % 4 == 3 ? 0 : 1);
  if (op == MPI_LOR) return static_cast<T>(r == 1 && e == 0 ? 1 : 0);
  if (op == MPI_LXOR) return static_cast<T>((r + e) % 2);
  if (op == MPI_BAND) return static_cast<T>(0x7f & ~(1 << ((r + e) % 7)));
  if (op == MPI_BOR || op == MPI_BXOR) return static_cast<T>(1 << ((r * 3 + e) % 7));
  if (op == MPI_MAX || op == MPI_MIN) return static_cast<T>(((r * 5 + e * 3) % 11) - 5 + (e == 1 ? 70 : 0));
  return static_cast<T>(r + 1 + e * 2);
}

template <typename T>
T initial(int k, int e) {
  const MPI_Op op = kOps[k].op;
  if (op == MPI_PROD || op == MPI_LAND) return static_cast<T>(1);
  if (op == MPI_BAND) return static_cast<T>(0x7f);
  if (op == MPI_LOR || op == MPI_LXOR || op == MPI_BOR || op == MPI_BXOR) return static_cast<T>(0);
  return static_cast<T>(3 + e);
}

// The serial result of combining the initial value with every rank's
// contribution; for logical operations only truth matters.
template <typename T>
T expected(int k, int e) {
  const MPI_Op op = kOps[k].op;
  T value = initial<T>(k, e);
  for (int r = 0; r < size; ++r) {
    const T c = contribution<T>(k, r, e);
    if (op == MPI_SUM) value = static_cast<T>(value + c);
    if (op == MPI_PROD) value = static_cast<T>(value * c);
    if (op == MPI_MAX) value = std::max(value, c);
    if (op == MPI_MIN) value = std::min(value, c);
    if (op == MPI_LAND) value = static_cast<T>(value != 0 && c != 0);
    if (op == MPI_LOR) value = static_cast<T>(value != 0 || c != 0);
    if (op == MPI_LXOR) value = static_cast<T>((value != 0) != (c != 0));
    if constexpr (std::is_integral_v<T>) {
      if (op == MPI_BAND) value = static_cast<T>(value & c);
      if (op == MPI_BOR) value = static_cast<T>(value | c);
      if (op == MPI_BXOR) value = static_cast<T>(value ^ c);
    }
  }
  return value;
}

bool is_logical(MPI_Op op) { return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR; }

// Every rank accumulates into every rank, each operation into its own
// slots, in one fence epoch; MPI_REPLACE leaves one of the contributions;
// a Get_accumulate with MPI_NO_OP then reads everything unchanged.
template <typename T>
void all_ops(MPI_Datatype type, Kind kind, const char* name) {
  constexpr int kSlots = kOpCount * kElements;
  T* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(kSlots * sizeof(T), sizeof(T), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
  for (int k = 0; k < kOpCount; ++k) {
    for (int e = 0; e < kElements; ++e) base[k * kElements + e] = initial<T>(k, e);
  }
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
  std::vector<T> origin(kSlots);
  for (int k = 0; k < kOpCount; ++k) {
    for (int e = 0; e < kElements; ++e) origin[static_cast<std::size_t>(k * kElements + e)] = contribution<T>(k, rank, e);
  }
  for (int step = 0; step < size; ++step) {
    const int target = (rank + step) % size;  // spread the order over the targets
    for (int k = 0; k < kOpCount; ++k) {
      if (kOps[k].integer_only && kind == kFloating) continue;
      CHECK(MPI_Accumulate(&origin[static_cast<std::size_t>(k * kElements)], kElements, type, target, k * kElements,
                           kElements, type, kOps[k].op, win) == MPI_SUCCESS);
    }
  }
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  int failures_before = tern::mpi_test::failures;
  for (int k = 0; k < kOpCount; ++k) {
    if (kOps[k].integer_only && kind == kFloating) continue;
    for (int e = 0; e < kElements; ++e) {
      const T got = base[k * kElements + e];
      if (kOps[k].op == MPI_REPLACE) {
        bool one_of = false;
        for (int r = 0; r < size; ++r) one_of = one_of || got == contribution<T>(k, r, e);
        CHECK(one_of);
      } else if (is_logical(kOps[k].op)) {
        CHECK((got != 0) == (expected<T>(k, e) != 0));
      } else {
        CHECK(got == expected<T>(k, e));
        if (got != expected<T>(k, e)) {
          std::fprintf(stderr, "rank %d: operation %d element %d: %g, not %g\n", rank, k, e, static_cast<double>(got),
                       static_cast<double>(expected<T>(k, e)));
        }
      }
    }
  }
  if (tern::mpi_test::failures != failures_before) std::fprintf(stderr, "rank %d: type %s\n", rank, name);
  // MPI_NO_OP reads atomically and changes nothing.
  std::vector<T> read(kSlots, static_cast<T>(0)), ignored(kSlots, static_cast<T>(1));
  std::vector<T> snapshot(base, base + kSlots);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(MPI_Get_accumulate(ignored.data(), kSlots, type, read.data(), kSlots, type, (rank + 1) % size, 0, kSlots, type,
                           MPI_NO_OP, win) == MPI_SUCCESS);
  // The origin arguments of MPI_NO_OP are ignored: a count of 0 is fine.
  T single = static_cast<T>(0);
  CHECK(MPI_Get_accumulate(nullptr, 0, type, &single, 1, type, rank, 0, 1, type, MPI_NO_OP, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
  CHECK(std::vector<T>(base, base + kSlots) == snapshot);
  CHECK(single == snapshot[0]);
  // The right neighbour's slots hold the same results as these.
  for (int k = 0; k < kOpCount; ++k) {
    if (kOps[k].integer_only && kind == kFloating) continue;
    if (kOps[k].op == MPI_REPLACE) continue;
    for (int e = 0; e < kElements; ++e) {
      CHECK(read[static_cast<std::size_t>(k * kElements + e)] == snapshot[static_cast<std::size_t>(k * kElements + e)]);
    }
  }
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

// MAXLOC and MINLOC on value-index pairs; equal values keep the smaller
// index.
template <typename Pair, typename V>
void loc_ops(MPI_Datatype type) {
  Pair* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(2 * sizeof(Pair), sizeof(Pair), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
  base[0] = Pair{static_cast<V>(-100), 99};
  base[1] = Pair{static_cast<V>(100), 99};
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  // Values rank / 2: pairs of ranks tie.
  const Pair mine{static_cast<V>(rank / 2), rank};
  for (int target = 0; target < size; ++target) {
    CHECK(MPI_Accumulate(&mine, 1, type, target, 0, 1, type, MPI_MAXLOC, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&mine, 1, type, target, 1, 1, type, MPI_MINLOC, win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  const int top = (size - 1) / 2;
  CHECK(base[0].value == static_cast<V>(top) && base[0].index == 2 * top);
  CHECK(base[1].value == static_cast<V>(0) && base[1].index == 0);
  // Fetch the MAXLOC pair of the left neighbour while raising it.
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  const Pair high{static_cast<V>(1000), rank};
  Pair before{static_cast<V>(0), -1};
  CHECK(MPI_Get_accumulate(&high, 1, type, &before, 1, type, (rank + 1) % size, 0, 1, type, MPI_MAXLOC, win) ==
        MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(before.value == static_cast<V>(top) && before.index == 2 * top);
  CHECK(base[0].value == static_cast<V>(1000) && base[0].index == (rank - 1 + size) % size);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

struct IntInt {
  int value;
  int index;
};
struct DoubleInt {
  double value;
  int index;
};

// Many accumulates from all ranks into the same elements, under shared
// locks and under lock_all: no update may be lost.
void atomicity() {
  constexpr int kIterations = 200;
  constexpr int kCount = 4;
  long long* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(2 * kCount * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                         &win) == MPI_SUCCESS);
  for (int i = 0; i < 2 * kCount; ++i) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const long long add[kCount] = {1, 2, 3, 1LL << 33};
  for (int it = 0; it < kIterations; ++it) {
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(add, kCount, MPI_LONG_LONG, 0, 0, kCount, MPI_LONG_LONG, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  for (int it = 0; it < kIterations; ++it) {
    CHECK(MPI_Accumulate(add, kCount, MPI_LONG_LONG, 0, kCount, kCount, MPI_LONG_LONG, MPI_SUM, win) == MPI_SUCCESS);
    if (it % 16 == 0) CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS);
    for (int half = 0; half < 2; ++half) {
      for (int i = 0; i < kCount; ++i) CHECK(base[half * kCount + i] == add[i] * kIterations * size);
    }
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

  // Doubles holding integers add exactly too.
  double* doubles = nullptr;
  CHECK(MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &doubles, &win) ==
        MPI_SUCCESS);
  *doubles = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double half = 0.5;
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  for (int it = 0; it < kIterations; ++it) {
    CHECK(MPI_Accumulate(&half, 1, MPI_DOUBLE, size - 1, 0, 1, MPI_DOUBLE, MPI_SUM, win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  double total = -1.0;
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, size - 1, 0, win) == MPI_SUCCESS);
  CHECK(MPI_Get(&total, 1, MPI_DOUBLE, size - 1, 0, 1, MPI_DOUBLE, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(size - 1, win) == MPI_SUCCESS);
  CHECK(total == 0.5 * kIterations * size);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

// A counter at rank 0 taken N times by every rank, with MPI_Fetch_and_op
// (long long) and with MPI_Get_accumulate (int): the values fetched over
// the job are exactly 0 .. N * size - 1.
void shared_counter() {
  constexpr int kTakes = 50;
  long long* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
        MPI_SUCCESS);
  base[0] = 0;
  base[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<long long> taken;
  std::vector<int> taken_int;
  const long long one = 1;
  const int one_int = 1;
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  for (int i = 0; i < kTakes; ++i) {
    long long old = -1;
    CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 0, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    taken.push_back(old);
    int old_int = -1;
    // The second long long of rank 0's window, used as an int.
    CHECK(MPI_Get_accumulate(&one_int, 1, MPI_INT, &old_int, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_flush_local(0, win) == MPI_SUCCESS);
    taken_int.push_back(old_int);
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  std::vector<long long> all(static_cast<std::size_t>(kTakes * size));
  std::vector<int> all_int(static_cast<std::size_t>(kTakes * size));
  MPI_Allgather(taken.data(), kTakes, MPI_LONG_LONG, all.data(), kTakes, MPI_LONG_LONG, MPI_COMM_WORLD);
  MPI_Allgather(taken_int.data(), kTakes, MPI_INT, all_int.data(), kTakes, MPI_INT, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  std::sort(all_int.begin(), all_int.end());
  for (int i = 0; i < kTakes * size; ++i) {
    CHECK(all[static_cast<std::size_t>(i)] == i);
    CHECK(all_int[static_cast<std::size_t>(i)] == i);
  }
  // Each rank's own values rise.
  CHECK(std::is_sorted(taken.begin(), taken.end()));

  // MPI_REPLACE swaps, MPI_NO_OP reads: a chain of swaps at rank 0.
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS);
  long long now = -1;
  const long long ignored = 77;
  CHECK(MPI_Fetch_and_op(&ignored, &now, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win) == MPI_SUCCESS);
  CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
  const long long mark = 1000 + rank;
  long long swapped = -1;
  CHECK(MPI_Fetch_and_op(&mark, &swapped, MPI_LONG_LONG, 0, 0, MPI_REPLACE, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  CHECK(swapped == now);
  CHECK(now == kTakes * size || (now >= 1000 && now < 1000 + size && now != mark));
  // The values swapped out, with the last one left, are the start and every mark once.
  std::vector<long long> outs(static_cast<std::size_t>(size));
  MPI_Allgather(&swapped, 1, MPI_LONG_LONG, outs.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  long long last = -1;
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
  CHECK(MPI_Get(&last, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  outs.push_back(last);
  std::sort(outs.begin(), outs.end());
  for (int r = 0; r < size; ++r) CHECK(outs[static_cast<std::size_t>(r)] == (r == 0 ? kTakes * size : 1000 + r - 1));
  CHECK(outs.back() == 1000 + size - 1);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

// Compare-and-swap: each rank tries once to put its rank + 1 into an empty
// slot at every rank: exactly one winner per slot. Then a spin lock built
// from it guards a read-modify-write of a counter made of Get and Put.
void compare_and_swap() {
  int* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
  base[0] = 0;  // slot
  base[1] = 0;  // lock word
  base[2] = 0;  // counter
  MPI_Barrier(MPI_COMM_WORLD);
  const int zero = 0;
  const int me = rank + 1;
  std::vector<int> won(static_cast<std::size_t>(size), 0);
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  for (int step = 0; step < size; ++step) {
    const int target = (rank + step) % size;
    int result = -1;
    CHECK(MPI_Compare_and_swap(&me, &zero, &result, MPI_INT, target, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(target, win) == MPI_SUCCESS);
    CHECK(result >= 0 && result <= size && result != me);
    won[static_cast<std::size_t>(target)] = result == 0 ? 1 : 0;
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  std::vector<int> winners(static_cast<std::size_t>(size), 0);
  MPI_Allreduce(won.data(), winners.data(), size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int target = 0; target < size; ++target) CHECK(winners[static_cast<std::size_t>(target)] == 1);
  // Each slot holds its winner's mark.
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS);
  const int slot = base[0];
  CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
  std::vector<int> slot_winner(static_cast<std::size_t>(size), 0);
  for (int r = 0; r < size; ++r) slot_winner[static_cast<std::size_t>(r)] = won[static_cast<std::size_t>(r)] ? me : 0;
  std::vector<int> marks(static_cast<std::size_t>(size), 0);
  MPI_Allreduce(slot_winner.data(), marks.data(), size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(slot == marks[static_cast<std::size_t>(rank)]);

  // The lock at rank size - 1: acquire by CAS 0 -> me, release by CAS me -> 0.
  constexpr int kRounds = 20;
  const int home = size - 1;
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  for (int round = 0; round < kRounds; ++round) {
    int seen = -1;
    do {
      CHECK(MPI_Compare_and_swap(&me, &zero, &seen, MPI_INT, home, 1, win) == MPI_SUCCESS);
      CHECK(MPI_Win_flush(home, win) == MPI_SUCCESS);
    } while (seen != 0);
    int counter = -1;
    CHECK(MPI_Get(&counter, 1, MPI_INT, home, 2, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(home, win) == MPI_SUCCESS);
    const int next = counter + 1;
    CHECK(MPI_Put(&next, 1, MPI_INT, home, 2, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(home, win) == MPI_SUCCESS);
    int held = -1;
    CHECK(MPI_Compare_and_swap(&zero, &me, &held, MPI_INT, home, 1, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(home, win) == MPI_SUCCESS);
    CHECK(held == me);
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  int final_count = -1;
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, home, 0, win) == MPI_SUCCESS);
  CHECK(MPI_Get(&final_count, 1, MPI_INT, home, 2, 1, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(home, win) == MPI_SUCCESS);
  CHECK(final_count == kRounds * size);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

  // Compare-and-swap on long long and on unsigned char, to self.
  long long* wide = nullptr;
  CHECK(MPI_Win_allocate(sizeof(long long) + 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wide, &win) == MPI_SUCCESS);
  wide[0] = 1LL << 40;
  reinterpret_cast<unsigned char*>(wide)[8] = 200;
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS);
  const long long expect_wide = 1LL << 40, new_wide = -7;
  long long old_wide = 0;
  CHECK(MPI_Compare_and_swap(&new_wide, &expect_wide, &old_wide, MPI_LONG_LONG, rank, 0, win) == MPI_SUCCESS);
  const unsigned char expect_byte = 100, new_byte = 1;  // does not match: no swap
  unsigned char old_byte = 0;
  CHECK(MPI_Compare_and_swap(&new_byte, &expect_byte, &old_byte, MPI_UNSIGNED_CHAR, rank, 8, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
  CHECK(old_wide == 1LL << 40 && wide[0] == -7);
  CHECK(old_byte == 200 && reinterpret_cast<unsigned char*>(wide)[8] == 200);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  all_ops<int>(MPI_INT, kInteger, "int");
  all_ops<long long>(MPI_LONG_LONG, kInteger, "long long");
  all_ops<signed char>(MPI_SIGNED_CHAR, kInteger, "signed char");
  all_ops<unsigned char>(MPI_UNSIGNED_CHAR, kInteger, "unsigned char");
  all_ops<double>(MPI_DOUBLE, kFloating, "double");
  all_ops<float>(MPI_FLOAT, kFloating, "float");
  loc_ops<IntInt, int>(MPI_2INT);
  loc_ops<DoubleInt, double>(MPI_DOUBLE_INT);
  atomicity();
  shared_counter();
  compare_and_swap();
  const int code = tern::mpi_test::conclude("mpi_win_accumulate");
  MPI_Finalize();
  return code;
}
