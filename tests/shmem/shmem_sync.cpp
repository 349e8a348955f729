// Ordering and point-to-point synchronization: fence (puts to one PE arrive
// in order), quiet (completion seen by a third PE), barrier_all and sync_all;
// wait_until and test for every point-to-point type and every comparison;
// wait_until_all/_any/_some and their _vector forms, test_all/_any/_some and
// their _vector forms (1.5); the legacy shmem_TYPE_wait; put-with-signal
// (SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD, blocking and nbi, typed, sized,
// mem and ctx forms), signal_fetch and signal_wait_until (1.5).
#include <shmem.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "check.h"

namespace {

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// --- fence / quiet / barrier_all / sync_all ---------------------------------

constexpr size_t kBlock = 1 << 16;
unsigned char g_block[kBlock];
long g_flag = 0;
long g_ack = 0;

unsigned char block_byte(int pe, int round, size_t i) {
  return static_cast<unsigned char>((pe * 7 + round * 13 + i * 3) & 0xff);
}

// Ring: data to the right, fence, then the flag; the right neighbour sees the
// data once it sees the flag, acknowledges, and the next round begins.
void test_fence(unsigned char* heap_block) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  std::vector<unsigned char> out(kBlock);
  g_flag = 0;
  g_ack = 0;
  shmem_barrier_all();
  const int rounds = 24;
  for (int r = 0; r < rounds; ++r) {
    const size_t bytes = (r % 3 == 0) ? 8 : (r % 3 == 1) ? 1000 : kBlock;
    unsigned char* dest = (r % 2 == 0) ? heap_block : g_block;
    for (size_t i = 0; i < bytes; ++i) out[i] = block_byte(me, r, i);
    switch (r % 4) {
      case 0: shmem_putmem(dest, out.data(), bytes, right); break;
      case 1: shmem_putmem_nbi(dest, out.data(), bytes, right); break;
      case 2: shmem_char_iput(reinterpret_cast<char*>(dest), reinterpret_cast<char*>(out.data()), 1, 1, bytes, right); break;
      default: shmem_ctx_putmem(SHMEM_CTX_DEFAULT, dest, out.data(), bytes, right); break;
    }
    if (r % 2 == 0) {
      shmem_fence();
    } else {
      shmem_ctx_fence(SHMEM_CTX_DEFAULT);
    }
    if (r % 3 == 0) {
      shmem_long_p(&g_flag, r + 1, right);
    } else {
      shmem_long_atomic_set(&g_flag, r + 1, right);
    }
    shmem_long_wait_until(&g_flag, SHMEM_CMP_GE, r + 1);
    CHECK(g_flag == r + 1);
    bool ok = true;
    for (size_t i = 0; i < bytes; ++i) ok = ok && dest[i] == block_byte(left, r, i);
    CHECK(ok);
    shmem_long_atomic_set(&g_ack, r + 1, left);
    shmem_long_wait_until(&g_ack, SHMEM_CMP_GE, r + 1);
    if (r % 2 == 1) shmem_quiet();  // the nbi source buffer is reused next round
  }
  shmem_barrier_all();
}

// Quiet: once A has quieted its put to B, a third PE C told so by A reads
// the new data from B.
void test_quiet(unsigned char* heap_block) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int b = (me + 1) % n;
  const int c = (me + 2) % n;
  const int a_of_mine = (me + n - 2) % n;  // the A that signals me (as C) ...
  const int b_of_mine = (me + n - 1) % n;  // ... about its data on this B
  const size_t slot = kBlock / 4;          // each B is written by its left neighbour only
  static long flags[1];
  flags[0] = 0;
  shmem_barrier_all();
  std::vector<unsigned char> out(slot);
  for (int r = 0; r < 8; ++r) {
    for (size_t i = 0; i < slot; ++i) out[i] = block_byte(me, r, i);
    unsigned char* dest = heap_block;
    if (r % 2 == 0) {
      shmem_putmem(dest, out.data(), slot, b);
    } else {
      shmem_putmem_nbi(dest, out.data(), slot, b);
    }
    shmem_quiet();
    shmem_long_atomic_set(&flags[0], r + 1, c);  // C is signalled by this A only
    shmem_long_wait_until(&flags[0], SHMEM_CMP_GE, r + 1);
    std::vector<unsigned char> got(slot);
    shmem_getmem(got.data(), heap_block, slot, b_of_mine);
    bool ok = true;
    for (size_t i = 0; i < slot; ++i) ok = ok && got[i] == block_byte(a_of_mine, r, i);
    CHECK(ok);
    shmem_barrier_all();
  }
}

