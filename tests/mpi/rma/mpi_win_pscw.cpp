// General active target synchronization: MPI_Win_post / MPI_Win_start /
// MPI_Win_complete / MPI_Win_wait and MPI_Win_test, with the neighbours of
// a ring as groups, a subset of origins and one target that only exposes
// and waits, several epochs back to back, gets and accumulates, and the
// MPI_MODE_NOCHECK assertion.
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;
MPI_Group world_group = MPI_GROUP_NULL;

int right() { return (rank + 1) % size; }
int left() { return (rank - 1 + size) % size; }

// The group of the given world ranks, each once.
MPI_Group group_of(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
  return group;
}

struct Window {
  std::vector<int> memory;
  MPI_Win win = MPI_WIN_NULL;
  explicit Window(int count) : memory(static_cast<std::size_t>(count), -1) {
    MPI_Win_create(memory.data(), count * static_cast<MPI_Aint>(sizeof(int)), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
  }
  ~Window() { MPI_Win_free(&win); }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

// Each rank exposes its window to both neighbours and accesses both:
// slot 0 gets the left neighbour's rank, slot 1 the right one's, and each
// rank reads slot 2 of both neighbours. Several epochs in a row.
void ring_neighbours() {
  Window w(4);
  MPI_Group neighbours = group_of({left(), right()});
  for (int epoch = 0; epoch < 5; ++epoch) {
    w.memory[2] = rank * 10 + epoch;
    CHECK(MPI_Win_post(neighbours, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_start(neighbours, 0, w.win) == MPI_SUCCESS);
    const int to_right = 1000 * epoch + rank;
    const int to_left = 2000 * epoch + rank;
    int from_left = -1, from_right = -1;
    CHECK(MPI_Put(&to_right, 1, MPI_INT, right(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Put(&to_left, 1, MPI_INT, left(), 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Get(&from_left, 1, MPI_INT, left(), 2, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Get(&from_right, 1, MPI_INT, right(), 2, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_complete(w.win) == MPI_SUCCESS);
    CHECK(from_left == left() * 10 + epoch && from_right == right() * 10 + epoch);
    CHECK(MPI_Win_wait(w.win) == MPI_SUCCESS);
    CHECK(w.memory[0] == 1000 * epoch + left());
    CHECK(w.memory[1] == 2000 * epoch + right());
    CHECK(w.memory[2] == rank * 10 + epoch);
  }
  MPI_Group_free(&neighbours);
}

// Rank 0 is a target only: it exposes to every other rank and waits (or
// tests); the others accumulate into it and put into their own slot.
void target_only(bool use_test) {
  if (size < 2) return;
  Window w(size + 1);
  w.memory[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<int> others;
    for (int r = 1; r < size; ++r) others.push_back(r);
    MPI_Group origins = group_of(others);
    CHECK(MPI_Win_post(origins, 0, w.win) == MPI_SUCCESS);
    if (use_test) {
      int flag = 0;
      int polls = 0;
      while (!flag) {
        CHECK(MPI_Win_test(w.win, &flag) == MPI_SUCCESS);
        ++polls;
        if (!flag) usleep(100);
      }
      CHECK(polls >= 1);
    } else {
      CHECK(MPI_Win_wait(w.win) == MPI_SUCCESS);
    }
    CHECK(w.memory[0] == (size - 1) * size / 2 * 3);
    for (int r = 1; r < size; ++r) CHECK(w.memory[static_cast<std::size_t>(r)] == r * r);
    CHECK(w.memory[static_cast<std::size_t>(size)] == -1);
    MPI_Group_free(&origins);
  } else {
    MPI_Group target = group_of({0});
    const int three_times = 3 * rank;
    const int square = rank * rank;
    CHECK(MPI_Win_start(target, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&three_times, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w.win) == MPI_SUCCESS);
    CHECK(MPI_Put(&square, 1, MPI_INT, 0, rank, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_complete(w.win) == MPI_SUCCESS);
    MPI_Group_free(&target);
  }
}

// A subset: the odd ranks expose, the even ranks access them; an even rank
// puts into odd rank t's slot (even rank / 2). Odd ranks that nobody
// accesses (none at these sizes) would still post and wait on an empty
// group of origins.
void subset() {
  if (size < 2) return;
  std::vector<int> odd, even;
  for (int r = 0; r < size; ++r) (r % 2 ? odd : even).push_back(r);
  Window w(static_cast<int>(even.size()));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank % 2) {
    MPI_Group origins = group_of(even);
    CHECK(MPI_Win_post(origins, MPI_MODE_NOSTORE, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_wait(w.win) == MPI_SUCCESS);
    for (std::size_t i = 0; i < even.size(); ++i) CHECK(w.memory[i] == even[i] * 100 + rank);
    MPI_Group_free(&origins);
  } else {
    MPI_Group targets = group_of(odd);
    CHECK(MPI_Win_start(targets, 0, w.win) == MPI_SUCCESS);
    std::vector<int> values;
    for (const int t : odd) values.push_back(rank * 100 + t);
    for (std::size_t i = 0; i < odd.size(); ++i) {
      CHECK(MPI_Put(&values[i], 1, MPI_INT, odd[i], rank / 2, 1, MPI_INT, w.win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_complete(w.win) == MPI_SUCCESS);
    MPI_Group_free(&targets);
  }
}

// An access epoch to a group and an exposure epoch to another group at
// once on the same window: each rank accesses the right neighbour only and
// is exposed to the left one only; gets read what the target had stored
// before posting.
void one_way_ring() {
  Window w(3);
  MPI_Group from = group_of({left()});
  MPI_Group to = group_of({right()});
  for (int epoch = 0; epoch < 3; ++epoch) {
    w.memory[1] = rank + 100 * epoch;
    CHECK(MPI_Win_post(from, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_start(to, 0, w.win) == MPI_SUCCESS);
    const int value = rank + 10 * epoch;
    int got = -1;
    CHECK(MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Get(&got, 1, MPI_INT, right(), 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_complete(w.win) == MPI_SUCCESS);
    CHECK(got == right() + 100 * epoch);
    int flag = 0;
    while (!flag) CHECK(MPI_Win_test(w.win, &flag) == MPI_SUCCESS);
    CHECK(w.memory[0] == left() + 10 * epoch);
  }
  MPI_Group_free(&from);
  MPI_Group_free(&to);
}

// MPI_MODE_NOCHECK: the posts are known to have happened (a barrier after
// them) before the starts, and both sides say so.
void nocheck() {
  Window w(2);
  MPI_Group neighbours = group_of({left(), right()});
  CHECK(MPI_Win_post(neighbours, MPI_MODE_NOCHECK, w.win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_start(neighbours, MPI_MODE_NOCHECK, w.win) == MPI_SUCCESS);
  const int value = 500 + rank;
  CHECK(MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Accumulate(&value, 1, MPI_INT, left(), 1, 1, MPI_INT, MPI_REPLACE, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_complete(w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_wait(w.win) == MPI_SUCCESS);
  if (size > 1) {
    CHECK(w.memory[0] == 500 + left() && w.memory[1] == 500 + right());
  } else {
    CHECK(w.memory[0] == 500 && w.memory[1] == 500);
  }
  MPI_Group_free(&neighbours);
}

// Fence epochs and post-start-complete-wait epochs alternate on one window.
void mixed_with_fence() {
  Window w(2);
  MPI_Group neighbours = group_of({left(), right()});
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win) == MPI_SUCCESS);
  const int first = 7 + rank;
  CHECK(MPI_Put(&first, 1, MPI_INT, right(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win) == MPI_SUCCESS);
  CHECK(w.memory[0] == 7 + left());
  CHECK(MPI_Win_post(neighbours, 0, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_start(neighbours, 0, w.win) == MPI_SUCCESS);
  const int second = 70 + rank;
  CHECK(MPI_Put(&second, 1, MPI_INT, left(), 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_complete(w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_wait(w.win) == MPI_SUCCESS);
  CHECK(w.memory[0] == 7 + left() && w.memory[1] == 70 + right());
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win) == MPI_SUCCESS);
  int got = -1;
  CHECK(MPI_Get(&got, 1, MPI_INT, left(), 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win) == MPI_SUCCESS);
  CHECK(got == 70 + rank);
  MPI_Group_free(&neighbours);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  ring_neighbours();
  target_only(false);
  target_only(true);
  subset();
  one_way_ring();
  nocheck();
  mixed_with_fence();
  MPI_Group_free(&world_group);
  const int code = tern::mpi_test::conclude("mpi_win_pscw");
  MPI_Finalize();
  return code;
}
