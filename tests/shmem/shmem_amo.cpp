// Atomic memory operations. For every standard AMO type: fetch, set, swap,
// compare_swap, fetch_inc, inc, fetch_add, add; for the extended types
// (float, double) fetch, set, swap; for the bitwise types and/or/xor and
// their fetching forms; the non-blocking fetching forms (_nbi, 1.5); each
// through the plain names, the ctx names on SHMEM_CTX_DEFAULT and on a
// created context. First the exact semantics on one PE's word, then every PE
// hammering the same words on one PE: the totals add up exactly, fetched
// values are distinct and monotone where they must be. Then the deprecated
// names (shmem_int_add, _fadd, _finc, _inc, _cswap, _swap, _fetch, _set, and
// the long/longlong/float/double ones), and AMOs on static data.
//
// Optional argument: iterations per PE in the contention tests (default 50).
#include <shmem.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "check.h"

namespace {

int g_iterations = 50;

enum class Via { Plain, DefaultCtx, CreatedCtx };
shmem_ctx_t g_created = SHMEM_CTX_DEFAULT;

shmem_ctx_t ctx_of(Via via) { return via == Via::CreatedCtx ? g_created : SHMEM_CTX_DEFAULT; }
void quiet(Via via) { via == Via::Plain ? shmem_quiet() : shmem_ctx_quiet(ctx_of(via)); }

// --- Per-type routine tables -------------------------------------------------

#define TERN_EXT_OPS(T, N)                                                                        \
  using type = T;                                                                                \
  static T fetch(Via v, const T* s, int pe) {                                                    \
    return v == Via::Plain ? shmem_##N##_atomic_fetch(s, pe) : shmem_ctx_##N##_atomic_fetch(ctx_of(v), s, pe); \
  }                                                                                              \
  static void set(Via v, T* d, T x, int pe) {                                                    \
    v == Via::Plain ? shmem_##N##_atomic_set(d, x, pe) : shmem_ctx_##N##_atomic_set(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static T swap(Via v, T* d, T x, int pe) {                                                      \
    return v == Via::Plain ? shmem_##N##_atomic_swap(d, x, pe) : shmem_ctx_##N##_atomic_swap(ctx_of(v), d, x, pe); \
  }

#define TERN_STD_OPS(T, N)                                                                        \
  TERN_EXT_OPS(T, N)                                                                             \
  static T compare_swap(Via v, T* d, T c, T x, int pe) {                                         \
    return v == Via::Plain ? shmem_##N##_atomic_compare_swap(d, c, x, pe)                        \
                           : shmem_ctx_##N##_atomic_compare_swap(ctx_of(v), d, c, x, pe);        \
  }                                                                                              \
  static T fetch_inc(Via v, T* d, int pe) {                                                      \
    return v == Via::Plain ? shmem_##N##_atomic_fetch_inc(d, pe) : shmem_ctx_##N##_atomic_fetch_inc(ctx_of(v), d, pe); \
  }                                                                                              \
  static void inc(Via v, T* d, int pe) {                                                         \
    v == Via::Plain ? shmem_##N##_atomic_inc(d, pe) : shmem_ctx_##N##_atomic_inc(ctx_of(v), d, pe); \
  }                                                                                              \
  static T fetch_add(Via v, T* d, T x, int pe) {                                                 \
    return v == Via::Plain ? shmem_##N##_atomic_fetch_add(d, x, pe) : shmem_ctx_##N##_atomic_fetch_add(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static void add(Via v, T* d, T x, int pe) {                                                    \
    v == Via::Plain ? shmem_##N##_atomic_add(d, x, pe) : shmem_ctx_##N##_atomic_add(ctx_of(v), d, x, pe); \
  }

#define TERN_BIT_OPS(T, N)                                                                        \
  using type = T;                                                                                \
  static T fetch_and(Via v, T* d, T x, int pe) {                                                 \
    return v == Via::Plain ? shmem_##N##_atomic_fetch_and(d, x, pe) : shmem_ctx_##N##_atomic_fetch_and(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static T fetch_or(Via v, T* d, T x, int pe) {                                                  \
    return v == Via::Plain ? shmem_##N##_atomic_fetch_or(d, x, pe) : shmem_ctx_##N##_atomic_fetch_or(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static T fetch_xor(Via v, T* d, T x, int pe) {                                                 \
    return v == Via::Plain ? shmem_##N##_atomic_fetch_xor(d, x, pe) : shmem_ctx_##N##_atomic_fetch_xor(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static void and_(Via v, T* d, T x, int pe) {                                                   \
    v == Via::Plain ? shmem_##N##_atomic_and(d, x, pe) : shmem_ctx_##N##_atomic_and(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static void or_(Via v, T* d, T x, int pe) {                                                    \
    v == Via::Plain ? shmem_##N##_atomic_or(d, x, pe) : shmem_ctx_##N##_atomic_or(ctx_of(v), d, x, pe); \
  }                                                                                              \
  static void xor_(Via v, T* d, T x, int pe) {                                                   \
    v == Via::Plain ? shmem_##N##_atomic_xor(d, x, pe) : shmem_ctx_##N##_atomic_xor(ctx_of(v), d, x, pe); \
  }

// The non-blocking fetching forms arrived with 1.5.
#if TERN_SHMEM_1_5
#define TERN_EXT_NBI(T, N)                                                                        \
  static constexpr bool has_nbi = true;                                                          \
  static void fetch_nbi(Via v, T* f, const T* s, int pe) {                                       \
    v == Via::Plain ? shmem_##N##_atomic_fetch_nbi(f, s, pe) : shmem_ctx_##N##_atomic_fetch_nbi(ctx_of(v), f, s, pe); \
  }                                                                                              \
  static void swap_nbi(Via v, T* f, T* d, T x, int pe) {                                         \
    v == Via::Plain ? shmem_##N##_atomic_swap_nbi(f, d, x, pe) : shmem_ctx_##N##_atomic_swap_nbi(ctx_of(v), f, d, x, pe); \
  }
#define TERN_STD_NBI(T, N)                                                                        \
  TERN_EXT_NBI(T, N)                                                                             \
  static void compare_swap_nbi(Via v, T* f, T* d, T c, T x, int pe) {                            \
    v == Via::Plain ? shmem_##N##_atomic_compare_swap_nbi(f, d, c, x, pe)                        \
                    : shmem_ctx_##N##_atomic_compare_swap_nbi(ctx_of(v), f, d, c, x, pe);        \
  }                                                                                              \
  static void fetch_inc_nbi(Via v, T* f, T* d, int pe) {                                         \
    v == Via::Plain ? shmem_##N##_atomic_fetch_inc_nbi(f, d, pe) : shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx_of(v), f, d, pe); \
  }                                                                                              \
  static void fetch_add_nbi(Via v, T* f, T* d, T x, int pe) {                                    \
    v == Via::Plain ? shmem_##N##_atomic_fetch_add_nbi(f, d, x, pe) : shmem_ctx_##N##_atomic_fetch_add_nbi(ctx_of(v), f, d, x, pe); \
  }
#define TERN_BIT_NBI(T, N)                                                                        \
  static constexpr bool has_nbi = true;                                                          \
  static void fetch_and_nbi(Via v, T* f, T* d, T x, int pe) {                                    \
    v == Via::Plain ? shmem_##N##_atomic_fetch_and_nbi(f, d, x, pe) : shmem_ctx_##N##_atomic_fetch_and_nbi(ctx_of(v), f, d, x, pe); \
  }                                                                                              \
  static void fetch_or_nbi(Via v, T* f, T* d, T x, int pe) {                                     \
    v == Via::Plain ? shmem_##N##_atomic_fetch_or_nbi(f, d, x, pe) : shmem_ctx_##N##_atomic_fetch_or_nbi(ctx_of(v), f, d, x, pe); \
  }                                                                                              \
  static void fetch_xor_nbi(Via v, T* f, T* d, T x, int pe) {                                    \
    v == Via::Plain ? shmem_##N##_atomic_fetch_xor_nbi(f, d, x, pe) : shmem_ctx_##N##_atomic_fetch_xor_nbi(ctx_of(v), f, d, x, pe); \
  }
#else
#define TERN_EXT_NBI(T, N)                                   \
  static constexpr bool has_nbi = false;                     \
  static void fetch_nbi(Via, T*, const T*, int) {}           \
  static void swap_nbi(Via, T*, T*, T, int) {}
#define TERN_STD_NBI(T, N)                                   \
  TERN_EXT_NBI(T, N)                                         \
  static void compare_swap_nbi(Via, T*, T*, T, T, int) {}    \
  static void fetch_inc_nbi(Via, T*, T*, int) {}             \
  static void fetch_add_nbi(Via, T*, T*, T, int) {}
#define TERN_BIT_NBI(T, N)                                   \
  static constexpr bool has_nbi = false;                     \
  static void fetch_and_nbi(Via, T*, T*, T, int) {}          \
  static void fetch_or_nbi(Via, T*, T*, T, int) {}           \
  static void fetch_xor_nbi(Via, T*, T*, T, int) {}
#endif

#define TERN_DEFINE_STD(T, N) \
  struct Std_##N {            \
    TERN_STD_OPS(T, N)        \
    TERN_STD_NBI(T, N)        \
  };
