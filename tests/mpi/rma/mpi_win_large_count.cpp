// MPI 4.0's large-count (_c) one-sided calls: the window constructors with
// an MPI_Aint displacement unit (and MPI_Win_shared_query_c), each transfer
// form against what its int form leaves, their count and displacement-unit
// errors, and (at 2 ranks) an MPI_Put_c of 2^31 + 8 bytes into a window
// that maps it (MPI_Win_allocate_c) and into one its target serves
// (MPI_Win_create_c), checked at several offsets.
#include <sys/mman.h>

#include <climits>
#include <cstdint>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;
constexpr int kCount = 8;

void check_that(bool ok, const char* what, int line) { tern::mpi_test::check(ok, what, line); }

int right() { return (rank + 1) % size; }
int left() { return (rank - 1 + size) % size; }

std::vector<int> pattern(int seed) {
  std::vector<int> data(kCount);
  for (int i = 0; i < kCount; ++i) data[static_cast<std::size_t>(i)] = seed * 100 + i + 1;
  return data;
}

// A window of 4 * kCount ints, made by MPI_Win_create_c (`allocate` false,
// served by its target) or MPI_Win_allocate_c, with a displacement unit of
// one int.
struct Window {
  std::vector<int> user;
  int* memory = nullptr;
  MPI_Win win = MPI_WIN_NULL;

