// Passive target communication: MPI_Win_lock (exclusive and shared),
// MPI_Win_unlock, MPI_Win_lock_all / unlock_all, the flushes
// (flush, flush_all, flush_local, flush_local_all), MPI_Win_sync; the
// request-based MPI_Rput / MPI_Rget / MPI_Raccumulate / MPI_Rget_accumulate
// completed by MPI_Wait, MPI_Waitall and MPI_Test; hundreds of operations
// with replies in one epoch; mutual exclusion of the
// exclusive lock; targets that sit in MPI_Barrier or only poll
// MPI_Iprobe / MPI_Test while others access their window.
#include <unistd.h>

#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

int right() { return (rank + 1) % size; }

// Windows over user memory (served by the target's progress) and over
// memory MPI allocates.
struct Window {
  std::vector<int> own;
  int* data = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  Window(int count, bool allocate) {
    const MPI_Aint bytes = count * static_cast<MPI_Aint>(sizeof(int));
    if (allocate) {
      MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &data, &win);
    } else {
      own.assign(static_cast<std::size_t>(count), 0);
      data = own.data();
      MPI_Win_create(data, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    // Local stores under a lock of the own window.
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < count; ++i) data[i] = -1;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~Window() { MPI_Win_free(&win); }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // The own window as seen after the others' epochs ended (a barrier
  // between), read under a shared lock on self.
  std::vector<int> snapshot(int count) const {
    std::vector<int> copy(static_cast<std::size_t>(count));
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < count; ++i) copy[static_cast<std::size_t>(i)] = data[i];
    MPI_Win_unlock(rank, win);
    return copy;
  }
};