#define TERN_DEFINE_EXT(T, N) \
  struct Ext_##N {            \
    TERN_EXT_OPS(T, N)        \
    TERN_EXT_NBI(T, N)        \
  };
#define TERN_DEFINE_BIT(T, N) \
  struct Bit_##N {            \
    TERN_BIT_OPS(T, N)        \
    TERN_BIT_NBI(T, N)        \
  };

// Standard AMO types (1.4 had the first six; 1.5 added the rest).
#define TERN_STD_TYPES_14(X) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong)
#if TERN_SHMEM_1_5
#define TERN_STD_TYPES_15(X) \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#else
#define TERN_STD_TYPES_15(X)
#endif
#define TERN_STD_TYPES(X) TERN_STD_TYPES_14(X) TERN_STD_TYPES_15(X)
// Extended AMO types beyond the standard ones.
#define TERN_EXT_ONLY_TYPES(X) X(float, float) X(double, double)
// Bitwise AMO types.
#define TERN_BIT_TYPES(X)                                                                      \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

TERN_STD_TYPES(TERN_DEFINE_STD)
TERN_EXT_ONLY_TYPES(TERN_DEFINE_EXT)
TERN_BIT_TYPES(TERN_DEFINE_BIT)

constexpr Via kVias[] = {Via::Plain, Via::DefaultCtx, Via::CreatedCtx};

