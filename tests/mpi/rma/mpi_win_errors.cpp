// Errors of one-sided calls under MPI_ERRORS_RETURN: the error class of
// each invalid call where the standard names one (a bad target rank, a
// target outside the window, a bad lock type, synchronization out of
// order, an invalid window, a negative count), any error where it names
// none, and the window still working afterwards.
#include <cstdio>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

int class_of(int code) {
  int error_class = -1;
  MPI_Error_class(code, &error_class);
  return error_class;
}

// A call must fail with the given class; the class it gave is reported.
void expect_class(int code, int expected, const char* call, int line) {
  const int got = code == MPI_SUCCESS ? MPI_SUCCESS : class_of(code);
  if (got != expected) std::fprintf(stderr, "rank %d: line %d: %s gave class %d, not %d\n", rank, line, call, got, expected);
  ::tern::mpi_test::check(got == expected, call, line);
}

#define CHECK_CLASS(call, expected) expect_class((call), (expected), #call, __LINE__)

// The window still moves data after the errors: a put to the right
// neighbour's last slot in a lock_all epoch.
void still_works(MPI_Win win, int* data, int slot, int value) {
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  const int mine = value + rank;
  CHECK(MPI_Put(&mine, 1, MPI_INT, right, slot, 1, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win) == MPI_SUCCESS);
  CHECK(data[slot] == value + left);
  CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

void errhandlers(MPI_Win win) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Win_get_errhandler(win, &handler) == MPI_SUCCESS);
  CHECK(handler == MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&handler);
  CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  CHECK(MPI_Win_get_errhandler(win, &handler) == MPI_SUCCESS);
  CHECK(handler == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&handler);
  // Calling the handler: MPI_ERRORS_RETURN returns, and so does the call.
  CHECK(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC) == MPI_SUCCESS);
}

constexpr int kGuard = 32;  // ints after a window over user memory

// Argument errors of the communication calls, inside an epoch.
void argument_errors(MPI_Win win, int* data, bool guarded) {
  constexpr int kSlots = 4;
  int value = 1;
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  // Target ranks outside the group.
  CHECK_CLASS(MPI_Put(&value, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Get(&value, 1, MPI_INT, -77, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Accumulate(&value, 1, MPI_INT, size + 3, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RANK);
  int result = 0;
  CHECK_CLASS(MPI_Fetch_and_op(&value, &result, MPI_INT, size, 0, MPI_SUM, win), MPI_ERR_RANK);
  // Negative counts.
  CHECK_CLASS(MPI_Put(&value, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Get(&value, 1, MPI_INT, 0, 0, -2, MPI_INT, win), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Accumulate(&value, -1, MPI_INT, 0, 0, -1, MPI_INT, MPI_SUM, win), MPI_ERR_COUNT);
  // Targets beyond the window: past its end, and straddling it. Writes
  // only where the memory after the window is a guard zone of this test,
  // so that an implementation that misses them corrupts nothing.
  int pair[2] = {5, 6};
  CHECK_CLASS(MPI_Get(&value, 1, MPI_INT, 0, kSlots, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Get(pair, 2, MPI_INT, 0, kSlots - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
  if (guarded) {
    CHECK_CLASS(MPI_Put(&value, 1, MPI_INT, 0, kSlots, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Put(pair, 2, MPI_INT, 0, kSlots - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Accumulate(&value, 1, MPI_INT, 0, kSlots + 2, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Get(&value, 1, MPI_INT, 0, kSlots + 20, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  // None of these touched rank 0's window.
  if (rank == 0) {
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    for (int i = 0; i < (guarded ? kSlots + kGuard : kSlots); ++i) CHECK(data[i] == -1);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Synchronization errors: a bad lock type, an unlock without a lock, a
// lock of a rank outside the group, completing an access epoch never
// started.
void sync_errors(MPI_Win win) {
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE + MPI_LOCK_SHARED + 7, 0, 0, win), MPI_ERR_LOCKTYPE);
  CHECK_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
  // An unlock of another rank than the one locked.
  if (size > 1) {
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK_CLASS(MPI_Win_unlock(1, win), MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Calls on MPI_WIN_NULL: they have no window to raise the error on, so it
// goes to MPI_COMM_SELF's handler (MPI 4.0), set to MPI_ERRORS_RETURN.
void invalid_window() {
  int value = 0;
  int flag = 0;
  void* attribute = nullptr;
  CHECK_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Win_get_attr(MPI_WIN_NULL, MPI_WIN_BASE, &attribute, &flag), MPI_ERR_WIN);
  MPI_Win null_win = MPI_WIN_NULL;
  CHECK_CLASS(MPI_Win_free(&null_win), MPI_ERR_WIN);
}

// Creation errors: negative sizes and displacement units fail (the
// standard names no class: any error will do); a shared query of a window
// that was not allocated shared.
void creation_errors() {
  MPI_Win win = MPI_WIN_NULL;
  void* base = nullptr;
  const int shared = MPI_Win_allocate_shared(-8, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
  CHECK(shared != MPI_SUCCESS);
  if (shared == MPI_SUCCESS) MPI_Win_free(&win);
  const int allocated = MPI_Win_allocate(-1, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
  CHECK(allocated != MPI_SUCCESS);
  if (allocated == MPI_SUCCESS) MPI_Win_free(&win);
  std::vector<int> memory(2);
  const int created = MPI_Win_create(memory.data(), 8, 0, MPI_INFO_NULL, MPI_COMM_SELF, &win);
  CHECK(created != MPI_SUCCESS);
  if (created == MPI_SUCCESS) MPI_Win_free(&win);

  // MPI 4.0 raises MPI_ERR_RMA_FLAVOR; MPI 4.1 lets any flavor be queried,
  // the memory then reported as size 0 and a null base where it cannot be
  // reached by load and store.
  CHECK(MPI_Win_create(memory.data(), 8, 4, MPI_INFO_NULL, MPI_COMM_SELF, &win) == MPI_SUCCESS);
  CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  MPI_Aint queried_size = -1;
  int unit = -1;
  int* queried = nullptr;
  const int query = MPI_Win_shared_query(win, 0, &queried_size, &unit, &queried);
  if (query == MPI_SUCCESS) {
    CHECK((queried_size == 0 && queried == nullptr) || (queried_size == 8 && queried == memory.data() && unit == 4));
  } else {
    CHECK_CLASS(query, MPI_ERR_RMA_FLAVOR);
  }
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

  constexpr int kSlots = 4;
  int* data = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(kSlots * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &data, &win) ==
        MPI_SUCCESS);
  for (int i = 0; i < kSlots; ++i) data[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  errhandlers(win);
  argument_errors(win, data, false);
  still_works(win, data, 1, 100);
  sync_errors(win);
  still_works(win, data, 2, 200);
  invalid_window();
  creation_errors();
  still_works(win, data, 3, 300);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL);

  // The same on a window over user memory, with a guard zone after it.
  std::vector<int> memory(kSlots + kGuard, -1);
  CHECK(MPI_Win_create(memory.data(), kSlots * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  errhandlers(win);
  argument_errors(win, memory.data(), true);
  sync_errors(win);
  still_works(win, memory.data(), 0, 400);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

  const int code = tern::mpi_test::conclude("mpi_win_errors");
  MPI_Finalize();
  return code;
}