// Exclusive and shared locks on every target in turn: a put into the own
// slot under an exclusive lock, then reads of all slots under shared locks.
void locks(bool allocate) {
  Window w(size, allocate);
  for (int step = 0; step < size; ++step) {
    const int target = (rank + step) % size;
    const int value = rank * 100 + target;
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Put(&value, 1, MPI_INT, target, rank, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(target, w.win) == MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<int> mine = w.snapshot(size);
  for (int r = 0; r < size; ++r) CHECK(mine[static_cast<std::size_t>(r)] == r * 100 + rank);
  std::vector<int> row(static_cast<std::size_t>(size), -5);
  for (int step = 0; step < size; ++step) {
    const int target = (rank + step) % size;
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Get(row.data(), size, MPI_INT, target, 0, size, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(target, w.win) == MPI_SUCCESS);
    for (int r = 0; r < size; ++r) CHECK(row[static_cast<std::size_t>(r)] == r * 100 + target);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Each rank increments a counter at rank 0 with Get, flush, Put under an
// exclusive lock: no increment may be lost.
void mutual_exclusion(bool allocate) {
  constexpr int kIncrements = 25;
  Window w(1, allocate);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win);
    w.data[0] = 0;
    MPI_Win_unlock(0, w.win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kIncrements; ++i) {
    int value = -1;
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Get(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, w.win) == MPI_SUCCESS);
    const int next = value + 1;
    CHECK(MPI_Put(&next, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, w.win) == MPI_SUCCESS);
    CHECK(value >= i);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(w.snapshot(1)[0] == kIncrements * size);
}

// lock_all with the flushes: a put flushed to its target is seen by a get
// after it; a flush_local lets the origin buffer be reused at once.
void lock_all_and_flushes(bool allocate) {
  constexpr int kSlots = 4;
  Window w(kSlots * size, allocate);
  CHECK(MPI_Win_lock_all(0, w.win) == MPI_SUCCESS);
  for (int target = 0; target < size; ++target) {
    const int value = 1000 + rank * 10 + target;
    CHECK(MPI_Put(&value, 1, MPI_INT, target, rank * kSlots, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(target, w.win) == MPI_SUCCESS);
    int back = -1;
    CHECK(MPI_Get(&back, 1, MPI_INT, target, rank * kSlots, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(target, w.win) == MPI_SUCCESS);
    CHECK(back == value);
  }
  // The same origin buffer reused after each flush_local.
  int buffer = 0;
  for (int target = 0; target < size; ++target) {
    buffer = 2000 + rank * 10 + target;
    CHECK(MPI_Put(&buffer, 1, MPI_INT, target, rank * kSlots + 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush_local(target, w.win) == MPI_SUCCESS);
    buffer = -99;
  }
  // Several buffers in flight to all targets, then flush_local_all.
  std::vector<int> buffers(static_cast<std::size_t>(size));
  for (int target = 0; target < size; ++target) {
    buffers[static_cast<std::size_t>(target)] = 3000 + rank * 10 + target;
    CHECK(MPI_Put(&buffers[static_cast<std::size_t>(target)], 1, MPI_INT, target, rank * kSlots + 2, 1, MPI_INT,
                  w.win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_flush_local_all(w.win) == MPI_SUCCESS);
  for (int& b : buffers) b = -98;
  // Accumulates everywhere, then flush_all.
  const int one = 1;
  for (int target = 0; target < size; ++target) {
    CHECK(MPI_Accumulate(&one, 1, MPI_INT, target, rank * kSlots + 3, 1, MPI_INT, MPI_REPLACE, w.win) ==
          MPI_SUCCESS);
  }
  CHECK(MPI_Win_flush_all(w.win) == MPI_SUCCESS);
  // Everything reached its target: read it all back before unlock_all.
  std::vector<int> seen(static_cast<std::size_t>(kSlots * size), 0);
  for (int target = 0; target < size; ++target) {
    CHECK(MPI_Get(&seen[static_cast<std::size_t>(target * kSlots)], kSlots, MPI_INT, target, rank * kSlots, kSlots,
                  MPI_INT, w.win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_flush_all(w.win) == MPI_SUCCESS);
  for (int target = 0; target < size; ++target) {
    const std::size_t at = static_cast<std::size_t>(target * kSlots);
    CHECK(seen[at] == 1000 + rank * 10 + target && seen[at + 1] == 2000 + rank * 10 + target);
    CHECK(seen[at + 2] == 3000 + rank * 10 + target && seen[at + 3] == 1);
  }
  CHECK(MPI_Win_unlock_all(w.win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<int> mine = w.snapshot(kSlots * size);
  for (int r = 0; r < size; ++r) {
    const std::size_t at = static_cast<std::size_t>(r * kSlots);
    CHECK(mine[at] == 1000 + r * 10 + rank && mine[at + 1] == 2000 + r * 10 + rank);
    CHECK(mine[at + 2] == 3000 + r * 10 + rank && mine[at + 3] == 1);
  }
}

// MPI_Win_sync: the target polls its own window under lock_all for a flag
// the left neighbour puts and flushes (the unified-model polling idiom; on
// a separate-model window MPI_Win_sync makes the copies agree).
void win_sync() {
  Window w(2, true);
  CHECK(MPI_Win_lock_all(0, w.win) == MPI_SUCCESS);
  const int payload = 40 + rank;
  const int flag_value = 1;
  CHECK(MPI_Put(&payload, 1, MPI_INT, right(), 0, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_flush(right(), w.win) == MPI_SUCCESS);
  CHECK(MPI_Put(&flag_value, 1, MPI_INT, right(), 1, 1, MPI_INT, w.win) == MPI_SUCCESS);
  CHECK(MPI_Win_flush(right(), w.win) == MPI_SUCCESS);
  int polls = 0;
  for (;;) {
    CHECK(MPI_Win_sync(w.win) == MPI_SUCCESS);
    if (reinterpret_cast<volatile int*>(w.data)[1] == 1) break;
    int pending = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pending, MPI_STATUS_IGNORE);
    ++polls;
  }
  CHECK(MPI_Win_sync(w.win) == MPI_SUCCESS);
  CHECK(w.data[0] == 40 + (rank - 1 + size) % size);
  CHECK(MPI_Win_unlock_all(w.win) == MPI_SUCCESS);
  CHECK(polls >= 0);
  MPI_Barrier(MPI_COMM_WORLD);
}

// The request-based operations: MPI_Wait on an Rput means the buffer can
// be reused, on an Rget that the data is there; Waitall and Test loops.
void request_based(bool allocate) {
  constexpr int kCount = 6;
  Window w(kCount * size, allocate);
  CHECK(MPI_Win_lock_all(0, w.win) == MPI_SUCCESS);
  const int target = right();
  const int base = rank * kCount;
  std::vector<int> out(kCount);
  for (int i = 0; i < kCount; ++i) out[static_cast<std::size_t>(i)] = rank * 1000 + i;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Rput(out.data(), kCount, MPI_INT, target, base, kCount, MPI_INT, w.win, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && request == MPI_REQUEST_NULL);
  for (int& v : out) v = -1;  // reusable: the put is locally complete
  CHECK(MPI_Win_flush(target, w.win) == MPI_SUCCESS);

  std::vector<int> in(kCount, 0);
  CHECK(MPI_Rget(in.data(), kCount, MPI_INT, target, base, kCount, MPI_INT, w.win, &request) == MPI_SUCCESS);
  int flag = 0;
  while (!flag) CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(request == MPI_REQUEST_NULL);
  for (int i = 0; i < kCount; ++i) CHECK(in[static_cast<std::size_t>(i)] == rank * 1000 + i);

  // Raccumulate and Rget_accumulate together, completed by Waitall.
  const int add[2] = {5, 7};
  int fetched[2] = {0, 0};
  const int add_more[2] = {100, 200};
  MPI_Request requests[2];
  CHECK(MPI_Raccumulate(add, 2, MPI_INT, target, base, 2, MPI_INT, MPI_SUM, w.win, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Win_flush(target, w.win) == MPI_SUCCESS);
  CHECK(MPI_Rget_accumulate(add_more, 2, MPI_INT, fetched, 2, MPI_INT, target, base, 2, MPI_INT, MPI_SUM, w.win,
                            &requests[1]) == MPI_SUCCESS);
  MPI_Status statuses[2];
  CHECK(MPI_Waitall(2, requests, statuses) == MPI_SUCCESS);
  CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL);
  CHECK(fetched[0] == rank * 1000 + 5 && fetched[1] == rank * 1000 + 1 + 7);
  CHECK(MPI_Win_flush(target, w.win) == MPI_SUCCESS);

  // Many requests at once to every rank, then a get of each.
  std::vector<MPI_Request> many;
  std::vector<int> values(static_cast<std::size_t>(size));
  for (int t = 0; t < size; ++t) {
    values[static_cast<std::size_t>(t)] = 9000 + rank * 10 + t;
    many.push_back(MPI_REQUEST_NULL);
    CHECK(MPI_Rput(&values[static_cast<std::size_t>(t)], 1, MPI_INT, t, base + kCount - 1, 1, MPI_INT, w.win,
                   &many.back()) == MPI_SUCCESS);
  }
  CHECK(MPI_Waitall(static_cast<int>(many.size()), many.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_Win_flush_all(w.win) == MPI_SUCCESS);
  std::vector<int> back(static_cast<std::size_t>(size), 0);
  for (int t = 0; t < size; ++t) {
    CHECK(MPI_Rget(&back[static_cast<std::size_t>(t)], 1, MPI_INT, t, base + kCount - 1, 1, MPI_INT, w.win,
                   &many[static_cast<std::size_t>(t)]) == MPI_SUCCESS);
  }
  CHECK(MPI_Waitall(static_cast<int>(many.size()), many.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  for (int t = 0; t < size; ++t) CHECK(back[static_cast<std::size_t>(t)] == 9000 + rank * 10 + t);
  CHECK(MPI_Win_unlock_all(w.win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);

  const std::vector<int> mine = w.snapshot(kCount * size);
  const int writer = (rank - 1 + size) % size;
  const std::size_t at = static_cast<std::size_t>(writer * kCount);
  CHECK(mine[at] == writer * 1000 + 105 && mine[at + 1] == writer * 1000 + 1 + 207);
  for (int i = 2; i < kCount - 1; ++i) CHECK(mine[at + static_cast<std::size_t>(i)] == writer * 1000 + i);
  for (int r = 0; r < size; ++r) {
    CHECK(mine[static_cast<std::size_t>(r * kCount + kCount - 1)] == 9000 + r * 10 + rank);
  }
}

// Rank 0 does not access any window: it sits in MPI_Barrier, or polls
// MPI_Test on a receive of the others' "done" messages, or polls
// MPI_Iprobe; meanwhile the others lock its window and update it.
void passive_target(bool allocate, int mode) {
  if (size < 2) return;
  Window w(size, allocate);
  if (rank == 0) {
    if (mode == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (mode == 1) {
      for (int r = 1; r < size; ++r) {
        int done = 0;
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Irecv(&done, 1, MPI_INT, r, 77, MPI_COMM_WORLD, &request);
        int flag = 0;
        while (!flag) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        CHECK(done == r);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    } else {
      int arrived = 0;
      while (arrived < size - 1) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, 78, MPI_COMM_WORLD, &flag, &status);
        if (!flag) continue;
        int done = 0;
        MPI_Recv(&done, 1, MPI_INT, status.MPI_SOURCE, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(done == status.MPI_SOURCE);
        ++arrived;
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    const std::vector<int> mine = w.snapshot(size);
    CHECK(mine[0] == -1 + (size - 1) * 3);
    for (int r = 1; r < size; ++r) CHECK(mine[static_cast<std::size_t>(r)] == r * 11);
  } else {
    const int value = rank * 11;
    const int three = 3;
    int got = -1;
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Put(&value, 1, MPI_INT, 0, rank, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&three, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w.win) == MPI_SUCCESS);
    CHECK(MPI_Get(&got, 1, MPI_INT, 0, rank, 1, MPI_INT, w.win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, w.win) == MPI_SUCCESS);
    CHECK(got == rank * 11);
    if (mode == 1) MPI_Send(&rank, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    if (mode == 2) MPI_Send(&rank, 1, MPI_INT, 0, 78, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Hundreds of operations with replies in one epoch: gets of many sizes
// (some large, some into a strided origin type), fetch-and-ops and
// compare-and-swaps on one word, get-accumulates with MPI_NO_OP. A served
// window answers a message's requests in one joint reply, scattered here
// (api-mpi/src/win/protocol.hpp); every value must land where it belongs,
// and one origin's accumulates apply in the order issued.
void many_replies(bool allocate) {
  constexpr int kCount = 40000;
  constexpr int kOps = 400;
  constexpr int kLarge = 16384;  // ints: a 64 KiB get
  Window w(kCount, allocate);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win);
  for (int i = 0; i < kCount; ++i) w.data[i] = rank * 1000000 + i;
  MPI_Win_unlock(rank, w.win);
  MPI_Barrier(MPI_COMM_WORLD);

  const int target = right();
  const int base = target * 1000000;
  struct Get {
    int offset = 0;
    int length = 0;
    bool strided = false;
    std::vector<int> into;
  };
  std::vector<Get> gets(kOps);
  std::vector<int> fetched(kOps, -1);
  std::vector<int> swapped(kOps, -1);
  std::vector<MPI_Datatype> types;
  int fetches = 0;
  int swaps = 0;
  const int one = 1;
  CHECK(MPI_Win_lock_all(0, w.win) == MPI_SUCCESS);
  for (int k = 0; k < kOps; ++k) {
    Get& get = gets[static_cast<std::size_t>(k)];
    get.length = k % 50 == 49 ? kLarge : 1 + (k * 37) % 700;
    get.offset = 2 + (k * 101) % (kCount - kLarge - 2);
    get.strided = k % 3 == 1;
    get.into.assign(static_cast<std::size_t>(get.strided ? 2 * get.length : get.length), -7);
    MPI_Datatype origin = MPI_INT;
    int origin_count = get.length;
    if (get.strided) {
      MPI_Type_vector(get.length, 1, 2, MPI_INT, &origin);
      MPI_Type_commit(&origin);
      types.push_back(origin);
      origin_count = 1;
    }
    if (k % 7 == 3) {
      CHECK(MPI_Get_accumulate(nullptr, 0, MPI_INT, get.into.data(), origin_count, origin, target, get.offset,
                               get.length, MPI_INT, MPI_NO_OP, w.win) == MPI_SUCCESS);
    } else {
      CHECK(MPI_Get(get.into.data(), origin_count, origin, target, get.offset, get.length, MPI_INT, w.win) ==
            MPI_SUCCESS);
    }
    if (k % 4 == 0) {
      CHECK(MPI_Fetch_and_op(&one, &fetched[static_cast<std::size_t>(fetches++)], MPI_INT, target, 0, MPI_SUM,
                             w.win) == MPI_SUCCESS);
    }
    if (k % 5 == 0) {
      const int expected = base + 1 + swaps;
      const int desired = expected + 1;
      CHECK(MPI_Compare_and_swap(&desired, &expected, &swapped[static_cast<std::size_t>(swaps++)], MPI_INT, target,
                                 1, w.win) == MPI_SUCCESS);
    }
  }
  CHECK(MPI_Win_flush(target, w.win) == MPI_SUCCESS);
  for (const Get& get : gets) {
    for (int i = 0; i < get.length; ++i) {
      const int at = get.strided ? 2 * i : i;
      CHECK(get.into[static_cast<std::size_t>(at)] == base + get.offset + i);
      if (get.strided) CHECK(get.into[static_cast<std::size_t>(at + 1)] == -7);
    }
  }
  for (int f = 0; f < fetches; ++f) CHECK(fetched[static_cast<std::size_t>(f)] == base + f);
  for (int c = 0; c < swaps; ++c) CHECK(swapped[static_cast<std::size_t>(c)] == base + 1 + c);
  CHECK(MPI_Win_unlock_all(w.win) == MPI_SUCCESS);
  for (MPI_Datatype& type : types) MPI_Type_free(&type);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<int> mine = w.snapshot(2);
  CHECK(mine[0] == rank * 1000000 + fetches);
  CHECK(mine[1] == rank * 1000000 + 1 + swaps);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const bool allocate : {false, true}) {
    locks(allocate);
    mutual_exclusion(allocate);
    lock_all_and_flushes(allocate);
    request_based(allocate);
    many_replies(allocate);
    for (int mode = 0; mode < 3; ++mode) passive_target(allocate, mode);
  }
  win_sync();
  const int code = tern::mpi_test::conclude("mpi_win_passive");
  MPI_Finalize();
  return code;
}