// Words per type: kShared words hammered by everyone, then kOwn per PE.
constexpr size_t kShared = 32, kOwn = 8;

template <class T>
T* alloc_words() {
  const size_t count = kShared + kOwn * static_cast<size_t>(shmem_n_pes());
  T* words = static_cast<T*>(shmem_calloc(count, sizeof(T)));
  CHECK(words != nullptr);
  return words;
}

// --- Semantics on a word of my own (on the right neighbour) ------------------

template <class R>
void ext_semantics(typename R::type* words) {
  using T = typename R::type;
  const int me = shmem_my_pe();
  const int pe = (me + 1) % shmem_n_pes();
  T* w = words + kShared + kOwn * static_cast<size_t>(me);
  for (Via via : kVias) {
    R::set(via, w, T(5), pe);
    quiet(via);
    CHECK(R::fetch(via, w, pe) == T(5));
    CHECK(R::swap(via, w, T(9), pe) == T(5));
    CHECK(R::fetch(via, w, pe) == T(9));
    CHECK(R::swap(via, w, T(11), pe) == T(9));
    if constexpr (R::has_nbi) {
      T f = T(0);
      R::fetch_nbi(via, &f, w, pe);
      quiet(via);
      CHECK(f == T(11));
      R::swap_nbi(via, &f, w, T(20), pe);
      quiet(via);
      CHECK(f == T(11));
      CHECK(R::fetch(via, w, pe) == T(20));
    }
  }
  shmem_barrier_all();
}

