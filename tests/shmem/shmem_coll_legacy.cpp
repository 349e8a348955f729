// The deprecated active-set collectives, checked against a serial
// computation for many sizes and several active sets (PE_start,
// logPE_stride, PE_size): the whole job, the even and the odd PEs, every
// fourth PE, all but PE 0, a single PE. shmem_barrier, shmem_sync,
// broadcast32/64, collect32/64 (a different count on each PE),
// fcollect32/64, alltoall32/64, alltoalls32/64 (with strides), and the
// *_to_all reductions for every type and operation they have (and, or, xor
// for the integer types; max, min, sum, prod), in place too. PEs outside the
// active set do not call; pSync arrays are reused after a barrier_all.
#include <shmem.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "check.h"

namespace {

struct ActiveSet {
  int start, log_stride, size;
  int stride() const { return 1 << log_stride; }
  int pe(int index) const { return start + index * stride(); }
  int index_of(int pe) const {
    if (pe < start || (pe - start) % stride() != 0) return -1;
    const int index = (pe - start) / stride();
    return index < size ? index : -1;
  }
};

std::vector<ActiveSet> active_sets(int n) {
  std::vector<ActiveSet> sets;
  sets.push_back({0, 0, n});
  sets.push_back({0, 1, (n + 1) / 2});
  if (n >= 2) sets.push_back({1, 1, n / 2});
  if (n >= 2) sets.push_back({1, 0, n - 1});
  if (n >= 5) sets.push_back({0, 2, (n + 3) / 4});
  sets.push_back({n - 1, 0, 1});
  return sets;
}

long g_psync_barrier[SHMEM_BARRIER_SYNC_SIZE];
long g_psync_bcast[SHMEM_BCAST_SYNC_SIZE];
long g_psync_collect[SHMEM_COLLECT_SYNC_SIZE];
long g_psync_reduce[SHMEM_REDUCE_SYNC_SIZE];
long g_psync_alltoall[SHMEM_ALLTOALL_SYNC_SIZE];
long g_psync_alltoalls[SHMEM_ALLTOALLS_SYNC_SIZE];
long g_psync_sync[SHMEM_SYNC_SIZE];

void init_psync() {
  for (long& x : g_psync_barrier) x = SHMEM_SYNC_VALUE;
  for (long& x : g_psync_bcast) x = SHMEM_SYNC_VALUE;
  for (long& x : g_psync_collect) x = SHMEM_SYNC_VALUE;
  for (long& x : g_psync_reduce) x = SHMEM_SYNC_VALUE;
  for (long& x : g_psync_alltoall) x = SHMEM_SYNC_VALUE;
  for (long& x : g_psync_alltoalls) x = SHMEM_SYNC_VALUE;
  for (long& x : g_psync_sync) x = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
}

constexpr size_t kSizes[] = {1, 7, 64, 1000};
constexpr size_t kMaxElems = 1000;
constexpr size_t kMaxStride = 3;

// Symmetric buffers, big enough for every test (set in main).
unsigned char* g_src = nullptr;
unsigned char* g_dst = nullptr;
size_t g_buf_bytes = 0;

template <class W>
W word(int pe, size_t i, int salt) {
  return static_cast<W>(static_cast<uint64_t>(pe + 1) * 1000003u + i * 7919u + static_cast<uint64_t>(salt) * 31u);
}

template <class W>
void fill_dst(W sentinel) {
  W* d = reinterpret_cast<W*>(g_dst);
  for (size_t i = 0; i < g_buf_bytes / sizeof(W); ++i) d[i] = sentinel;
}

// --- barrier / sync -------------------------------------------------------------

void test_barrier(const ActiveSet& set, int me) {
  static long slots[64];
  const int index = set.index_of(me);
  for (int r = 0; r < 3; ++r) {
    if (index >= 0) {
      const int next = set.pe((index + 1) % set.size);
      shmem_long_p(&slots[index % 64], 100L * r + index, next);
      if (r % 2 == 0) {
        shmem_barrier(set.start, set.log_stride, set.size, g_psync_barrier);  // completes the put too
      } else {
        shmem_quiet();
        shmem_sync(set.start, set.log_stride, set.size, g_psync_sync);
      }
      const int prev = (index + set.size - 1) % set.size;
      CHECK(slots[prev % 64] == 100L * r + prev);
    }
    shmem_barrier_all();
  }
}

// --- broadcast ----------------------------------------------------------------

template <class W>
void test_broadcast(const ActiveSet& set, int me, int salt) {
  const int index = set.index_of(me);
  W* src = reinterpret_cast<W*>(g_src);
  W* dst = reinterpret_cast<W*>(g_dst);
  for (size_t nelems : kSizes) {
    for (int root : {0, set.size - 1}) {
      for (size_t i = 0; i < nelems; ++i) src[i] = word<W>(me, i, salt);
      fill_dst<W>(W(0));
      shmem_barrier_all();
      if (index >= 0) {
        if (sizeof(W) == 4) {
          shmem_broadcast32(dst, src, nelems, root, set.start, set.log_stride, set.size, g_psync_bcast);
        } else {
          shmem_broadcast64(dst, src, nelems, root, set.start, set.log_stride, set.size, g_psync_bcast);
        }
        if (index != root) {
          bool ok = true;
          for (size_t i = 0; i < nelems; ++i) ok = ok && dst[i] == word<W>(set.pe(root), i, salt);
          ok = ok && dst[nelems] == W(0);  // nothing past the end
          CHECK(ok);
        }
      }
      shmem_barrier_all();
    }
  }
}

// --- collect / fcollect -----------------------------------------------------------

template <class W>
void test_collect(const ActiveSet& set, int me, bool fixed, int salt) {
  const int index = set.index_of(me);
  W* src = reinterpret_cast<W*>(g_src);
  W* dst = reinterpret_cast<W*>(g_dst);
  for (size_t base : kSizes) {
    // collect: PE k of the set gives base + k % 3 elements (fcollect: base).
    auto count = [&](int k) { return fixed ? base : base + static_cast<size_t>(k % 3); };
    const size_t mine = index >= 0 ? count(index) : 0;
    for (size_t i = 0; i < mine; ++i) src[i] = word<W>(me, i, salt);
    fill_dst<W>(W(0));
    shmem_barrier_all();
    if (index >= 0) {
      if (fixed) {
        sizeof(W) == 4 ? shmem_fcollect32(dst, src, mine, set.start, set.log_stride, set.size, g_psync_collect)
                       : shmem_fcollect64(dst, src, mine, set.start, set.log_stride, set.size, g_psync_collect);
      } else {
        sizeof(W) == 4 ? shmem_collect32(dst, src, mine, set.start, set.log_stride, set.size, g_psync_collect)
                       : shmem_collect64(dst, src, mine, set.start, set.log_stride, set.size, g_psync_collect);
      }
      bool ok = true;
      size_t at = 0;
      for (int k = 0; k < set.size; ++k) {
        for (size_t i = 0; i < count(k); ++i) ok = ok && dst[at++] == word<W>(set.pe(k), i, salt);
      }
      ok = ok && dst[at] == W(0);
      CHECK(ok);
    }
    shmem_barrier_all();
  }
}

// --- alltoall / alltoalls ---------------------------------------------------------

template <class W>
void test_alltoall(const ActiveSet& set, int me, int salt) {
  const int index = set.index_of(me);
  W* src = reinterpret_cast<W*>(g_src);
  W* dst = reinterpret_cast<W*>(g_dst);
  // The block for set member k is element values (k, i).
  auto value = [&](int from, int to_index, size_t i) { return word<W>(from, static_cast<size_t>(to_index) * kMaxElems + i, salt); };
  for (size_t nelems : kSizes) {
    if (index >= 0) {
      for (int k = 0; k < set.size; ++k) {
        for (size_t i = 0; i < nelems; ++i) src[static_cast<size_t>(k) * nelems + i] = value(me, k, i);
      }
    }
    fill_dst<W>(W(0));
    shmem_barrier_all();
    if (index >= 0) {
      sizeof(W) == 4 ? shmem_alltoall32(dst, src, nelems, set.start, set.log_stride, set.size, g_psync_alltoall)
                     : shmem_alltoall64(dst, src, nelems, set.start, set.log_stride, set.size, g_psync_alltoall);
      bool ok = true;
      for (int k = 0; k < set.size; ++k) {
        for (size_t i = 0; i < nelems; ++i) ok = ok && dst[static_cast<size_t>(k) * nelems + i] == value(set.pe(k), index, i);
      }
      ok = ok && dst[static_cast<size_t>(set.size) * nelems] == W(0);
      CHECK(ok);
    }
    shmem_barrier_all();
  }
  // Strided: element i of the block for member k sits at src[sst * (k * nelems + i)]
  // and lands at dest[dst * (j * nelems + i)] on member k, where j is the sender.
  const ptrdiff_t strides[][2] = {{1, 1}, {2, 3}, {3, 1}};
  for (const auto& st : strides) {
    const ptrdiff_t dst_stride = st[0], src_stride = st[1];
    for (size_t nelems : {size_t(1), size_t(7), size_t(100)}) {
      if (index >= 0) {
        for (int k = 0; k < set.size; ++k) {
          for (size_t i = 0; i < nelems; ++i) {
            src[static_cast<size_t>(src_stride) * (static_cast<size_t>(k) * nelems + i)] = value(me, k, i);
          }
        }
      }
      fill_dst<W>(W(0));
      shmem_barrier_all();
      if (index >= 0) {
        sizeof(W) == 4 ? shmem_alltoalls32(dst, src, dst_stride, src_stride, nelems, set.start, set.log_stride, set.size, g_psync_alltoalls)
                       : shmem_alltoalls64(dst, src, dst_stride, src_stride, nelems, set.start, set.log_stride, set.size, g_psync_alltoalls);
        bool ok = true;
        const size_t span = static_cast<size_t>(dst_stride) * static_cast<size_t>(set.size) * nelems;
        for (size_t at = 0; at < span; ++at) {
          const bool used = at % static_cast<size_t>(dst_stride) == 0;
          const size_t element = at / static_cast<size_t>(dst_stride);
          const int from_index = static_cast<int>(element / nelems);
          const size_t i = element % nelems;
          ok = ok && dst[at] == (used ? value(set.pe(from_index), index, i) : W(0));
        }
        CHECK(ok);
      }
      shmem_barrier_all();
    }
  }
}

// --- reductions (*_to_all) ----------------------------------------------------------

enum class Op { And, Or, Xor, Max, Min, Sum, Prod };

template <class T>
T red_value(Op op, int pe, size_t i) {
  const int k = static_cast<int>(i % 1024);
  switch (op) {
    case Op::And: return static_cast<T>(~(1 << ((pe + k) % 8)) & 0x7fff);
    case Op::Or: return static_cast<T>(1 << ((pe * 3 + k) % 8));
    case Op::Xor: return static_cast<T>((pe * 29 + k * 7) & 0x7f);
    case Op::Max:
    case Op::Min: return static_cast<T>((pe * 37 + k * 11) % 100 - 50);
    case Op::Sum: return static_cast<T>((pe + 1) * 3 + k % 20);
    case Op::Prod: return static_cast<T>(((pe + k) % 4 == 0) ? 2 : ((pe + k) % 4 == 1 ? -1 : 1));
  }
  return T(0);
}

template <class T>
T combine(Op op, T a, T b) {
  switch (op) {
    case Op::And: if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b); else return a;
    case Op::Or: if constexpr (std::is_integral_v<T>) return static_cast<T>(a | b); else return a;
    case Op::Xor: if constexpr (std::is_integral_v<T>) return static_cast<T>(a ^ b); else return a;
    case Op::Max: return std::max(a, b);
    case Op::Min: return std::min(a, b);
    case Op::Sum: return static_cast<T>(a + b);
    case Op::Prod: return static_cast<T>(a * b);
  }
  return a;
}

