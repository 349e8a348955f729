// Active target communication with MPI_Win_fence: MPI_Put, MPI_Get and
// MPI_Accumulate to self and to every other rank, ring patterns, derived
// datatypes (vector, indexed, struct of one basic type, resized) on the
// origin side, the target side and both, several epochs in a row, and the
// MPI_MODE_NOPRECEDE / NOSUCCEED / NOSTORE / NOPUT assertions.
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

int right() { return (rank + 1) % size; }
int left() { return (rank - 1 + size) % size; }

int value_of(int writer, int target, int i) { return writer * 10000 + target * 100 + i; }

// A window of `count` ints per rank over user memory (MPI_Win_create) or
// memory MPI allocates (MPI_Win_allocate).
struct Window {
  std::vector<int> own;
  int* data = nullptr;
  MPI_Win win = MPI_WIN_NULL;

  Window(int count, bool allocate) {
    const MPI_Aint bytes = static_cast<MPI_Aint>(count) * static_cast<MPI_Aint>(sizeof(int));
    if (allocate) {
      MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &data, &win);
    } else {
      own.assign(static_cast<std::size_t>(count), 0);
      data = own.data();
      MPI_Win_create(data, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    for (int i = 0; i < count; ++i) data[i] = -1;
  }
  ~Window() { MPI_Win_free(&win); }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

// Every rank puts a block into its own slot at every rank (itself
// included), then gets every rank's slots back, then accumulates.
void all_to_all(bool allocate) {
  constexpr int kBlock = 5;
  Window w(kBlock * size, allocate);
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win) == MPI_SUCCESS);
  std::vector<std::vector<int>> out(static_cast<std::size_t>(size));
  for (int target = 0; target < size; ++target) {
    auto& block = out[static_cast<std::size_t>(target)];
    for (int i = 0; i < kBlock; ++i) block.push_back(value_of(rank, target, i));
    CHECK(MPI_Put(block.data(), kBlock, MPI_INT, target, rank * kBlock, kBlock, MPI_INT, w.win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
  for (int writer = 0; writer < size; ++writer) {
    for (int i = 0; i < kBlock; ++i) CHECK(w.data[writer * kBlock + i] == value_of(writer, rank, i));
  }
  // Gets of the whole window of every rank.
  std::vector<int> fetched(static_cast<std::size_t>(kBlock * size * size), 0);
  for (int target = 0; target < size; ++target) {
    CHECK(MPI_Get(&fetched[static_cast<std::size_t>(target * kBlock * size)], kBlock * size, MPI_INT, target, 0,
                  kBlock * size, MPI_INT, w.win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
  for (int target = 0; target < size; ++target) {
    for (int writer = 0; writer < size; ++writer) {
      for (int i = 0; i < kBlock; ++i) {
        CHECK(fetched[static_cast<std::size_t>((target * size + writer) * kBlock + i)] ==
              value_of(writer, target, i));
      }
    }
  }
  // Everyone adds (rank + 1) * (i + 1) to block 0 of everyone.
  std::vector<int> add(kBlock);
  for (int i = 0; i < kBlock; ++i) add[static_cast<std::size_t>(i)] = (rank + 1) * (i + 1);
  for (int target = 0; target < size; ++target) {
    CHECK(MPI_Accumulate(add.data(), kBlock, MPI_INT, target, 0, kBlock, MPI_INT, MPI_SUM, w.win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win) == MPI_SUCCESS);
  const int rank_sum = size * (size + 1) / 2;
  for (int i = 0; i < kBlock; ++i) CHECK(w.data[i] == value_of(0, rank, i) + rank_sum * (i + 1));
  for (int i = kBlock; i < kBlock * size; ++i) {
    CHECK(w.data[i] == value_of(i / kBlock, rank, i % kBlock));
  }
}

// Ring: in one epoch put to the right, get from the left (other
// locations), accumulate into the right; then many short epochs passing a
// token around the ring.
void ring() {
  Window w(8, false);
  for (int i = 0; i < 8; ++i) w.data[i] = rank * 8 + i;
  CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
  const int pair[2] = {1000 + rank, 2000 + rank};
  int got[3] = {0, 0, 0};
  const int one = rank + 1;
  CHECK(MPI_Put(pair, 2, MPI_INT, right(), 0, 2, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Get(got, 3, MPI_INT, left(), 4, 3, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Accumulate(&one, 1, MPI_INT, right(), 7, 1, MPI_INT, MPI_SUM, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
  CHECK(w.data[0] == 1000 + left() && w.data[1] == 2000 + left());
  CHECK(w.data[2] == rank * 8 + 2 && w.data[3] == rank * 8 + 3);
  CHECK(w.data[7] == rank * 8 + 7 + left() + 1);
  CHECK(got[0] == left() * 8 + 4 && got[1] == left() * 8 + 5 && got[2] == left() * 8 + 6);

  // The token starts at rank 0 with value 1 and doubles at every hop.
  w.data[0] = rank == 0 ? 1 : 0;
  CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
  int token = 1;
  for (int hop = 0; hop < 2 * size; ++hop) {
    const int holder = hop % size;
    if (rank == holder) {
      token = w.data[0] * 2;
      w.data[0] = 0;
    }
    CHECK(MPI_Win_fence(rank == holder ? 0 : MPI_MODE_NOSTORE, w.win) == MPI_SUCCESS);
    if (rank == holder) CHECK(MPI_Put(&token, 1, MPI_INT, right(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
  }
  // After 2 * size hops the token is back at rank 0, doubled each time.
  CHECK(w.data[0] == (rank == 0 ? 1 << (2 * size) : 0));
}

MPI_Datatype committed(MPI_Datatype type) {
  MPI_Type_commit(&type);
  return type;
}

// Derived types: each is described as the list of int offsets it covers,
// so the expected target contents follow from a serial placement.
struct Typed {
  MPI_Datatype type;
  int count;                 // how many of `type` the call moves
  std::vector<int> offsets;  // int offsets covered, in type-map order
};

std::vector<Typed> derived_types() {
  std::vector<Typed> types;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  // Every third int, 4 of them.
  MPI_Type_vector(4, 1, 3, MPI_INT, &t);
  types.push_back({committed(t), 1, {0, 3, 6, 9}});
  // Blocks {2 at 1}, {1 at 5}, {3 at 8}.
  const int lengths[3] = {2, 1, 3};
  const int displacements[3] = {1, 5, 8};
  MPI_Type_indexed(3, lengths, displacements, MPI_INT, &t);
  types.push_back({committed(t), 1, {1, 2, 5, 8, 9, 10}});
  // A struct of ints only: 1 at byte 8, 2 at byte 20.
  const int struct_lengths[2] = {1, 2};
  const MPI_Aint struct_displacements[2] = {8, 20};
  const MPI_Datatype struct_types[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, struct_lengths, struct_displacements, struct_types, &t);
  types.push_back({committed(t), 1, {2, 5, 6}});
  // An int resized to an extent of 3 ints, 4 of them: offsets 0, 3, 6, 9.
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t);
  types.push_back({committed(t), 4, {0, 3, 6, 9}});
  // A contiguous pair with its extent made 5 ints, 2 of them.
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_create_resized(pair, 0, 5 * sizeof(int), &t);
  MPI_Type_free(&pair);
  types.push_back({committed(t), 2, {0, 1, 5, 6}});
  return types;
}

// Put, Get and Accumulate with the derived type on the target side (the
// origin contiguous), on the origin side (the target contiguous), and on
// both, to the right neighbour and to self.
void derived(bool allocate) {
  constexpr int kWindow = 16;
  Window w(kWindow, allocate);
  for (Typed& typed : derived_types()) {
    const int n = static_cast<int>(typed.offsets.size());
    for (const int target : {right(), rank}) {
      const int writer = target == rank ? rank : left();
      // Target side: n contiguous ints land at the type's offsets.
      std::vector<int> contiguous(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) contiguous[static_cast<std::size_t>(i)] = value_of(rank, 1, i);
      for (int i = 0; i < kWindow; ++i) w.data[i] = -1;
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      CHECK(MPI_Put(contiguous.data(), n, MPI_INT, target, 0, typed.count, typed.type, w.win) == MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      std::vector<int> expected(kWindow, -1);
      for (int i = 0; i < n; ++i) expected[static_cast<std::size_t>(typed.offsets[static_cast<std::size_t>(i)])] =
          value_of(writer, 1, i);
      CHECK(std::vector<int>(w.data, w.data + kWindow) == expected);
      // Loads of the window and updates of it are in separate epochs.
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);

      // Accumulate through the same target type adds, element by element.
      CHECK(MPI_Accumulate(contiguous.data(), n, MPI_INT, target, 0, typed.count, typed.type, MPI_SUM, w.win) ==
            MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      for (int i = 0; i < n; ++i) expected[static_cast<std::size_t>(typed.offsets[static_cast<std::size_t>(i)])] *= 2;
      CHECK(std::vector<int>(w.data, w.data + kWindow) == expected);

      // Get through the target type back into contiguous memory.
      std::vector<int> fetched(static_cast<std::size_t>(n), 0);
      CHECK(MPI_Get(fetched.data(), n, MPI_INT, target, 0, typed.count, typed.type, w.win) == MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      // This rank wrote the target's window (itself or its right neighbour).
      for (int i = 0; i < n; ++i) CHECK(fetched[static_cast<std::size_t>(i)] == 2 * value_of(rank, 1, i));

      // Origin side: the type picks from a sparse origin array into
      // contiguous target memory; Get scatters it back the same way.
      std::vector<int> sparse(kWindow);
      for (int i = 0; i < kWindow; ++i) sparse[static_cast<std::size_t>(i)] = value_of(rank, 2, i);
      for (int i = 0; i < kWindow; ++i) w.data[i] = -1;
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      CHECK(MPI_Put(sparse.data(), typed.count, typed.type, target, 2, n, MPI_INT, w.win) == MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      for (int i = 0; i < kWindow; ++i) {
        const int k = i - 2;
        CHECK(w.data[i] == (k >= 0 && k < n ? value_of(writer, 2, typed.offsets[static_cast<std::size_t>(k)]) : -1));
      }
      std::vector<int> scattered(kWindow, -7);
      CHECK(MPI_Get(scattered.data(), typed.count, typed.type, target, 2, n, MPI_INT, w.win) == MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      std::vector<int> expected_scatter(kWindow, -7);
      for (int k = 0; k < n; ++k) {
        const int offset = typed.offsets[static_cast<std::size_t>(k)];
        expected_scatter[static_cast<std::size_t>(offset)] = value_of(rank, 2, offset);
      }
      CHECK(scattered == expected_scatter);

      // Both sides: the same type on origin and target copies the covered
      // ints to the same offsets and leaves the others alone.
      for (int i = 0; i < kWindow; ++i) w.data[i] = -1;
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      CHECK(MPI_Put(sparse.data(), typed.count, typed.type, target, 0, typed.count, typed.type, w.win) ==
            MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      for (int i = 0; i < kWindow; ++i) {
        bool covered = false;
        for (const int offset : typed.offsets) covered = covered || offset == i;
        CHECK(w.data[i] == (covered ? value_of(writer, 2, i) : -1));
      }
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      CHECK(MPI_Accumulate(sparse.data(), typed.count, typed.type, target, 0, typed.count, typed.type, MPI_SUM,
                           w.win) == MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      for (const int offset : typed.offsets) CHECK(w.data[offset] == 2 * value_of(writer, 2, offset));
      std::vector<int> back(kWindow, -9);
      CHECK(MPI_Get(back.data(), typed.count, typed.type, target, 0, typed.count, typed.type, w.win) == MPI_SUCCESS);
      CHECK(MPI_Win_fence(0, w.win) == MPI_SUCCESS);
      for (int i = 0; i < kWindow; ++i) {
        bool covered = false;
        for (const int offset : typed.offsets) covered = covered || offset == i;
        CHECK(back[static_cast<std::size_t>(i)] == (covered ? 2 * value_of(rank, 2, i) : -9));
      }
    }
    MPI_Type_free(&typed.type);
  }
}

// A vector type on the origin and an indexed type on the target that cover
// the same number of ints, between different ranks' windows of doubles.
void mixed_types() {
  constexpr int kWindow = 12;
  double* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(kWindow * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
        MPI_SUCCESS);
  for (int i = 0; i < kWindow; ++i) base[i] = 0.0;
  MPI_Datatype every_other = MPI_DATATYPE_NULL, picked = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  const int lengths[2] = {1, 2};
  const int displacements[2] = {10, 3};  // type map order: 10, then 3 and 4
  MPI_Type_indexed(2, lengths, displacements, MPI_DOUBLE, &picked);
  MPI_Type_commit(&picked);
  const double origin[5] = {rank + 0.5, -1.0, rank + 1.5, -1.0, rank + 2.5};
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
  CHECK(MPI_Put(origin, 1, every_other, right(), 0, 1, picked, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(base[10] == left() + 0.5 && base[3] == left() + 1.5 && base[4] == left() + 2.5);
  CHECK(base[0] == 0.0 && base[5] == 0.0 && base[11] == 0.0);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(MPI_Accumulate(origin, 1, every_other, right(), 0, 1, picked, MPI_SUM, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
  CHECK(base[10] == 2 * (left() + 0.5) && base[3] == 2 * (left() + 1.5) && base[4] == 2 * (left() + 2.5));
  MPI_Type_free(&every_other);
  MPI_Type_free(&picked);
  MPI_Win_free(&win);
}

// Assertions: NOPRECEDE on the first fence, NOSUCCEED on the last, NOPUT
// where no put or accumulate reaches this rank's window in the epoch the
// fence opens, NOSTORE where there were no local stores since the last one.
void assertions() {
  Window w(4, true);
  w.data[0] = rank;
  // Only gets follow the first fence: nothing updates the window.
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, w.win) == MPI_SUCCESS);
  int got = -1;
  CHECK(MPI_Get(&got, 1, MPI_INT, left(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, w.win) == MPI_SUCCESS);
  CHECK(got == left());
  const int value = 50 + rank;
  CHECK(MPI_Put(&value, 1, MPI_INT, right(), 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, w.win) == MPI_SUCCESS);
  CHECK(w.data[1] == 50 + left() && w.data[0] == rank);
  // A window with no epoch open at all and a fence pair with nothing in it.
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, w.win) == MPI_SUCCESS);
  CHECK(w.data[1] == 50 + left());
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  all_to_all(false);
  all_to_all(true);
  ring();
  derived(false);
  derived(true);
  mixed_types();
  assertions();
  const int code = tern::mpi_test::conclude("mpi_win_fence");
  MPI_Finalize();
  return code;
}