template <class R>
void std_semantics(typename R::type* words) {
  using T = typename R::type;
  ext_semantics<R>(words);
  const int me = shmem_my_pe();
  const int pe = (me + 1) % shmem_n_pes();
  T* w = words + kShared + kOwn * static_cast<size_t>(me) + 1;
  for (Via via : kVias) {
    R::set(via, w, T(9), pe);
    CHECK(R::compare_swap(via, w, T(8), T(1), pe) == T(9));  // no match: unchanged
    CHECK(R::fetch(via, w, pe) == T(9));
    CHECK(R::compare_swap(via, w, T(9), T(3), pe) == T(9));  // match: swapped
    CHECK(R::fetch(via, w, pe) == T(3));
    CHECK(R::fetch_inc(via, w, pe) == T(3));
    R::inc(via, w, pe);
    quiet(via);
    CHECK(R::fetch(via, w, pe) == T(5));
    CHECK(R::fetch_add(via, w, T(10), pe) == T(5));
    R::add(via, w, T(2), pe);
    quiet(via);
    CHECK(R::fetch(via, w, pe) == T(17));
    if constexpr (R::has_nbi) {
      T f = T(0);
      R::compare_swap_nbi(via, &f, w, T(16), T(40), pe);
      quiet(via);
      CHECK(f == T(17));
      R::compare_swap_nbi(via, &f, w, T(17), T(20), pe);
      quiet(via);
      CHECK(f == T(17));
      R::fetch_inc_nbi(via, &f, w, pe);
      quiet(via);
      CHECK(f == T(20));
      R::fetch_add_nbi(via, &f, w, T(3), pe);
      quiet(via);
      CHECK(f == T(21));
      CHECK(R::fetch(via, w, pe) == T(24));
    }
  }
  // The owner's view agrees after completion and a barrier.
  shmem_barrier_all();
  const int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
  const T expected = R::has_nbi ? T(24) : T(17);
  CHECK(words[kShared + kOwn * static_cast<size_t>(left) + 1] == expected);
  shmem_barrier_all();
}

template <class R>
void bit_semantics(typename R::type* words) {
  using T = typename R::type;
  const int me = shmem_my_pe();
  const int pe = (me + 1) % shmem_n_pes();
  T* w = words + kShared + kOwn * static_cast<size_t>(me) + 2;
  for (Via via : kVias) {
    const T start = T(0xc);  // 1100
    shmem_putmem(w, &start, sizeof(T), pe);
    shmem_quiet();
    CHECK(R::fetch_and(via, w, T(0xa), pe) == T(0xc));  // -> 1000
    CHECK(R::fetch_or(via, w, T(0x3), pe) == T(0x8));   // -> 1011
    CHECK(R::fetch_xor(via, w, T(0x6), pe) == T(0xb));  // -> 1101
    R::and_(via, w, T(0x7), pe);                         // -> 0101
    quiet(via);
    CHECK(R::fetch_or(via, w, T(0), pe) == T(0x5));
    R::or_(via, w, T(0x30), pe);  // -> 110101
    quiet(via);
    CHECK(R::fetch_or(via, w, T(0), pe) == T(0x35));
    R::xor_(via, w, T(0x11), pe);  // -> 100100
    quiet(via);
    CHECK(R::fetch_xor(via, w, T(0), pe) == T(0x24));
    // The top bit too.
    const T top = static_cast<T>(T(1) << (sizeof(T) * 8 - 1));
    R::or_(via, w, top, pe);
    quiet(via);
    CHECK(R::fetch_and(via, w, static_cast<T>(~T(0x4)), pe) == static_cast<T>(top | T(0x24)));
    CHECK(R::fetch_or(via, w, T(0), pe) == static_cast<T>(top | T(0x20)));
    if constexpr (R::has_nbi) {
      T f = T(0);
      R::fetch_and_nbi(via, &f, w, T(0x20), pe);  // -> 100000
      quiet(via);
      CHECK(f == static_cast<T>(top | T(0x20)));
      R::fetch_or_nbi(via, &f, w, T(0x1), pe);  // -> 100001
      quiet(via);
      CHECK(f == T(0x20));
      R::fetch_xor_nbi(via, &f, w, T(0x21), pe);  // -> 0
      quiet(via);
      CHECK(f == T(0x21));
      CHECK(R::fetch_or(via, w, T(0), pe) == T(0));
    }
  }
  shmem_barrier_all();
}

// --- Contention: every PE on the same words of one PE ------------------------