void test_barriers() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  static long table[64];
  std::vector<long> mine(1);
  for (int r = 0; r < 10; ++r) {
    for (int pe = 0; pe < n; ++pe) {
      const long v = 1000L * r + me;
      if ((r + pe) % 2 == 0) {
        shmem_long_p(&table[me % 64], v, pe);
      } else {
        mine[0] = v;
        shmem_long_put_nbi(&table[me % 64], mine.data(), 1, pe);
      }
    }
    shmem_barrier_all();  // completes every put and synchronizes
    bool ok = true;
    for (int pe = 0; pe < n && pe < 64; ++pe) ok = ok && table[pe] == 1000L * r + pe;
    CHECK(ok);
    shmem_barrier_all();  // nobody overwrites before everybody checked
  }
  // sync_all synchronizes; with a quiet before it the data is there too.
  for (int r = 0; r < 10; ++r) {
    for (int pe = 0; pe < n; ++pe) shmem_long_p(&table[me % 64], -1000L * r - me, pe);
    shmem_quiet();
    shmem_sync_all();
    bool ok = true;
    for (int pe = 0; pe < n && pe < 64; ++pe) ok = ok && table[pe] == -1000L * r - pe;
    CHECK(ok);
    shmem_sync_all();
  }
}

// --- wait_until / test for every point-to-point type ------------------------

#define TERN_P2P_TYPES(X)                                                                           \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)        \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