using ToAll = void (*)(void* dest, const void* src, int nreduce, int start, int log_stride, int size, void* work, long* sync);

alignas(64) unsigned char g_work[(kMaxElems / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * 16];

template <class T>
void test_to_all(const ActiveSet& set, int me, Op op, ToAll to_all) {
  const int index = set.index_of(me);
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = reinterpret_cast<T*>(g_dst);
  for (size_t nreduce : kSizes) {
    for (bool in_place : {false, true}) {
      if (in_place && nreduce != 64) continue;
      for (size_t i = 0; i < nreduce; ++i) src[i] = red_value<T>(op, me, i);
      for (size_t i = 0; i <= nreduce; ++i) dst[i] = T(0);
      shmem_barrier_all();
      if (index >= 0) {
        T* out = in_place ? src : dst;
        to_all(out, src, static_cast<int>(nreduce), set.start, set.log_stride, set.size, g_work, g_psync_reduce);
        bool ok = true;
        for (size_t i = 0; i < nreduce; ++i) {
          T expected = red_value<T>(op, set.pe(0), i);
          for (int k = 1; k < set.size; ++k) expected = combine<T>(op, expected, red_value<T>(op, set.pe(k), i));
          ok = ok && out[i] == expected;
        }
        if (!in_place) ok = ok && dst[nreduce] == T(0);
        CHECK(ok);
      }
      shmem_barrier_all();
    }
  }
}

#define TERN_TO_ALL(T, N, OP) \
  [](void* d, const void* s, int n, int st, int lg, int sz, void* w, long* p) { \
    shmem_##N##_##OP##_to_all(static_cast<T*>(d), static_cast<const T*>(s), n, st, lg, sz, static_cast<T*>(w), p); \
  }

#define TERN_TO_ALL_ARITH(T, N)                                        \
  test_to_all<T>(set, me, Op::Max, TERN_TO_ALL(T, N, max));            \
  test_to_all<T>(set, me, Op::Min, TERN_TO_ALL(T, N, min));            \
  test_to_all<T>(set, me, Op::Sum, TERN_TO_ALL(T, N, sum));            \
  test_to_all<T>(set, me, Op::Prod, TERN_TO_ALL(T, N, prod));
#define TERN_TO_ALL_INT(T, N)                                          \
  test_to_all<T>(set, me, Op::And, TERN_TO_ALL(T, N, and));            \
  test_to_all<T>(set, me, Op::Or, TERN_TO_ALL(T, N, or));              \
  test_to_all<T>(set, me, Op::Xor, TERN_TO_ALL(T, N, xor));            \
  TERN_TO_ALL_ARITH(T, N)

void test_reductions(const ActiveSet& set, int me) {
  TERN_TO_ALL_INT(short, short)
  TERN_TO_ALL_INT(int, int)
  TERN_TO_ALL_INT(long, long)
  TERN_TO_ALL_INT(long long, longlong)
  TERN_TO_ALL_ARITH(float, float)
  TERN_TO_ALL_ARITH(double, double)
  TERN_TO_ALL_ARITH(long double, longdouble)
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  g_buf_bytes = static_cast<size_t>(n) * kMaxElems * kMaxStride * sizeof(uint64_t) + 64;
  g_src = static_cast<unsigned char*>(shmem_malloc(g_buf_bytes));
  g_dst = static_cast<unsigned char*>(shmem_malloc(g_buf_bytes));
  CHECK(g_src != nullptr && g_dst != nullptr);
  init_psync();
  if (g_src != nullptr && g_dst != nullptr) {
    int salt = 0;
    for (const ActiveSet& set : active_sets(n)) {
      test_barrier(set, me);
      test_broadcast<uint32_t>(set, me, ++salt);
      test_broadcast<uint64_t>(set, me, ++salt);
      test_collect<uint32_t>(set, me, false, ++salt);
      test_collect<uint64_t>(set, me, false, ++salt);
      test_collect<uint32_t>(set, me, true, ++salt);
      test_collect<uint64_t>(set, me, true, ++salt);
      test_alltoall<uint32_t>(set, me, ++salt);
      test_alltoall<uint64_t>(set, me, ++salt);
      test_reductions(set, me);
    }
  }
  shmem_free(g_dst);
  shmem_free(g_src);
  const int rc = tern_conclude("shmem_coll_legacy");
  shmem_finalize();
  return rc;
}