// Sum over all PEs of `value` (exact for the small values used here).
long long total(long long value) { return tern_sum_long(static_cast<long>(value)); }

template <class R>
void ext_contention(typename R::type* words, Via via) {
  using T = typename R::type;
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int target = n - 1;
  const int k_max = g_iterations;
  T* swapped = words + 5;
  T* set_word = words + 6;
  if (me == target) {
    *swapped = T(0);
    *set_word = T(0);
  }
  shmem_barrier_all();
  // swap: what comes back plus what is left is what went in plus the start.
  long long returned = 0;
  for (int k = 0; k < k_max; ++k) {
    const long long mine = 1 + static_cast<long long>(me) * k_max + k;
    returned += static_cast<long long>(R::swap(via, swapped, static_cast<T>(mine), target));
  }
  // set: concurrent sets leave one of the values set.
  R::set(via, set_word, static_cast<T>(me + 1), target);
  quiet(via);
  shmem_barrier_all();
  const long long all = static_cast<long long>(n) * k_max;
  const long long left_over = static_cast<long long>(R::fetch(via, swapped, target));
  CHECK(total(returned) + left_over == all * (all + 1) / 2);
  const long long set_value = static_cast<long long>(R::fetch(via, set_word, target));
  CHECK(set_value >= 1 && set_value <= n);
  if constexpr (R::has_nbi) {
    // fetch_nbi of a word nobody changes any more.
    std::vector<T> seen(static_cast<size_t>(k_max), T(-1));
    for (int k = 0; k < k_max; ++k) R::fetch_nbi(via, &seen[static_cast<size_t>(k)], set_word, target);
    quiet(via);
    bool same = true;
    for (T x : seen) same = same && static_cast<long long>(x) == set_value;
    CHECK(same);
  }
  shmem_barrier_all();
}

template <class R>
void std_contention(typename R::type* words, Via via) {
  using T = typename R::type;
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int target = n - 1;
  const int k_max = g_iterations;
  if (me == target) {
    for (size_t i = 0; i < kShared; ++i) words[i] = T(0);
  }
  shmem_barrier_all();
  T* inc_word = words + 0;
  T* fetch_inc_word = words + 1;
  T* add_word = words + 2;
  T* fetch_add_word = words + 3;
  T* cas_word = words + 4;
  T* fetch_inc_nbi_word = words + 7;
  T* fetch_add_nbi_word = words + 8;
  T* cas_nbi_word = words + 9;

  long long fetched_sum = 0;
  bool increasing = true, cas_honest = true;
  long long previous = -1, previous_add = -1;
  for (int k = 0; k < k_max; ++k) {
    R::inc(via, inc_word, target);
    const long long got = static_cast<long long>(R::fetch_inc(via, fetch_inc_word, target));
    increasing = increasing && got > previous;
    previous = got;
    fetched_sum += got;
    R::add(via, add_word, static_cast<T>(me + 1), target);
    const long long before = static_cast<long long>(R::fetch_add(via, fetch_add_word, static_cast<T>(me + 1), target));
    increasing = increasing && before > previous_add;
    previous_add = before;
    // compare_swap as an increment: retry until my value was the one there.
    T seen = R::fetch(via, cas_word, target);
    for (;;) {
      const T old = R::compare_swap(via, cas_word, seen, static_cast<T>(seen + T(1)), target);
      if (old == seen) break;
      cas_honest = cas_honest && old != seen;
      seen = old;
    }
  }
  CHECK(increasing);
  CHECK(cas_honest);
  std::vector<T> nbi_fetched(static_cast<size_t>(k_max));
  if constexpr (R::has_nbi) {
    for (int k = 0; k < k_max; ++k) {
      R::fetch_inc_nbi(via, &nbi_fetched[static_cast<size_t>(k)], fetch_inc_nbi_word, target);
      T ignored = T(0);
      R::fetch_add_nbi(via, &ignored, fetch_add_nbi_word, T(2), target);
      quiet(via);  // `ignored` is read back below only through the total
    }
    // compare_swap_nbi increments, one at a time.
    for (int k = 0; k < k_max; ++k) {
      T seen = R::fetch(via, cas_nbi_word, target);
      for (;;) {
        T old = T(0);
        R::compare_swap_nbi(via, &old, cas_nbi_word, seen, static_cast<T>(seen + T(1)), target);
        quiet(via);
        if (old == seen) break;
        seen = old;
      }
    }
  }
  quiet(via);
  shmem_barrier_all();
  const long long all = static_cast<long long>(n) * k_max;
  const long long weights = static_cast<long long>(n) * (n + 1) / 2;
  if (me == target) {
    CHECK(static_cast<long long>(*inc_word) == all);
    CHECK(static_cast<long long>(*fetch_inc_word) == all);
    CHECK(static_cast<long long>(*add_word) == k_max * weights);
    CHECK(static_cast<long long>(*fetch_add_word) == k_max * weights);
    CHECK(static_cast<long long>(*cas_word) == all);
    if constexpr (R::has_nbi) {
      CHECK(static_cast<long long>(*fetch_inc_nbi_word) == all);
      CHECK(static_cast<long long>(*fetch_add_nbi_word) == 2 * all);
      CHECK(static_cast<long long>(*cas_nbi_word) == all);
    }
  }
  // Every value 0 .. all-1 was fetched exactly once: they sum up.
  CHECK(total(fetched_sum) == all * (all - 1) / 2);
  if constexpr (R::has_nbi) {
    std::sort(nbi_fetched.begin(), nbi_fetched.end());
    bool distinct = std::adjacent_find(nbi_fetched.begin(), nbi_fetched.end()) == nbi_fetched.end();
    CHECK(distinct);
    long long nbi_sum = 0;
    for (T x : nbi_fetched) nbi_sum += static_cast<long long>(x);
    CHECK(total(nbi_sum) == all * (all - 1) / 2);
  }
  shmem_barrier_all();
  ext_contention<R>(words, via);
}

