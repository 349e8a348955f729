// MPI_Win_create memory reached directly on one host (api-mpi/src/win/
// mapping.cpp), Tern's own behaviour: run with `shared` where pages are
// expected to be swapped for shared ones and MPI_Alloc_mem windows direct
// (MPI_THREAD_SINGLE, no progress thread), `arena` where only MPI_Alloc_mem
// windows are direct (a progress thread), `served` where nothing is
// (TERN_WIN_SHARE=off). MPI_Win_get_info's tern_access must say the same.
// Either way every operation gives MPI's results.
//
//  - A window over MPI_Alloc_mem memory of an odd size: every rank
//    accumulates into every other's, and puts and gets see each other.
//  - A window of whole pages inside a heap block: its pages are shared (or
//    not) as expected, the block's other pages stay private, and after
//    MPI_Win_free the pages are private again with the window's last
//    contents.
//  - Shared: a target that never calls MPI sees an origin's put (the origin
//    needs no help from it), bounded by a timeout rather than a hang.
//  - Never shared: a window that does not cover whole pages (others' bytes
//    share them); a window on the stack; a window whose memory is the
//    buffer of a receive still open; a second window over the first's
//    memory. Each still works.
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"

namespace {

int g_rank = 0, g_size = 0;
bool g_expect_shared = false;  // page windows swapped and direct
bool g_expect_arena = false;   // MPI_Alloc_mem windows direct

// The permissions /proc/self/maps gives the page that holds `address`
// ("rw-p", "rw-s", ...), or "" when no mapping holds it.
std::string permissions_of(const void* address) {
  const auto target = reinterpret_cast<unsigned long>(address);
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return "";
  char line[512];
  std::string found;
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, stop = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s", &start, &stop, perms) == 3 && start <= target && target < stop) {
      found = perms;
      break;
    }
  }
  std::fclose(maps);
  return found;
}

bool is_shared(const void* address) { return permissions_of(address) == "rw-s"; }

// MPI_Win_get_info's tern_access: "direct" or "served".
std::string access_of(MPI_Win win) {
  MPI_Info info;
  CHECK(MPI_Win_get_info(win, &info) == MPI_SUCCESS);
  char value[32] = {};
  int length = sizeof(value) - 1, found = 0;
  CHECK(MPI_Info_get_string(info, "tern_access", &length, value, &found) == MPI_SUCCESS);
  MPI_Info_free(&info);
  return found != 0 ? value : "";
}

const char* expected_access(bool direct) { return direct ? "direct" : "served"; }

