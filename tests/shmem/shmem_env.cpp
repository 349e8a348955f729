// Library setup and query: init/finalize, my_pe/n_pes, info_get_version and
// info_get_name, pe_accessible, addr_accessible, shmem_ptr (every PE of a
// one-node job is reachable through it; a store through it is seen by the
// owner), query_thread.
#include <shmem.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "check.h"

namespace {

long g_static_word = 0;  // static data: symmetric
long g_static_array[16];

void test_identity() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  CHECK(n >= 1);
  CHECK(me >= 0 && me < n);
  // Every PE number appears exactly once.
  CHECK(tern_sum_long(me) == static_cast<long>(n) * (n - 1) / 2);
  CHECK(tern_sum_long(1) == n);
  // Stable across calls.
  CHECK(shmem_my_pe() == me);
  CHECK(shmem_n_pes() == n);
#if TERN_SHMEM_1_5
  CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me);
  CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == n);
#endif
}

void test_info() {
  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  CHECK(major == SHMEM_MAJOR_VERSION);
  CHECK(minor == SHMEM_MINOR_VERSION);
  CHECK(major >= 1);

  char name[SHMEM_MAX_NAME_LEN + 1];
  std::memset(name, 'x', sizeof(name));
  shmem_info_get_name(name);
  const void* nul = std::memchr(name, '\0', SHMEM_MAX_NAME_LEN);
  CHECK(nul != nullptr);  // terminated within SHMEM_MAX_NAME_LEN
  if (nul != nullptr) {
    CHECK(std::strlen(name) > 0);
    CHECK(std::strcmp(name, SHMEM_VENDOR_STRING) == 0);
  }
  CHECK(std::strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN);
}

void test_accessible(long* heap) {
  const int n = shmem_n_pes();
  for (int pe = 0; pe < n; ++pe) {
    CHECK(shmem_pe_accessible(pe) == 1);
    CHECK(shmem_addr_accessible(&g_static_word, pe) == 1);
    CHECK(shmem_addr_accessible(&g_static_array[7], pe) == 1);
    CHECK(shmem_addr_accessible(heap, pe) == 1);
    CHECK(shmem_addr_accessible(heap + 5, pe) == 1);
  }
  // Not a PE of the job.
  CHECK(shmem_pe_accessible(-1) == 0);
  CHECK(shmem_pe_accessible(n) == 0);
  CHECK(shmem_pe_accessible(n + 100) == 0);
  // Private memory is not remotely accessible.
  long on_stack = 0;
  long* private_heap = static_cast<long*>(std::malloc(64));
  for (int pe = 0; pe < n; ++pe) {
    CHECK(shmem_addr_accessible(&on_stack, pe) == 0);
    CHECK(shmem_addr_accessible(private_heap, pe) == 0);
  }
  std::free(private_heap);
}

// shmem_ptr: on one node every PE's symmetric heap is mapped, so the pointer
// is non-null for every PE; storing through it is visible to the owner.
// Static data may or may not be mapped (the spec allows NULL); when it is,
// the same must hold.
void test_ptr(long* heap) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  CHECK(shmem_ptr(heap, me) == heap);
  for (int i = 0; i < n; ++i) heap[i] = -1;
  for (int i = 0; i < n; ++i) g_static_array[i] = -1;
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    long* remote = static_cast<long*>(shmem_ptr(heap, pe));
    // A PE on another host has no pointer; it is still accessible by puts.
    CHECK(shmem_pe_accessible(pe) == 1);
    CHECK(shmem_addr_accessible(heap, pe) == 1);
    if (remote != nullptr) {
      remote[me] = 1000 * pe + me;  // my slot in PE pe's array
    } else {
      CHECK(pe != me);
      shmem_long_p(&heap[me], 1000 * pe + me, pe);
    }
    long* remote_static = static_cast<long*>(shmem_ptr(&g_static_array[0], pe));
    if (remote_static != nullptr) remote_static[me] = 1000 * pe + me;
  }
  shmem_barrier_all();
  for (int src = 0; src < n; ++src) {
    CHECK(heap[src] == 1000 * me + src);
    // Static data: either written through the pointer or left alone.
    CHECK(g_static_array[src] == -1 || g_static_array[src] == 1000 * me + src);
  }
  // Reading through the pointer sees the owner's stores.
  shmem_barrier_all();
  heap[0] = 7 + me;
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    const long* remote = static_cast<const long*>(shmem_ptr(heap, pe));
    if (remote != nullptr) CHECK(remote[0] == 7 + pe);
  }
  // Interior pointers map too.
  long* interior = static_cast<long*>(shmem_ptr(heap + 3, (me + 1) % n));
  long* base = static_cast<long*>(shmem_ptr(heap, (me + 1) % n));
  if (interior != nullptr && base != nullptr) CHECK(interior == base + 3);
  shmem_barrier_all();
}

void test_threads() {
  CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED);
  CHECK(SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED);
  CHECK(SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE);
  int provided = -12345;
  shmem_query_thread(&provided);
  CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
        provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE);
  int again = -1;
  shmem_query_thread(&again);
  CHECK(again == provided);
}

}  // namespace

int main() {
  shmem_init();
  long* heap = static_cast<long*>(shmem_malloc(64 * sizeof(long)));
  CHECK(heap != nullptr);
  if (heap != nullptr) {
    test_identity();
    test_info();
    test_accessible(heap);
    test_ptr(heap);
    test_threads();
    shmem_free(heap);
  }
  const int rc = tern_conclude("shmem_env");
  shmem_finalize();
  return rc;
}