template <class T>
T bit_of(int pe, int k) {
  return static_cast<T>(T(1) << ((pe * 8 + k % 8) % 32));
}
template <class T>
T xor_mask(int pe, int k) {
  return static_cast<T>(T(1) << ((pe * 5 + k * 3) % 32));
}

template <class R>
void bit_contention(typename R::type* words, Via via) {
  using T = typename R::type;
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int target = 0;
  const int k_max = g_iterations;
  T* or_word = words + 10;
  T* fetch_or_word = words + 11;
  T* and_word = words + 12;
  T* fetch_and_word = words + 13;
  T* xor_word = words + 14;
  T* fetch_xor_word = words + 15;
  T* nbi_word = words + 16;
  if (me == target) {
    *or_word = *fetch_or_word = *xor_word = *fetch_xor_word = *nbi_word = T(0);
    *and_word = *fetch_and_word = static_cast<T>(~T(0));
  }
  shmem_barrier_all();
  bool monotone = true;
  T mine = T(0);
  for (int k = 0; k < k_max; ++k) {
    const T bit = bit_of<T>(me, k);
    R::or_(via, or_word, bit, target);
    const T before_or = R::fetch_or(via, fetch_or_word, bit, target);
    monotone = monotone && (before_or & mine) == mine;  // my earlier bits are still set
    R::and_(via, and_word, static_cast<T>(~bit), target);
    const T before_and = R::fetch_and(via, fetch_and_word, static_cast<T>(~bit), target);
    monotone = monotone && (before_and & mine) == T(0);  // my earlier bits are still clear
    mine = static_cast<T>(mine | bit);
    R::xor_(via, xor_word, xor_mask<T>(me, k), target);
    R::fetch_xor(via, fetch_xor_word, xor_mask<T>(me, k), target);
    if constexpr (R::has_nbi) {
      T f = T(0);
      R::fetch_xor_nbi(via, &f, nbi_word, xor_mask<T>(me, k), target);
      R::fetch_or_nbi(via, &f, nbi_word, T(0), target);
      quiet(via);
    }
  }
  CHECK(monotone);
  quiet(via);
  shmem_barrier_all();
  if (me == target) {
    T all_bits = T(0), all_xor = T(0);
    for (int pe = 0; pe < n; ++pe) {
      for (int k = 0; k < k_max; ++k) {
        all_bits = static_cast<T>(all_bits | bit_of<T>(pe, k));
        all_xor = static_cast<T>(all_xor ^ xor_mask<T>(pe, k));
      }
    }
    CHECK(*or_word == all_bits);
    CHECK(*fetch_or_word == all_bits);
    CHECK(*and_word == static_cast<T>(~all_bits));
    CHECK(*fetch_and_word == static_cast<T>(~all_bits));
    CHECK(*xor_word == all_xor);
    CHECK(*fetch_xor_word == all_xor);
    if constexpr (R::has_nbi) CHECK(*nbi_word == all_xor);
  }
  shmem_barrier_all();
}