void alloc_mem_window() {
  const MPI_Aint bytes = 1000 + 8 * g_rank;  // not whole pages, not the same everywhere
  long* memory = nullptr;
  CHECK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &memory) == MPI_SUCCESS);
  const int count = static_cast<int>(bytes / static_cast<MPI_Aint>(sizeof(long)));
  for (int i = 0; i < count; ++i) memory[i] = 0;
  MPI_Win win;
  CHECK(MPI_Win_create(memory, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  CHECK(access_of(win) == expected_access(g_expect_arena));
  // Slot 0 of every window: every rank adds (its rank + 1), 50 times.
  constexpr int kRounds = 50;
  MPI_Win_lock_all(0, win);
  for (int round = 0; round < kRounds; ++round) {
    const long add = g_rank + 1;
    for (int target = 0; target < g_size; ++target) {
      MPI_Accumulate(&add, 1, MPI_LONG, target, 0, 1, MPI_LONG, MPI_SUM, win);
    }
  }
  MPI_Win_flush_all(win);
  // Slot 1 + rank of the right neighbour: our rank.
  const int right = (g_rank + 1) % g_size;
  const long mine = 100 + g_rank;
  MPI_Put(&mine, 1, MPI_LONG, right, 1 + g_rank, 1, MPI_LONG, win);
  MPI_Win_flush(right, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win);
  const long expected_sum = static_cast<long>(kRounds) * g_size * (g_size + 1) / 2;
  CHECK(memory[0] == expected_sum);
  const int left = (g_rank + g_size - 1) % g_size;
  CHECK(memory[1 + left] == 100 + left);
  MPI_Win_unlock(g_rank, win);
  long got = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Get(&got, 1, MPI_LONG, right, 0, 1, MPI_LONG, win);
  MPI_Win_unlock(right, win);
  CHECK(got == expected_sum);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
  // Rank 0 without memory: it swaps nothing and does not keep the others
  // from being direct.
  CHECK(MPI_Win_create(g_rank == 0 ? nullptr : memory, g_rank == 0 ? 0 : bytes, sizeof(long), MPI_INFO_NULL,
                       MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  CHECK(access_of(win) == expected_access(g_expect_arena));
  if (g_size > 1) {
    const long value = 7;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&value, 1, MPI_LONG, 1, 2, 1, MPI_LONG, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 1) CHECK(memory[2] == 7);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
  CHECK(MPI_Free_mem(memory) == MPI_SUCCESS);
}

unsigned char pattern(int rank, std::size_t i) { return static_cast<unsigned char>(rank * 37 + i * 11 + 1); }

void page_window() {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t block = 4 * page;
  auto* memory = static_cast<unsigned char*>(std::aligned_alloc(page, block));
  CHECK(memory != nullptr);
  for (std::size_t i = 0; i < block; ++i) memory[i] = pattern(g_rank, i);
  // The block's second and third pages.
  unsigned char* window_base = memory + page;
  const std::size_t window_bytes = 2 * page;
  MPI_Win win;
  CHECK(MPI_Win_create(window_base, static_cast<MPI_Aint>(window_bytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  CHECK(is_shared(window_base) == g_expect_shared);
  CHECK(is_shared(window_base + window_bytes - 1) == g_expect_shared);
  CHECK(!is_shared(memory) && !is_shared(memory + 3 * page));  // the pages around it
  CHECK(access_of(win) == expected_access(g_expect_shared));
  for (std::size_t i = 0; i < block; ++i) CHECK(memory[i] == pattern(g_rank, i));
  memory[7] = 0xee;
  window_base[window_bytes + 3] = 0xdd;
  MPI_Barrier(MPI_COMM_WORLD);  // the checks above before anyone puts

  // Every rank puts its rank, at 64 bytes per rank, into its right neighbour's window.
  const int right = (g_rank + 1) % g_size;
  const int left = (g_rank + g_size - 1) % g_size;
  std::vector<unsigned char> mine(64, static_cast<unsigned char>(0x40 + g_rank));
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Put(mine.data(), 64, MPI_UNSIGNED_CHAR, right, static_cast<MPI_Aint>(g_rank) * 64, 64, MPI_UNSIGNED_CHAR, win);
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win);  // our own memory, as the unified model reads it
  for (std::size_t i = 0; i < 64; ++i) CHECK(window_base[static_cast<std::size_t>(left) * 64 + i] == 0x40 + left);
  MPI_Win_unlock(g_rank, win);
  // Gets see the target's own writes.
  window_base[window_bytes - 1] = static_cast<unsigned char>(0x80 + g_rank);
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char last = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Get(&last, 1, MPI_UNSIGNED_CHAR, right, static_cast<MPI_Aint>(window_bytes - 1), 1, MPI_UNSIGNED_CHAR, win);
  MPI_Win_unlock(right, win);
  CHECK(last == 0x80 + right);
  MPI_Barrier(MPI_COMM_WORLD);

  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
  // Private again, with everything the window and the program left there.
  CHECK(permissions_of(window_base) == "rw-p");
  CHECK(permissions_of(window_base + window_bytes - 1) == "rw-p");
  CHECK(memory[7] == 0xee && window_base[window_bytes + 3] == 0xdd);
  for (std::size_t i = 0; i < 64; ++i) CHECK(window_base[static_cast<std::size_t>(left) * 64 + i] == 0x40 + left);
  CHECK(window_base[window_bytes - 1] == 0x80 + g_rank);
  for (std::size_t i = 3 * page + 4; i < block; ++i) CHECK(memory[i] == pattern(g_rank, i));
  std::free(memory);
}

// Rank 0 puts a flag into rank 1's window while rank 1 only reads its
// memory: with the pages shared nothing needs rank 1's progress.
void target_that_never_calls_mpi() {
  if (!g_expect_shared || g_size < 2) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* flag = static_cast<int*>(std::aligned_alloc(page, page));
  CHECK(flag != nullptr);
  std::memset(flag, 0, page);
  MPI_Win win;
  CHECK(MPI_Win_create(flag, static_cast<MPI_Aint>(page), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  if (g_rank == 0) {
    const int value = 42;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&value, 1, MPI_INT, 1, 512, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else if (g_rank == 1) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    volatile int* watched = flag + 512;
    while (*watched != 42 && std::chrono::steady_clock::now() < deadline) sched_yield();
    CHECK(*watched == 42);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
  std::free(flag);
}

// Fence epoch: every rank puts its rank into slot `rank` of every window,
// then reads back what the others put into its own.
void all_put_all(MPI_Win win, int* slots) {
  MPI_Win_fence(0, win);
  for (int target = 0; target < g_size; ++target) {
    MPI_Put(&g_rank, 1, MPI_INT, target, g_rank, 1, MPI_INT, win);
  }
  MPI_Win_fence(0, win);
  for (int r = 0; r < g_size; ++r) CHECK(slots[r] == r);
}

void never_shared() {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  // Not whole pages: 100 bytes into a page, to 50 bytes into the third.
  {
    auto* block = static_cast<unsigned char*>(std::aligned_alloc(page, 4 * page));
    CHECK(block != nullptr);
    int* slots = reinterpret_cast<int*>(block + 100);
    std::memset(block, 0, 4 * page);
    MPI_Win unaligned;
    CHECK(MPI_Win_create(slots, static_cast<MPI_Aint>(2 * page - 50), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &unaligned) == MPI_SUCCESS);
    CHECK(!is_shared(slots) && !is_shared(block + 2 * page));
    CHECK(access_of(unaligned) == "served");
    all_put_all(unaligned, slots);
    CHECK(MPI_Win_free(&unaligned) == MPI_SUCCESS);
    std::free(block);
  }
  // On the stack.
  int on_stack[64] = {};
  MPI_Win win;
  CHECK(MPI_Win_create(on_stack, sizeof(on_stack), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  CHECK(!is_shared(on_stack));
  CHECK(access_of(win) == "served");
  all_put_all(win, on_stack);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

  // A receive still open into the window: its pages stay private.
  auto* memory = static_cast<int*>(std::aligned_alloc(page, page));
  CHECK(memory != nullptr);
  std::memset(memory, 0, page);
  int* incoming = memory + 256;  // 16 ints inside the window
  int* slots = memory;           // the window: the whole page
  const int from = (g_rank + g_size - 1) % g_size;
  const int to = (g_rank + 1) % g_size;
  MPI_Request receive;
  MPI_Irecv(incoming, 16, MPI_INT, from, 7, MPI_COMM_WORLD, &receive);
  CHECK(MPI_Win_create(slots, static_cast<MPI_Aint>(page), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  CHECK(!is_shared(slots));
  CHECK(access_of(win) == "served");
  std::vector<int> message(16, 1000 + g_rank);
  MPI_Send(message.data(), 16, MPI_INT, to, 7, MPI_COMM_WORLD);
  MPI_Wait(&receive, MPI_STATUS_IGNORE);
  for (int i = 0; i < 16; ++i) CHECK(incoming[i] == 1000 + from);
  all_put_all(win, slots);

  // A second window over the memory of a first, which is shared where the
  // first could be: the second is served, and both see the same bytes.
  auto* both = static_cast<int*>(std::aligned_alloc(page, page));
  CHECK(both != nullptr);
  const auto page_bytes = static_cast<MPI_Aint>(page);
  MPI_Win first, second;
  CHECK(MPI_Win_create(both, page_bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &first) == MPI_SUCCESS);
  CHECK(is_shared(both) == g_expect_shared);
  CHECK(MPI_Win_create(both, page_bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &second) == MPI_SUCCESS);
  CHECK(access_of(first) == expected_access(g_expect_shared));
  CHECK(access_of(second) == "served");
  all_put_all(first, both);
  for (int r = 0; r < g_size; ++r) both[r] = -1;
  all_put_all(second, both);
  CHECK(MPI_Win_free(&second) == MPI_SUCCESS);
  CHECK(MPI_Win_free(&first) == MPI_SUCCESS);
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
  std::free(both);
  std::free(memory);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const std::string mode = argc == 2 ? argv[1] : "";
  if (mode != "shared" && mode != "arena" && mode != "served") {
    if (g_rank == 0) std::fprintf(stderr, "usage: mpi_win_share shared|arena|served\n");
    MPI_Finalize();
    return 2;
  }
  g_expect_shared = mode == "shared";
  g_expect_arena = mode != "served";
  alloc_mem_window();
  page_window();
  target_that_never_calls_mpi();
  never_shared();
  const int rc = tern::mpi_test::conclude("mpi_win_share");
  MPI_Finalize();
  return rc;
}