#if TERN_SHMEM_1_5
#define TERN_P2P_15(T, N)                                                                                 \
  static void wait_all(T* v, size_t n, const int* st, int c, T x) { shmem_##N##_wait_until_all(v, n, st, c, x); } \
  static size_t wait_any(T* v, size_t n, const int* st, int c, T x) {                                     \
    return shmem_##N##_wait_until_any(v, n, st, c, x);                                                    \
  }                                                                                                       \
  static size_t wait_some(T* v, size_t n, size_t* idx, const int* st, int c, T x) {                       \
    return shmem_##N##_wait_until_some(v, n, idx, st, c, x);                                              \
  }                                                                                                       \
  static void wait_all_v(T* v, size_t n, const int* st, int c, const T* x) {                              \
    shmem_##N##_wait_until_all_vector(v, n, st, c, x);                                                    \
  }                                                                                                       \
  static size_t wait_any_v(T* v, size_t n, const int* st, int c, const T* x) {                            \
    return shmem_##N##_wait_until_any_vector(v, n, st, c, x);                                             \
  }                                                                                                       \
  static size_t wait_some_v(T* v, size_t n, size_t* idx, const int* st, int c, const T* x) {              \
    return shmem_##N##_wait_until_some_vector(v, n, idx, st, c, x);                                       \
  }                                                                                                       \
  static int test_all(T* v, size_t n, const int* st, int c, T x) { return shmem_##N##_test_all(v, n, st, c, x); } \
  static size_t test_any(T* v, size_t n, const int* st, int c, T x) { return shmem_##N##_test_any(v, n, st, c, x); } \
  static size_t test_some(T* v, size_t n, size_t* idx, const int* st, int c, T x) {                       \
    return shmem_##N##_test_some(v, n, idx, st, c, x);                                                    \
  }                                                                                                       \
  static int test_all_v(T* v, size_t n, const int* st, int c, const T* x) {                               \
    return shmem_##N##_test_all_vector(v, n, st, c, x);                                                   \
  }                                                                                                       \
  static size_t test_any_v(T* v, size_t n, const int* st, int c, const T* x) {                            \
    return shmem_##N##_test_any_vector(v, n, st, c, x);                                                   \
  }                                                                                                       \
  static size_t test_some_v(T* v, size_t n, size_t* idx, const int* st, int c, const T* x) {              \
    return shmem_##N##_test_some_vector(v, n, idx, st, c, x);                                             \
  }
#else
#define TERN_P2P_15(T, N)
#endif

#define TERN_DEFINE_P2P(T, N)                                                                  \
  struct P2p_##N {                                                                             \
    using type = T;                                                                            \
    static void p(T* d, T v, int pe) { shmem_##N##_p(d, v, pe); }                              \
    static void wait_until(T* v, int c, T x) { shmem_##N##_wait_until(v, c, x); }              \
    static int test(T* v, int c, T x) { return shmem_##N##_test(v, c, x); }                    \
    TERN_P2P_15(T, N)                                                                          \
  };                                                                                           \
  T g_ivars_##N[32];
TERN_P2P_TYPES(TERN_DEFINE_P2P)

struct CmpCase {
  int cmp;
  long before, after, value;  // the condition is false for `before`, true for `after`
};
constexpr CmpCase kCmpCases[] = {
    {SHMEM_CMP_EQ, 0, 5, 5}, {SHMEM_CMP_NE, 5, 7, 5}, {SHMEM_CMP_GT, 5, 6, 5},
    {SHMEM_CMP_GE, 4, 5, 5}, {SHMEM_CMP_LT, 5, 4, 5}, {SHMEM_CMP_LE, 6, 5, 5},
};
constexpr size_t kCmpCount = sizeof(kCmpCases) / sizeof(kCmpCases[0]);

template <class R>
void test_wait_single(typename R::type* ivars) {
  using T = typename R::type;
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  for (size_t k = 0; k < kCmpCount; ++k) ivars[k] = static_cast<T>(kCmpCases[k].before);
  // Nobody writes yet: every test is false.
  for (size_t k = 0; k < kCmpCount; ++k) {
    CHECK(R::test(&ivars[k], kCmpCases[k].cmp, static_cast<T>(kCmpCases[k].value)) == 0);
  }
  shmem_barrier_all();
  for (size_t k = 0; k < kCmpCount; ++k) {
    if (k == 2) pause_ms(20);  // the waiter really waits
    R::p(&ivars[k], static_cast<T>(kCmpCases[k].after), right);
    shmem_quiet();
  }
  for (size_t k = 0; k < kCmpCount; ++k) {
    const T value = static_cast<T>(kCmpCases[k].value);
    if (k % 2 == 0) {
      R::wait_until(&ivars[k], kCmpCases[k].cmp, value);
    } else {
      while (R::test(&ivars[k], kCmpCases[k].cmp, value) == 0) {
      }
    }
    CHECK(ivars[k] == static_cast<T>(kCmpCases[k].after));
    CHECK(R::test(&ivars[k], kCmpCases[k].cmp, value) == 1);
  }
  shmem_barrier_all();
}

#if TERN_SHMEM_1_5
template <class R>
void test_wait_multi(typename R::type* ivars) {
  using T = typename R::type;
  constexpr size_t kN = 8;
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  auto reset = [&] {
    for (size_t i = 0; i < kN; ++i) ivars[i] = T(0);
  };
  int status[kN] = {0, 0, 0, 1, 0, 0, 0, 0};  // index 3 excluded
  size_t indices[kN];

  // wait_until_all with a status mask: index 3 is never written.
  reset();
  shmem_barrier_all();
  for (size_t i = 0; i < kN; ++i) {
    if (i == 3) continue;
    if (i == 6) pause_ms(10);
    R::p(&ivars[i], T(1), right);
  }
  shmem_quiet();
  R::wait_all(ivars, kN, status, SHMEM_CMP_EQ, T(1));
  bool all = true;
  for (size_t i = 0; i < kN; ++i) all = all && ivars[i] == (i == 3 ? T(0) : T(1));
  CHECK(all);
  CHECK(R::test_all(ivars, kN, status, SHMEM_CMP_EQ, T(1)) == 1);
  CHECK(R::test_all(ivars, kN, nullptr, SHMEM_CMP_EQ, T(1)) == 0);
  shmem_barrier_all();

  // wait_until_all without a mask.
  reset();
  shmem_barrier_all();
  for (size_t i = 0; i < kN; ++i) R::p(&ivars[kN - 1 - i], T(2), right);
  shmem_quiet();
  R::wait_all(ivars, kN, nullptr, SHMEM_CMP_GE, T(2));
  all = true;
  for (size_t i = 0; i < kN; ++i) all = all && ivars[i] == T(2);
  CHECK(all);
  shmem_barrier_all();

  // wait_until_any: only index 5 is written.
  reset();
  CHECK(R::test_any(ivars, kN, nullptr, SHMEM_CMP_NE, T(0)) == SIZE_MAX);
  shmem_barrier_all();
  pause_ms(10);
  R::p(&ivars[5], T(9), right);
  shmem_quiet();
  CHECK(R::wait_any(ivars, kN, nullptr, SHMEM_CMP_NE, T(0)) == 5);
  CHECK(R::test_any(ivars, kN, nullptr, SHMEM_CMP_NE, T(0)) == 5);
  shmem_barrier_all();

  // wait_until_any: index 3 is written but masked; index 6 comes later.
  reset();
  shmem_barrier_all();
  R::p(&ivars[3], T(4), right);
  shmem_quiet();
  pause_ms(10);
  R::p(&ivars[6], T(4), right);
  shmem_quiet();
  CHECK(R::wait_any(ivars, kN, status, SHMEM_CMP_EQ, T(4)) == 6);
  shmem_barrier_all();

  // wait_until_some: indices 1, 4 and 7 are written; all found, nothing else.
  reset();
  shmem_barrier_all();
  const size_t written[] = {1, 4, 7};
  for (size_t w : written) {
    R::p(&ivars[w], T(3), right);
    shmem_quiet();
    pause_ms(2);
  }
  int found[kN] = {0};
  int mask[kN] = {0};
  size_t total_found = 0;
  while (total_found < 3) {
    const size_t got = R::wait_some(ivars, kN, indices, mask, SHMEM_CMP_EQ, T(3));
    CHECK(got >= 1 && got <= kN);
    if (got < 1 || got > kN) break;
    for (size_t j = 0; j < got; ++j) {
      const size_t index = indices[j];
      if (!CHECK(index < kN)) continue;
      CHECK(index == 1 || index == 4 || index == 7);
      CHECK(found[index] == 0);
      found[index] = 1;
      mask[index] = 1;  // wait for the others next time
      ++total_found;
    }
  }
  CHECK(total_found == 3);
  CHECK(R::test_some(ivars, kN, indices, nullptr, SHMEM_CMP_EQ, T(3)) == 3);
  CHECK(R::test_some(ivars, kN, indices, mask, SHMEM_CMP_EQ, T(3)) == 0);
  shmem_barrier_all();

  // Vector forms: element i waits for i + 1.
  T wanted[kN];
  for (size_t i = 0; i < kN; ++i) wanted[i] = static_cast<T>(i + 1);
  reset();
  CHECK(R::test_all_v(ivars, kN, nullptr, SHMEM_CMP_EQ, wanted) == 0);
  CHECK(R::test_any_v(ivars, kN, nullptr, SHMEM_CMP_EQ, wanted) == SIZE_MAX);
  CHECK(R::test_some_v(ivars, kN, indices, nullptr, SHMEM_CMP_EQ, wanted) == 0);
  shmem_barrier_all();
  R::p(&ivars[2], wanted[2], right);
  shmem_quiet();
  CHECK(R::wait_any_v(ivars, kN, nullptr, SHMEM_CMP_EQ, wanted) == 2);
  shmem_barrier_all();  // only index 2 is written until everybody has looked
  for (size_t i = 0; i < kN; ++i) {
    if (i != 2) R::p(&ivars[i], wanted[i], right);
  }
  shmem_quiet();
  R::wait_all_v(ivars, kN, nullptr, SHMEM_CMP_EQ, wanted);
  all = true;
  for (size_t i = 0; i < kN; ++i) all = all && ivars[i] == wanted[i];
  CHECK(all);
  CHECK(R::test_all_v(ivars, kN, nullptr, SHMEM_CMP_EQ, wanted) == 1);
  CHECK(R::test_any_v(ivars, kN, status, SHMEM_CMP_EQ, wanted) != 3);
  const size_t some = R::wait_some_v(ivars, kN, indices, status, SHMEM_CMP_EQ, wanted);
  CHECK(some >= 1 && some <= kN - 1);
  bool none_masked = true;
  for (size_t j = 0; j < some && j < kN; ++j) none_masked = none_masked && indices[j] != 3 && indices[j] < kN;
  CHECK(none_masked);
  CHECK(R::test_some_v(ivars, kN, indices, status, SHMEM_CMP_EQ, wanted) == kN - 1);
  shmem_barrier_all();

  // Local, deterministic: 0, 1, ..., 7.
  for (size_t i = 0; i < kN; ++i) ivars[i] = static_cast<T>(i);
  CHECK(R::test_all(ivars, kN, nullptr, SHMEM_CMP_GE, T(0)) == 1);
  CHECK(R::test_all(ivars, kN, nullptr, SHMEM_CMP_GT, T(0)) == 0);
  const int skip_zero[kN] = {1, 0, 0, 0, 0, 0, 0, 0};
  CHECK(R::test_all(ivars, kN, skip_zero, SHMEM_CMP_GT, T(0)) == 1);
  const size_t any = R::test_any(ivars, kN, nullptr, SHMEM_CMP_GE, T(5));
  CHECK(any >= 5 && any < kN);
  CHECK(R::test_any(ivars, kN, nullptr, SHMEM_CMP_GT, T(7)) == SIZE_MAX);
  const size_t count = R::test_some(ivars, kN, indices, nullptr, SHMEM_CMP_GE, T(5));
  CHECK(count == 3);
  bool in_range = true;
  size_t index_sum = 0;
  for (size_t j = 0; j < count && j < kN; ++j) {
    in_range = in_range && indices[j] >= 5 && indices[j] < kN;
    index_sum += indices[j];
  }
  CHECK(in_range && index_sum == 5 + 6 + 7);
  CHECK(R::wait_any(ivars, kN, nullptr, SHMEM_CMP_LT, T(1)) == 0);  // already true
  CHECK(R::wait_some(ivars, kN, indices, nullptr, SHMEM_CMP_EQ, T(7)) == 1 && indices[0] == 7);
  // Empty sets: nelems 0, or every element masked.
  const int all_masked[kN] = {1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(R::test_any(ivars, 0, nullptr, SHMEM_CMP_GE, T(0)) == SIZE_MAX);
  CHECK(R::test_any(ivars, kN, all_masked, SHMEM_CMP_GE, T(0)) == SIZE_MAX);
  CHECK(R::test_some(ivars, 0, indices, nullptr, SHMEM_CMP_GE, T(0)) == 0);
  CHECK(R::test_some(ivars, kN, indices, all_masked, SHMEM_CMP_GE, T(0)) == 0);
  CHECK(R::test_all(ivars, 0, nullptr, SHMEM_CMP_GT, T(100)) == 1);
  CHECK(R::wait_any(ivars, 0, nullptr, SHMEM_CMP_GT, T(100)) == SIZE_MAX);
  CHECK(R::wait_any(ivars, kN, all_masked, SHMEM_CMP_GT, T(100)) == SIZE_MAX);
  CHECK(R::wait_some(ivars, 0, indices, nullptr, SHMEM_CMP_GT, T(100)) == 0);
  CHECK(R::wait_some(ivars, kN, indices, all_masked, SHMEM_CMP_GT, T(100)) == 0);
  R::wait_all(ivars, 0, nullptr, SHMEM_CMP_GT, T(100));           // returns at once
  R::wait_all(ivars, kN, all_masked, SHMEM_CMP_GT, T(100));       // returns at once
  R::wait_all_v(ivars, kN, all_masked, SHMEM_CMP_GT, wanted);     // returns at once
  CHECK(R::wait_any_v(ivars, kN, all_masked, SHMEM_CMP_GT, wanted) == SIZE_MAX);
  CHECK(R::wait_some_v(ivars, kN, indices, all_masked, SHMEM_CMP_GT, wanted) == 0);
  shmem_barrier_all();
}
#endif

template <class R>
void test_p2p_type(typename R::type* ivars) {
  test_wait_single<R>(ivars);
#if TERN_SHMEM_1_5
  test_wait_multi<R>(ivars + kCmpCount);
#endif
}

// Legacy: shmem_TYPE_wait returns once the variable differs from the value.
short g_wait_short = 0;
int g_wait_int = 0;
long g_wait_long = 0;
long long g_wait_longlong = 0;

void test_legacy_wait() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  g_wait_short = 1;
  g_wait_int = 1;
  g_wait_long = 1;
  g_wait_longlong = 1;
  shmem_barrier_all();
  pause_ms(10);
  shmem_short_p(&g_wait_short, 2, right);
  shmem_int_p(&g_wait_int, 2, right);
  shmem_long_p(&g_wait_long, 2, right);
  shmem_longlong_p(&g_wait_longlong, 2, right);
  shmem_quiet();
  shmem_short_wait(&g_wait_short, 1);
  shmem_int_wait(&g_wait_int, 1);
  shmem_long_wait(&g_wait_long, 1);
  shmem_longlong_wait(&g_wait_longlong, 1);
  CHECK(g_wait_short == 2 && g_wait_int == 2 && g_wait_long == 2 && g_wait_longlong == 2);
  shmem_barrier_all();
}

// --- Signals (1.5) -------------------------------------------------------------

#if TERN_SHMEM_1_5
uint64_t g_sig = 0;
uint64_t g_sig_add = 0;
long g_sig_data[1024];
double g_sig_double[64];

void test_signals(unsigned char* heap_block) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  g_sig = 0;
  shmem_barrier_all();
  std::vector<long> out(1024);
  std::vector<double> out_d(64);
  std::vector<unsigned char> out_b(4096);
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  CHECK(shmem_ctx_create(0, &ctx) == 0);
  // SHMEM_SIGNAL_SET, one round per form; the signal says the data is there.
  const int forms = 10;
  for (int r = 0; r < forms; ++r) {
    const uint64_t signal = static_cast<uint64_t>(r + 1);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<long>(me * 100000 + r * 1000 + static_cast<long>(i));
    for (size_t i = 0; i < out_d.size(); ++i) out_d[i] = me + r * 0.5 + static_cast<double>(i);
    for (size_t i = 0; i < out_b.size(); ++i) out_b[i] = block_byte(me, r, i);
    switch (r) {
      case 0: shmem_long_put_signal(g_sig_data, out.data(), 1024, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 1: shmem_long_put_signal_nbi(g_sig_data, out.data(), 1024, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 2: shmem_double_put_signal(g_sig_double, out_d.data(), 64, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 3: shmem_put64_signal(g_sig_data, out.data(), 1024, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 4: shmem_put8_signal_nbi(heap_block, out_b.data(), 4096, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 5: shmem_putmem_signal(heap_block, out_b.data(), 4096, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 6: shmem_putmem_signal_nbi(heap_block, out_b.data(), 1, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 7: shmem_ctx_long_put_signal(ctx, g_sig_data, out.data(), 1024, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      case 8: shmem_ctx_putmem_signal_nbi(ctx, heap_block, out_b.data(), 4096, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
      default: shmem_ctx_put32_signal(SHMEM_CTX_DEFAULT, g_sig_data, out.data(), 2 * 1024, &g_sig, signal, SHMEM_SIGNAL_SET, right); break;
    }
    const uint64_t seen = (r % 2 == 0) ? shmem_signal_wait_until(&g_sig, SHMEM_CMP_EQ, signal)
                                       : (shmem_uint64_wait_until(&g_sig, SHMEM_CMP_GE, signal), shmem_signal_fetch(&g_sig));
    CHECK(seen == signal);
    CHECK(shmem_signal_fetch(&g_sig) == signal);
    bool ok = true;
    if (r == 2) {
      for (size_t i = 0; i < 64; ++i) ok = ok && g_sig_double[i] == left + r * 0.5 + static_cast<double>(i);
    } else if (r == 4 || r == 5 || r == 8) {
      for (size_t i = 0; i < 4096; ++i) ok = ok && heap_block[i] == block_byte(left, r, i);
    } else if (r == 6) {
      ok = heap_block[0] == block_byte(left, r, 0);
    } else {
      for (size_t i = 0; i < 1024; ++i) ok = ok && g_sig_data[i] == left * 100000 + r * 1000 + static_cast<long>(i);
    }
    CHECK(ok);
    shmem_quiet();
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_quiet(ctx);
    shmem_barrier_all();  // the next round may overwrite
  }
  // SHMEM_SIGNAL_ADD: every PE adds 1 on every PE; each waits for n.
  for (int r = 0; r < 4; ++r) {
    g_sig_add = 0;
    shmem_barrier_all();
    out[0] = 7000 + me + r;
    for (int k = 0; k < n; ++k) {
      const int pe = (me + k) % n;
      if ((r + k) % 2 == 0) {
        shmem_long_put_signal(&g_sig_data[me % 1024], out.data(), 1, &g_sig_add, 1, SHMEM_SIGNAL_ADD, pe);
      } else {
        shmem_long_put_signal_nbi(&g_sig_data[me % 1024], out.data(), 1, &g_sig_add, 1, SHMEM_SIGNAL_ADD, pe);
      }
    }
    CHECK(shmem_signal_wait_until(&g_sig_add, SHMEM_CMP_EQ, static_cast<uint64_t>(n)) == static_cast<uint64_t>(n));
    bool ok = true;
    for (int pe = 0; pe < n && pe < 1024; ++pe) ok = ok && g_sig_data[pe] == 7000 + pe + r;
    CHECK(ok);
    shmem_quiet();
    shmem_barrier_all();
  }
  if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
}
#endif

}  // namespace

int main() {
  shmem_init();
  auto* heap_block = static_cast<unsigned char*>(shmem_malloc(kBlock));
  CHECK(heap_block != nullptr);
  if (heap_block != nullptr) {
    test_fence(heap_block);
    test_quiet(heap_block);
    test_barriers();
#define TERN_RUN_P2P(T, N) test_p2p_type<P2p_##N>(g_ivars_##N);
    TERN_P2P_TYPES(TERN_RUN_P2P)
    test_legacy_wait();
#if TERN_SHMEM_1_5
    test_signals(heap_block);
#endif
  }
  shmem_free(heap_block);
  const int rc = tern_conclude("shmem_sync");
  shmem_finalize();
  return rc;
}