  explicit Window(bool allocate) {
    const MPI_Aint bytes = 4 * kCount * static_cast<MPI_Aint>(sizeof(int));
    if (allocate) {
      CHECK(MPI_Win_allocate_c(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win) == MPI_SUCCESS);
    } else {
      user.assign(4 * kCount, 0);
      memory = user.data();
      CHECK(MPI_Win_create_c(memory, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    }
    for (int i = 0; i < 4 * kCount; ++i) memory[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~Window() { MPI_Win_free(&win); }
  [[nodiscard]] std::vector<int> block(int index) const {
    return {memory + index * kCount, memory + (index + 1) * kCount};
  }
};

// Each transfer into the right neighbour (block 0: put, 1: accumulate, 2:
// get-accumulate's target), then the request-based forms under lock_all.
void transfers(bool allocate) {
  Window w(allocate);
  const std::vector<int> mine = pattern(rank), theirs = pattern(left());
  MPI_Win_fence(0, w.win);
  CHECK(MPI_Put_c(mine.data(), kCount, MPI_INT, right(), 0, kCount, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Accumulate_c(mine.data(), kCount, MPI_INT, right(), kCount, kCount, MPI_INT, MPI_SUM, w.win) ==
        MPI_SUCCESS);
  std::vector<int> previous(kCount, -1);
  CHECK(MPI_Get_accumulate_c(mine.data(), kCount, MPI_INT, previous.data(), kCount, MPI_INT, right(), 2 * kCount,
                             kCount, MPI_INT, MPI_SUM, w.win) == MPI_SUCCESS);
  MPI_Win_fence(0, w.win);
  check_that(w.block(0) == theirs, "MPI_Put_c", __LINE__);
  check_that(w.block(1) == theirs, "MPI_Accumulate_c", __LINE__);
  check_that(w.block(2) == theirs && previous == std::vector<int>(kCount, 0), "MPI_Get_accumulate_c", __LINE__);
  std::vector<int> got(kCount, -1);
  CHECK(MPI_Get_c(got.data(), kCount, MPI_INT, right(), 0, kCount, MPI_INT, w.win) == MPI_SUCCESS);
  MPI_Win_fence(0, w.win);
  check_that(got == mine, "MPI_Get_c", __LINE__);

  MPI_Win_lock_all(0, w.win);
  MPI_Request requests[4];
  std::vector<int> fetched(kCount, -1), before(kCount, -1);
  CHECK(MPI_Rput_c(mine.data(), kCount, MPI_INT, right(), 3 * kCount, kCount, MPI_INT, w.win, &requests[0]) ==
        MPI_SUCCESS);
  CHECK(MPI_Raccumulate_c(mine.data(), kCount, MPI_INT, right(), kCount, kCount, MPI_INT, MPI_SUM, w.win,
                          &requests[1]) == MPI_SUCCESS);
  CHECK(MPI_Rget_accumulate_c(mine.data(), kCount, MPI_INT, before.data(), kCount, MPI_INT, right(), 2 * kCount,
                              kCount, MPI_INT, MPI_REPLACE, w.win, &requests[2]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(3, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  MPI_Win_flush_all(w.win);
  CHECK(MPI_Rget_c(fetched.data(), kCount, MPI_INT, right(), 3 * kCount, kCount, MPI_INT, w.win, &requests[3]) ==
        MPI_SUCCESS);
  CHECK(MPI_Wait(&requests[3], MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_Win_unlock_all(w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<int> doubled = theirs;
  for (int& value : doubled) value *= 2;
  check_that(fetched == mine && w.block(3) == theirs, "MPI_Rput_c and MPI_Rget_c", __LINE__);
  check_that(w.block(1) == doubled, "MPI_Raccumulate_c", __LINE__);
  check_that(before == mine && w.block(2) == theirs, "MPI_Rget_accumulate_c", __LINE__);
}

void shared_and_errors() {
  int* memory = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate_shared_c(kCount * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory,
                                  &win) == MPI_SUCCESS);
  MPI_Aint bytes = 0, unit_c = 0;
  int unit = 0;
  void* base_c = nullptr;
  void* base = nullptr;
  CHECK(MPI_Win_shared_query_c(win, left(), &bytes, &unit_c, &base_c) == MPI_SUCCESS);
  CHECK(MPI_Win_shared_query(win, left(), &bytes, &unit, &base) == MPI_SUCCESS);
  check_that(unit_c == static_cast<MPI_Aint>(sizeof(int)) && unit == unit_c && base == base_c &&
                 bytes == kCount * static_cast<MPI_Aint>(sizeof(int)),
             "MPI_Win_shared_query_c", __LINE__);

  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int value = 0;
  MPI_Win_fence(0, win);
  CHECK(MPI_Put_c(&value, -1, MPI_INT, right(), 0, 1, MPI_INT, win) == MPI_ERR_COUNT);
  CHECK(MPI_Put_c(&value, LLONG_MAX, MPI_INT, right(), 0, LLONG_MAX, MPI_INT, win) == MPI_ERR_COUNT);
  CHECK(MPI_Get_c(&value, 1, MPI_INT, right(), 0, LLONG_MAX / 2, MPI_INT, win) == MPI_ERR_COUNT);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Win_allocate_c(0, MPI_Aint{INT_MAX} + 1, MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win) == MPI_ERR_DISP);
  CHECK(MPI_Win_create_c(nullptr, 0, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_ERR_DISP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// 2^31 + 8 bytes from rank 0 into rank 1's window, checked at offsets around
// 2^31 and at both ends. The origin is an anonymous mapping: only its pages
// written hold memory.
void large_put(bool allocate) {
  if (size != 2) return;
  constexpr MPI_Count kBytes = (MPI_Count{1} << 31) + 8;
  const auto length = static_cast<std::size_t>(kBytes);
  const MPI_Aint window_bytes = rank == 1 ? kBytes : 0;
  void* target = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  if (allocate) {
    CHECK(MPI_Win_allocate_c(window_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &target, &win) == MPI_SUCCESS);
  } else {
    if (rank == 1) {
      target = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      CHECK(target != MAP_FAILED);
    }
    CHECK(MPI_Win_create_c(target, window_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  }
  const std::size_t offsets[] = {0, 4096, length / 2, (std::size_t{1} << 31) - 1, std::size_t{1} << 31,
                                 length - 1};
  void* origin = nullptr;
  if (rank == 0) {
    origin = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(origin != MAP_FAILED);
    for (std::size_t offset : offsets) static_cast<unsigned char*>(origin)[offset] = offset % 251 + 1;
  }
  MPI_Win_fence(0, win);
  if (rank == 0) CHECK(MPI_Put_c(origin, kBytes, MPI_BYTE, 1, 0, kBytes, MPI_BYTE, win) == MPI_SUCCESS);
  MPI_Win_fence(0, win);
  if (rank == 1) {
    bool same = true;
    for (std::size_t offset : offsets) same &= static_cast<unsigned char*>(target)[offset] == offset % 251 + 1;
    check_that(same, allocate ? "MPI_Put_c of 2^31 + 8 bytes, mapped window" : "MPI_Put_c of 2^31 + 8 bytes, served",
               __LINE__);
  }
  MPI_Win_free(&win);
  if (rank == 0) munmap(origin, length);
  if (rank == 1 && !allocate) munmap(target, length);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  transfers(false);
  transfers(true);
  shared_and_errors();
  large_put(true);
  large_put(false);
  const int rc = tern::mpi_test::conclude("mpi_win_large_count");
  MPI_Finalize();
  return rc;
}
