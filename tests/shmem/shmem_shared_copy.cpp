// Large puts and gets between PEs on one node, in the situations that decide
// whether the peer copies half of them: the peer waiting in a barrier (it
// takes the half), the peer busy outside the library (the caller takes the
// half back), several PEs at one peer at once (one mailbox: the others copy
// alone), private buffers (never shared), and every PE putting to the next
// while its own peer puts too. Each case checks every byte and the bytes
// just past the message. Run with waits that spin (the CMake test exports
// TERN_WAIT_MODE=adaptive): blocking waits never share.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

constexpr size_t kMaxBytes = size_t{4} << 20;
constexpr size_t kGuard = 64;
// Sizes around and well above where sharing starts (128 KiB), odd ones too.
constexpr size_t kSizes[] = {(size_t{128} << 10) - 1, size_t{128} << 10, (size_t{300} << 10) + 7, size_t{1} << 20,
                             kMaxBytes};

unsigned char g_static_buffer[kMaxBytes + kGuard];

unsigned char pattern(size_t i, unsigned seed) { return static_cast<unsigned char>((i * 131u + seed * 17u) >> 3); }

void fill(unsigned char* buffer, size_t bytes, unsigned seed) {
  for (size_t i = 0; i < bytes; ++i) buffer[i] = pattern(i, seed);
}

// Counts the bytes of [from, to) that differ from the pattern; reports once.
bool matches(const unsigned char* buffer, size_t from, size_t to, unsigned seed) {
  for (size_t i = from; i < to; ++i) {
    if (buffer[i] != pattern(i, seed)) {
      std::fprintf(stderr, "pe %d: byte %zu of [%zu, %zu) is %u, expected %u\n", shmem_my_pe(), i, from, to,
                   buffer[i], pattern(i, seed));
      return false;
    }
  }
  return true;
}

void busy_for(std::chrono::milliseconds how_long) {
  const auto until = std::chrono::steady_clock::now() + how_long;
  volatile unsigned sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
}

// PE 0 puts `bytes` from `source` into PE 1's `dest` `repeats` times while
// PE 1 waits in the barrier (or computes, if `peer_busy`).
void put_case(unsigned char* dest, unsigned char* source, size_t bytes, int repeats, bool peer_busy, unsigned seed) {
  const int me = shmem_my_pe();
  if (me == 0) fill(source, bytes, seed);
  if (me == 1) fill(dest, bytes + kGuard, seed + 1);
  shmem_barrier_all();
  if (me == 0) {
    for (int i = 0; i < repeats; ++i) shmem_putmem(dest, source, bytes, 1);
  } else if (me == 1 && peer_busy) {
    busy_for(std::chrono::milliseconds(20));
  }
  shmem_barrier_all();
  if (me == 1) {
    CHECK(matches(dest, 0, bytes, seed));
    CHECK(matches(dest, bytes, bytes + kGuard, seed + 1));
  }
  shmem_barrier_all();
}

// PE 0 gets `bytes` of PE 1's `source` into its `dest`.
void get_case(unsigned char* dest, unsigned char* source, size_t bytes, int repeats, bool peer_busy, unsigned seed) {
  const int me = shmem_my_pe();
  if (me == 1) fill(source, bytes, seed);
  if (me == 0) fill(dest, bytes + kGuard, seed + 1);
  shmem_barrier_all();
  if (me == 0) {
    for (int i = 0; i < repeats; ++i) shmem_getmem(dest, source, bytes, 1);
    CHECK(matches(dest, 0, bytes, seed));
    CHECK(matches(dest, bytes, bytes + kGuard, seed + 1));
  } else if (me == 1 && peer_busy) {
    busy_for(std::chrono::milliseconds(20));
  }
  shmem_barrier_all();
}

// Every other PE puts its own slice into PE 0's buffer at once, while PE 0
// waits: they contend for its one mailbox.
void many_to_one(unsigned char* heap, size_t slice, unsigned seed) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  unsigned char* mine = heap + static_cast<size_t>(me) * (slice + kGuard);
  fill(mine, slice, seed + static_cast<unsigned>(me));
  if (me == 0) fill(heap, static_cast<size_t>(n) * (slice + kGuard), seed + 1000);
  shmem_barrier_all();
  if (me != 0) shmem_putmem(mine, mine, slice, 0);
  shmem_barrier_all();
  if (me == 0) {
    for (int pe = 1; pe < n; ++pe) {
      const size_t at = static_cast<size_t>(pe) * (slice + kGuard);
      // What is there now is PE `pe`'s pattern, indexed from its own slice.
      CHECK(matches(heap + at, 0, slice, seed + static_cast<unsigned>(pe)));
      CHECK(matches(heap, at + slice, at + slice + kGuard, seed + 1000));
    }
  }
  shmem_barrier_all();
}

// Every PE puts to the next one while the previous one puts to it.
void ring(unsigned char* dest, unsigned char* source, size_t bytes, unsigned seed) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  fill(source, bytes, seed + static_cast<unsigned>(me));
  fill(dest, bytes + kGuard, seed + 500);
  shmem_barrier_all();
  shmem_putmem(dest, source, bytes, (me + 1) % n);
  shmem_getmem(source, dest, 0, (me + 1) % n);  // a zero-length get in between changes nothing
  shmem_barrier_all();
  const unsigned from = static_cast<unsigned>((me + n - 1) % n);
  CHECK(matches(dest, 0, bytes, seed + from));
  CHECK(matches(dest, bytes, bytes + kGuard, seed + 500));
  shmem_barrier_all();
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  auto* a = static_cast<unsigned char*>(shmem_malloc(kMaxBytes + kGuard));
  auto* b = static_cast<unsigned char*>(shmem_malloc(kMaxBytes + kGuard));
  const size_t slice = size_t{256} << 10;
  auto* slices = static_cast<unsigned char*>(shmem_malloc(static_cast<size_t>(n) * (slice + kGuard)));
  std::vector<unsigned char> private_buffer(kMaxBytes + kGuard);
  CHECK(a != nullptr && b != nullptr && slices != nullptr);
  if (a != nullptr && b != nullptr && slices != nullptr && n >= 2) {
    unsigned seed = 1;
    for (size_t bytes : kSizes) {
      for (bool busy : {false, true}) {
        const int repeats = busy ? 1 : 3;
        put_case(b, a, bytes, repeats, busy, seed += 2);                 // heap to heap
        put_case(b, g_static_buffer, bytes, repeats, busy, seed += 2);   // static to heap
        put_case(g_static_buffer, a, bytes, repeats, busy, seed += 2);   // heap to static
        get_case(b, a, bytes, repeats, busy, seed += 2);                 // heap to heap
        get_case(g_static_buffer, a, bytes, repeats, busy, seed += 2);   // heap to static
        // A private buffer on this side: never shared, still whole.
        if (me == 0) std::memset(private_buffer.data(), 0, private_buffer.size());
        put_case(b, private_buffer.data(), bytes, repeats, busy, seed += 2);
        get_case(private_buffer.data(), a, bytes, repeats, busy, seed += 2);
      }
    }
    many_to_one(slices, slice, seed += 2);
    ring(b, a, size_t{1} << 20, seed += 2);
  }
  shmem_free(slices);
  shmem_free(b);
  shmem_free(a);
  const int rc = tern_conclude("shmem_shared_copy");
  shmem_finalize();
  return rc;
}
