// The symmetric heap: malloc, calloc (zeroed), realloc (contents kept, also
// when the block moves), align (alignment), free, malloc_with_hints, and the
// legacy shmalloc/shfree/shrealloc/shmemalign. Every block is checked to be
// symmetric: data put to (or read from) the same pointer on another PE lands
// where the owner sees it.
//
// With the argument "limit", SHMEM_SYMMETRIC_SIZE must be set (e.g. 8M): a
// request larger than the heap returns NULL on every PE, leaves existing
// blocks alone, and the heap still serves requests that fit.
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

unsigned char pattern(int pe, size_t i, int salt) {
  return static_cast<unsigned char>((pe * 131 + i * 7 + salt * 17 + (i >> 8)) & 0xff);
}

void fill(void* block, size_t bytes, int pe, int salt) {
  auto* p = static_cast<unsigned char*>(block);
  for (size_t i = 0; i < bytes; ++i) p[i] = pattern(pe, i, salt);
}

bool holds(const void* block, size_t bytes, int pe, int salt) {
  const auto* p = static_cast<const unsigned char*>(block);
  for (size_t i = 0; i < bytes; ++i) {
    if (p[i] != pattern(pe, i, salt)) return false;
  }
  return true;
}

// "Suitably aligned for any use": for any object that fits in the block.
// (Open MPI 4.1 aligns some blocks to 8 bytes only; validating the suite
// against it takes -DTERN_SHMEM_MALLOC_ALIGNMENT=8.)
#ifndef TERN_SHMEM_MALLOC_ALIGNMENT
#define TERN_SHMEM_MALLOC_ALIGNMENT alignof(std::max_align_t)
#endif
size_t natural_alignment(size_t size) {
  size_t alignment = TERN_SHMEM_MALLOC_ALIGNMENT;
  while (alignment > size) alignment /= 2;
  return alignment;
}

// The block is symmetric: a get of the right neighbour's copy returns its
// pattern, and a put into the left neighbour's copy is what it then holds.
void check_symmetric(void* block, size_t bytes, int salt) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  fill(block, bytes, me, salt);
  shmem_barrier_all();
  std::vector<unsigned char> copy(bytes + 1);
  shmem_getmem(copy.data(), block, bytes, right);
  CHECK(holds(copy.data(), bytes, right, salt));
  shmem_barrier_all();
  fill(copy.data(), bytes, me, salt + 1);
  shmem_putmem(block, copy.data(), bytes, right);
  shmem_barrier_all();
  CHECK(holds(block, bytes, left, salt + 1));
  shmem_barrier_all();
}