template <class R>
void run_std() {
  using T = typename R::type;
  T* words = alloc_words<T>();
  if (words == nullptr) return;
  std_semantics<R>(words);
  std_contention<R>(words, Via::Plain);
  std_contention<R>(words, Via::CreatedCtx);
  shmem_free(words);
}

template <class R>
void run_ext() {
  using T = typename R::type;
  T* words = alloc_words<T>();
  if (words == nullptr) return;
  ext_semantics<R>(words);
  // Values in the swap sum are small integers: exact in float and double.
  ext_contention<R>(words, Via::Plain);
  ext_contention<R>(words, Via::CreatedCtx);
  shmem_free(words);
}

template <class R>
void run_bit() {
  using T = typename R::type;
  T* words = alloc_words<T>();
  if (words == nullptr) return;
  bit_semantics<R>(words);
  bit_contention<R>(words, Via::Plain);
  bit_contention<R>(words, Via::DefaultCtx);
  bit_contention<R>(words, Via::CreatedCtx);
  shmem_free(words);
}

// --- Deprecated names ----------------------------------------------------------

#define TERN_DEPRECATED_INT(T, N)                                                          \
  void deprecated_##N(T* words) {                                                          \
    const int me = shmem_my_pe();                                                          \
    const int n = shmem_n_pes();                                                           \
    const int target = n - 1;                                                              \
    const int k_max = g_iterations;                                                        \
    if (me == target) {                                                                    \
      for (size_t i = 0; i < kShared; ++i) words[i] = static_cast<T>(0);                  \
    }                                                                                      \
    shmem_barrier_all();                                                                   \
    long long fetched = 0, swapped = 0;                                                    \
    for (int k = 0; k < k_max; ++k) {                                                      \
      shmem_##N##_inc(&words[0], target);                                                  \
      fetched += static_cast<long long>(shmem_##N##_finc(&words[1], target));              \
      shmem_##N##_add(&words[2], static_cast<T>(me + 1), target);                          \
      (void)shmem_##N##_fadd(&words[3], static_cast<T>(me + 1), target);                   \
      T seen = shmem_##N##_fetch(&words[4], target);                                       \
      for (;;) {                                                                           \
        const T old = shmem_##N##_cswap(&words[4], seen, static_cast<T>(seen + 1), target); \
        if (old == seen) break;                                                            \
        seen = old;                                                                        \
      }                                                                                    \
      swapped += static_cast<long long>(                                                   \
          shmem_##N##_swap(&words[5], static_cast<T>(1 + me * k_max + k), target));         \
    }                                                                                      \
    shmem_##N##_set(&words[6], static_cast<T>(me + 1), target);                            \
    shmem_quiet();                                                                         \
    shmem_barrier_all();                                                                   \
    const long long all = static_cast<long long>(n) * k_max;                               \
    const long long weights = static_cast<long long>(n) * (n + 1) / 2;                     \
    if (me == target) {                                                                    \
      CHECK(static_cast<long long>(words[0]) == all);                                      \
      CHECK(static_cast<long long>(words[1]) == all);                                      \
      CHECK(static_cast<long long>(words[2]) == k_max * weights);                          \
      CHECK(static_cast<long long>(words[3]) == k_max * weights);                          \
      CHECK(static_cast<long long>(words[4]) == all);                                      \
    }                                                                                      \
    CHECK(total(fetched) == all * (all - 1) / 2);                                          \
    const long long rest = static_cast<long long>(shmem_##N##_fetch(&words[5], target));   \
    CHECK(total(swapped) + rest == all * (all + 1) / 2);                                   \
    const long long set = static_cast<long long>(shmem_##N##_fetch(&words[6], target));   \
    CHECK(set >= 1 && set <= n);                                                           \
    shmem_barrier_all();                                                                   \
  }
TERN_DEPRECATED_INT(int, int)
TERN_DEPRECATED_INT(long, long)
TERN_DEPRECATED_INT(long long, longlong)

#define TERN_DEPRECATED_FLOAT(T, N)                                   \
  void deprecated_##N(T* words) {                                     \
    const int me = shmem_my_pe();                                     \
    const int pe = (me + 1) % shmem_n_pes();                          \
    T* w = words + kShared + kOwn * static_cast<size_t>(me);          \
    shmem_##N##_set(w, T(2.5), pe);                                   \
    shmem_quiet();                                                    \
    CHECK(shmem_##N##_fetch(w, pe) == T(2.5));                        \
    CHECK(shmem_##N##_swap(w, T(-4.0), pe) == T(2.5));                \
    CHECK(shmem_##N##_fetch(w, pe) == T(-4.0));                       \
    shmem_barrier_all();                                              \
  }
TERN_DEPRECATED_FLOAT(float, float)
TERN_DEPRECATED_FLOAT(double, double)

// --- Static data ---------------------------------------------------------------

long g_static_long[kShared];
int g_static_int[kShared];
uint64_t g_static_u64[kShared];

void test_static() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int k_max = g_iterations;
  shmem_barrier_all();
  for (int k = 0; k < k_max; ++k) {
    const int target = k % n;  // spread over every PE
    shmem_long_atomic_inc(&g_static_long[0], target);
    shmem_int_atomic_fetch_add(&g_static_int[0], me + 1, target);
    shmem_uint64_atomic_or(&g_static_u64[0], uint64_t(1) << (me % 64), target);
    shmem_long_atomic_add(&g_static_long[1], 3, (me + k) % n);
  }
  shmem_quiet();
  shmem_barrier_all();
  // PE p got the increments of the k with k % n == p from everybody.
  long expected_inc = 0;
  for (int k = 0; k < k_max; ++k) expected_inc += (k % n == me) ? n : 0;
  CHECK(g_static_long[0] == expected_inc);
  CHECK(g_static_int[0] == expected_inc / n * (n * (n + 1) / 2));
  uint64_t bits = 0;
  for (int pe = 0; pe < n; ++pe) bits |= uint64_t(1) << (pe % 64);
  CHECK(g_static_u64[0] == (expected_inc > 0 ? bits : 0));
  CHECK(total(g_static_long[1]) == 3LL * n * k_max);
  // Fetching AMOs read static data of another PE.
  CHECK(shmem_long_atomic_fetch(&g_static_long[0], (me + 1) % n) ==
        [&] {
          long e = 0;
          for (int k = 0; k < k_max; ++k) e += (k % n == (me + 1) % n) ? n : 0;
          return e;
        }());
  shmem_barrier_all();
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  if (argc > 1) g_iterations = std::max(1, std::atoi(argv[1]));
  CHECK(shmem_ctx_create(0, &g_created) == 0);

#define TERN_RUN_STD(T, N) run_std<Std_##N>();
  TERN_STD_TYPES(TERN_RUN_STD)
#define TERN_RUN_EXT(T, N) run_ext<Ext_##N>();
  TERN_EXT_ONLY_TYPES(TERN_RUN_EXT)
#define TERN_RUN_BIT(T, N) run_bit<Bit_##N>();
  TERN_BIT_TYPES(TERN_RUN_BIT)

  {
    int* wi = alloc_words<int>();
    long* wl = alloc_words<long>();
    long long* wll = alloc_words<long long>();
    float* wf = alloc_words<float>();
    double* wd = alloc_words<double>();
    if (wi && wl && wll && wf && wd) {
      deprecated_int(wi);
      deprecated_long(wl);
      deprecated_longlong(wll);
      deprecated_float(wf);
      deprecated_double(wd);
    }
    shmem_free(wd);
    shmem_free(wf);
    shmem_free(wll);
    shmem_free(wl);
    shmem_free(wi);
  }
  test_static();

  if (g_created != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(g_created);
  const int rc = tern_conclude("shmem_amo");
  shmem_finalize();
  return rc;
}