void test_malloc_free() {
  const size_t sizes[] = {1, 7, 8, 64, 1000, 4096, 65536 + 3, 1 << 20};
  std::vector<void*> blocks;
  int salt = 0;
  for (size_t size : sizes) {
    void* p = shmem_malloc(size);
    if (!CHECK(p != nullptr)) continue;
    CHECK(reinterpret_cast<uintptr_t>(p) % natural_alignment(size) == 0);  // suitably aligned
    CHECK(shmem_addr_accessible(p, (shmem_my_pe() + 1) % shmem_n_pes()) == 1);
    check_symmetric(p, size, ++salt);
    blocks.push_back(p);
  }
  // The blocks do not overlap: each still holds what it was last given.
  const int left = (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
  salt = 0;
  size_t index = 0;
  for (size_t size : sizes) {
    ++salt;
    if (index < blocks.size()) CHECK(holds(blocks[index++], size, left, salt + 1));
  }
  // Free every other block, allocate again in between: still symmetric.
  for (size_t i = 0; i < blocks.size(); i += 2) shmem_free(blocks[i]);
  std::vector<void*> again;
  for (size_t i = 0; i < blocks.size(); i += 2) {
    void* p = shmem_malloc(sizes[i] / 2 + 5);
    if (CHECK(p != nullptr)) {
      check_symmetric(p, sizes[i] / 2 + 5, 40 + static_cast<int>(i));
      again.push_back(p);
    }
  }
  for (size_t i = 1; i < blocks.size(); i += 2) shmem_free(blocks[i]);
  for (void* p : again) shmem_free(p);
  shmem_free(nullptr);  // no action
  // Many small blocks.
  std::vector<int*> small;
  for (int i = 0; i < 200; ++i) {
    int* p = static_cast<int*>(shmem_malloc(sizeof(int) * (1 + i % 5)));
    if (!CHECK(p != nullptr)) break;
    *p = i;
    small.push_back(p);
  }
  shmem_barrier_all();
  const int right = (shmem_my_pe() + 1) % shmem_n_pes();
  for (size_t i = 0; i < small.size(); ++i) CHECK(shmem_int_g(small[i], right) == static_cast<int>(i));
  shmem_barrier_all();
  for (int* p : small) shmem_free(p);
}

void test_calloc() {
  // Dirty a region first, so that zeroes cannot come from fresh pages alone.
  void* dirty = shmem_malloc(1 << 16);
  if (dirty != nullptr) std::memset(dirty, 0xa5, 1 << 16);
  shmem_free(dirty);
  const size_t counts[] = {1, 3, 100, 5000};
  for (size_t count : counts) {
    long* p = static_cast<long*>(shmem_calloc(count, sizeof(long)));
    if (!CHECK(p != nullptr)) continue;
    bool zero = true;
    for (size_t i = 0; i < count; ++i) zero = zero && p[i] == 0;
    CHECK(zero);
    check_symmetric(p, count * sizeof(long), 60);
    shmem_free(p);
  }
  // The zeroing is over on every PE before any returns: a put right after
  // the call is not wiped out by the owner's zeroing.
  {
    const int me = shmem_my_pe();
    const int n = shmem_n_pes();
    long* fresh = static_cast<long*>(shmem_calloc(static_cast<size_t>(n), sizeof(long)));
    if (CHECK(fresh != nullptr)) {
      shmem_long_p(&fresh[me], me + 1, (me + 1) % n);
      shmem_barrier_all();
      const int left = (me + n - 1) % n;
      for (int i = 0; i < n; ++i) CHECK(fresh[i] == (i == left ? left + 1 : 0));
      shmem_free(fresh);
    }
  }
  double* d = static_cast<double*>(shmem_calloc(17, sizeof(double)));
  if (CHECK(d != nullptr)) {
    bool zero = true;
    for (int i = 0; i < 17; ++i) zero = zero && d[i] == 0.0;
    CHECK(zero);
    shmem_free(d);
  }
}

void test_realloc() {
  const int me = shmem_my_pe();
  const int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
  // realloc(NULL, size) behaves as malloc.
  char* p = static_cast<char*>(shmem_realloc(nullptr, 100));
  if (!CHECK(p != nullptr)) return;
  check_symmetric(p, 100, 70);  // now holds the left neighbour's pattern, salt 71
  // A block after it, so that growing in place is not always possible.
  void* fence_block = shmem_malloc(64);
  // Grow: contents kept up to the old size, new block symmetric.
  const size_t grown_sizes[] = {200, 5000, 1 << 20};
  for (size_t grown : grown_sizes) {
    char* q = static_cast<char*>(shmem_realloc(p, grown));
    if (!CHECK(q != nullptr)) break;
    p = q;
    CHECK(holds(p, 100, left, 71));
  }
  check_symmetric(p, 1 << 20, 72);
  // Shrink: contents kept up to the new size.
  char* q = static_cast<char*>(shmem_realloc(p, 50));
  if (CHECK(q != nullptr)) {
    p = q;
    CHECK(holds(p, 50, left, 73));
    check_symmetric(p, 50, 74);
  }
  // realloc(p, 0) frees.
  char* gone = static_cast<char*>(shmem_realloc(p, 0));
  (void)gone;  // either NULL or a block the library owns; nothing to check
  shmem_free(fence_block);
}

void test_align() {
  const size_t alignments[] = {8, 16, 64, 256, 4096, 65536};
  for (size_t alignment : alignments) {
    void* p = shmem_align(alignment, 3 * alignment + 1);
    if (!CHECK(p != nullptr)) continue;
    CHECK(reinterpret_cast<uintptr_t>(p) % alignment == 0);
    check_symmetric(p, 3 * alignment + 1, static_cast<int>(alignment % 97));
    // An unaligned allocation in between keeps the next one honest.
    void* odd = shmem_malloc(3);
    shmem_free(p);
    shmem_free(odd);
  }
  // Beyond the 2 MiB of a huge page, up to what the heap (256 MiB by
  // default) can hold at such an offset.
  for (size_t alignment : {size_t{2} << 20, size_t{16} << 20, size_t{64} << 20}) {
    void* p = shmem_align(alignment, 4096);
    if (!CHECK(p != nullptr)) continue;
    CHECK(reinterpret_cast<uintptr_t>(p) % alignment == 0);
    check_symmetric(p, 4096, static_cast<int>(alignment % 89));
    shmem_free(p);
  }
  // An alignment the heap cannot hold: NULL on every PE, nothing leaked.
  void* never = shmem_align(size_t{1} << 40, 64);
  CHECK(never == nullptr);
  CHECK(tern_sum_long(never == nullptr ? 1 : 0) == shmem_n_pes());
}

void test_hints() {
#if TERN_SHMEM_1_5
  const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                        SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
  const int n = shmem_n_pes();
  for (long hint : hints) {
    long* p = static_cast<long*>(shmem_malloc_with_hints(64 * sizeof(long), hint));
    if (!CHECK(p != nullptr)) continue;
    check_symmetric(p, 64 * sizeof(long), 80);
    p[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(p, shmem_my_pe() + 1, 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) CHECK(p[0] == static_cast<long>(n) * (n + 1) / 2);
    // realloc keeps working on a hinted block.
    long* q = static_cast<long*>(shmem_realloc(p, 128 * sizeof(long)));
    if (CHECK(q != nullptr)) p = q;
    shmem_free(p);
  }
  void* zero = shmem_malloc_with_hints(0, 0);
  shmem_free(zero);
#endif
}

void test_legacy() {
  long* p = static_cast<long*>(shmalloc(40 * sizeof(long)));
  if (!CHECK(p != nullptr)) return;
  check_symmetric(p, 40 * sizeof(long), 90);
  const int left = (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
  long* q = static_cast<long*>(shrealloc(p, 4000 * sizeof(long)));
  if (CHECK(q != nullptr)) {
    p = q;
    CHECK(holds(p, 40 * sizeof(long), left, 91));
    check_symmetric(p, 4000 * sizeof(long), 92);
  }
  shfree(p);
  void* a = shmemalign(4096, 10);
  if (CHECK(a != nullptr)) {
    CHECK(reinterpret_cast<uintptr_t>(a) % 4096 == 0);
    check_symmetric(a, 10, 93);
  }
  shfree(a);
}

size_t parse_size(const char* text) {
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  switch (end != nullptr ? *end : '\0') {
    case 'k': case 'K': value <<= 10; break;
    case 'm': case 'M': value <<= 20; break;
    case 'g': case 'G': value <<= 30; break;
    default: break;
  }
  return static_cast<size_t>(value);
}

// SHMEM_SYMMETRIC_SIZE is honoured: what does not fit is refused on every PE.
void test_limit() {
  const char* text = std::getenv("SHMEM_SYMMETRIC_SIZE");
  if (!CHECK(text != nullptr)) return;
  const size_t heap = parse_size(text);
  if (!CHECK(heap >= (1u << 20))) return;
  void* fits = shmem_malloc(heap / 4);
  CHECK(fits != nullptr);
  if (fits != nullptr) check_symmetric(fits, heap / 4, 100);
  const int left = (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
  void* too_big = shmem_malloc(4 * heap);
  CHECK(too_big == nullptr);
  CHECK(tern_sum_long(too_big == nullptr ? 1 : 0) == shmem_n_pes());  // on every PE
  void* too_big_aligned = shmem_align(4096, 2 * heap);
  CHECK(too_big_aligned == nullptr);
  // Half the heap is an alignment the heap can still give.
  void* half_aligned = shmem_align(heap / 2, 64);
  if (CHECK(half_aligned != nullptr)) {
    CHECK(reinterpret_cast<uintptr_t>(half_aligned) % (heap / 2) == 0);
    shmem_free(half_aligned);
  }
  void* too_big_zeroed = shmem_calloc(heap, 8);
  CHECK(too_big_zeroed == nullptr);
  if (fits != nullptr) {
    // A realloc that cannot be served returns NULL and leaves the block alone.
    void* grown = shmem_realloc(fits, 3 * heap);
    CHECK(grown == nullptr);
    if (grown == nullptr) {
      CHECK(holds(fits, heap / 4, left, 101));
    } else {
      fits = grown;
    }
  }
  // The heap still serves what fits.
  void* more = shmem_malloc(heap / 8);
  CHECK(more != nullptr);
  if (more != nullptr) check_symmetric(more, heap / 8, 102);
  shmem_free(more);
  shmem_free(fits);
  // All of it is usable again: a block of half the heap.
  void* half = shmem_malloc(heap / 2);
  CHECK(half != nullptr);
  shmem_free(half);
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const bool limit = argc > 1 && std::strcmp(argv[1], "limit") == 0;
  if (limit) {
    test_limit();
  } else {
    test_malloc_free();
    test_calloc();
    test_realloc();
    test_align();
    test_hints();
    test_legacy();
  }
  const int rc = tern_conclude(limit ? "shmem_heap_limit" : "shmem_heap");
  shmem_finalize();
  return rc;
}
