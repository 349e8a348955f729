// Remote memory access for every standard RMA type: put, get, p, g, iput and
// iget with several strides, put_nbi and get_nbi completed by quiet, partial
// and empty transfers, transfers to the calling PE itself; on the symmetric
// heap and on static (global) arrays; through the plain names, the ctx names
// on SHMEM_CTX_DEFAULT and the ctx names on a created context. Then the sized
// forms (8, 16, 32, 64, 128 and their strided and nbi forms), putmem/getmem
// across sizes and odd offsets, and many PEs writing to one.
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

constexpr size_t kLen = 64;  // elements per slot
enum Slot : size_t {
  kSrc,
  kPut,
  kPutNbi,
  kP,
  kIput0,  // kIput0 + k for each stride pair below
  kIput1,
  kIput2,
  kIput3,
  kPutSelf,
  kPutEmpty,
  kPutPartial,
  kSlots
};
struct Strides {
  ptrdiff_t dst, src;
};
constexpr Strides kStrides[] = {{1, 1}, {2, 1}, {1, 2}, {3, 2}};
constexpr size_t kStridedElems = 20;  // (20 - 1) * 3 + 1 <= kLen
constexpr size_t kPartialOffset = 5, kPartialSrcOffset = 3, kPartialElems = 37;

template <class T>
T value(int pe, size_t i, int salt) {
  return static_cast<T>((pe * 13 + static_cast<int>(i) * 7 + salt * 3) % 101 + 1);
}

// One struct per RMA type, naming its routines.
#define TERN_RMA_TYPES(X)                                                                       \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)                   \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)        \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                       \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)    \
  X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)                    \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

#define TERN_DEFINE_RMA(T, N)                                                                    \
  struct Rma_##N {                                                                              \
    using type = T;                                                                             \
    static void put(T* d, const T* s, size_t n, int pe) { shmem_##N##_put(d, s, n, pe); }        \
    static void get(T* d, const T* s, size_t n, int pe) { shmem_##N##_get(d, s, n, pe); }        \
    static void p(T* d, T v, int pe) { shmem_##N##_p(d, v, pe); }                                \
    static T g(const T* s, int pe) { return shmem_##N##_g(s, pe); }                              \
    static void iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {          \
      shmem_##N##_iput(d, s, dst, sst, n, pe);                                                  \
    }                                                                                           \
    static void iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {          \
      shmem_##N##_iget(d, s, dst, sst, n, pe);                                                  \
    }                                                                                           \
    static void put_nbi(T* d, const T* s, size_t n, int pe) { shmem_##N##_put_nbi(d, s, n, pe); } \
    static void get_nbi(T* d, const T* s, size_t n, int pe) { shmem_##N##_get_nbi(d, s, n, pe); } \
    static void ctx_put(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                     \
      shmem_ctx_##N##_put(c, d, s, n, pe);                                                      \
    }                                                                                           \
    static void ctx_get(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                     \
      shmem_ctx_##N##_get(c, d, s, n, pe);                                                      \
    }                                                                                           \
    static void ctx_p(shmem_ctx_t c, T* d, T v, int pe) { shmem_ctx_##N##_p(c, d, v, pe); }      \
    static T ctx_g(shmem_ctx_t c, const T* s, int pe) { return shmem_ctx_##N##_g(c, s, pe); }    \
    static void ctx_iput(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,          \
                         size_t n, int pe) {                                                    \
      shmem_ctx_##N##_iput(c, d, s, dst, sst, n, pe);                                           \
    }                                                                                           \
    static void ctx_iget(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,          \
                         size_t n, int pe) {                                                    \
      shmem_ctx_##N##_iget(c, d, s, dst, sst, n, pe);                                           \
    }                                                                                           \
    static void ctx_put_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                 \
      shmem_ctx_##N##_put_nbi(c, d, s, n, pe);                                                  \
    }                                                                                           \
    static void ctx_get_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                 \
      shmem_ctx_##N##_get_nbi(c, d, s, n, pe);                                                  \
    }                                                                                           \
  };                                                                                            \
  T g_static_##N[kSlots * kLen];
TERN_RMA_TYPES(TERN_DEFINE_RMA)
#undef TERN_DEFINE_RMA

// The three ways in: plain names, ctx names on the default context, ctx
// names on a created context.
enum class Via { Plain, DefaultCtx, CreatedCtx };

template <class R>
struct Ops {
  using T = typename R::type;
  Via via;
  shmem_ctx_t ctx;
  void put(T* d, const T* s, size_t n, int pe) const {
    via == Via::Plain ? R::put(d, s, n, pe) : R::ctx_put(ctx, d, s, n, pe);
  }
  void get(T* d, const T* s, size_t n, int pe) const {
    via == Via::Plain ? R::get(d, s, n, pe) : R::ctx_get(ctx, d, s, n, pe);
  }
  void p(T* d, T v, int pe) const { via == Via::Plain ? R::p(d, v, pe) : R::ctx_p(ctx, d, v, pe); }
  T g(const T* s, int pe) const { return via == Via::Plain ? R::g(s, pe) : R::ctx_g(ctx, s, pe); }
  void iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) const {
    via == Via::Plain ? R::iput(d, s, dst, sst, n, pe) : R::ctx_iput(ctx, d, s, dst, sst, n, pe);
  }
  void iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) const {
    via == Via::Plain ? R::iget(d, s, dst, sst, n, pe) : R::ctx_iget(ctx, d, s, dst, sst, n, pe);
  }
  void put_nbi(T* d, const T* s, size_t n, int pe) const {
    via == Via::Plain ? R::put_nbi(d, s, n, pe) : R::ctx_put_nbi(ctx, d, s, n, pe);
  }
  void get_nbi(T* d, const T* s, size_t n, int pe) const {
    via == Via::Plain ? R::get_nbi(d, s, n, pe) : R::ctx_get_nbi(ctx, d, s, n, pe);
  }
  void quiet() const { via == Via::Plain ? shmem_quiet() : shmem_ctx_quiet(ctx); }
};

// Counts mismatches in [0, kLen) of a destination slot written by `writer`:
// element i must be `expected(i)` where defined, the zero sentinel elsewhere.
template <class T, class Expected>
size_t mismatches(const T* slot, Expected expected) {
  size_t bad = 0;
  for (size_t i = 0; i < kLen; ++i) {
    bool defined = false;
    T want = expected(i, &defined);
    if (!defined) want = T(0);
    if (!(slot[i] == want)) ++bad;
  }
  return bad;
}

template <class R>
void test_type(typename R::type* buf, Via via, shmem_ctx_t ctx, int salt) {
  using T = typename R::type;
  const Ops<R> ops{via, ctx};
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  T* src = buf + kSrc * kLen;
  auto slot = [&](size_t s) { return buf + s * kLen; };

  for (size_t i = 0; i < kLen; ++i) src[i] = value<T>(me, i, salt);
  for (size_t s = kSrc + 1; s < kSlots; ++s) {
    for (size_t i = 0; i < kLen; ++i) slot(s)[i] = T(0);
  }
  shmem_barrier_all();

  // Writes to the right neighbour (and one to myself).
  ops.put(slot(kPut), src, kLen, right);
  ops.put_nbi(slot(kPutNbi), src, kLen, right);
  for (size_t i = 0; i < kLen; ++i) ops.p(&slot(kP)[i], src[i], right);
  for (size_t k = 0; k < 4; ++k) {
    ops.iput(slot(kIput0 + k), src, kStrides[k].dst, kStrides[k].src, kStridedElems, right);
  }
  ops.put(slot(kPutSelf), src, kLen, me);
  ops.put(slot(kPutEmpty), src, 0, right);
  ops.put_nbi(slot(kPutEmpty), src, 0, right);
  ops.put(slot(kPutPartial) + kPartialOffset, src + kPartialSrcOffset, kPartialElems, right);
  ops.quiet();
  shmem_barrier_all();

  auto whole = [&](int pe) {
    return [pe, salt](size_t i, bool* defined) {
      *defined = true;
      return value<T>(pe, i, salt);
    };
  };
  CHECK(mismatches(slot(kPut), whole(left)) == 0);
  CHECK(mismatches(slot(kPutNbi), whole(left)) == 0);
  CHECK(mismatches(slot(kP), whole(left)) == 0);
  CHECK(mismatches(slot(kPutSelf), whole(me)) == 0);
  CHECK(mismatches(slot(kPutEmpty), [](size_t, bool* defined) {
          *defined = false;
          return T(0);
        }) == 0);
  CHECK(mismatches(slot(kPutPartial), [&](size_t i, bool* defined) {
          *defined = i >= kPartialOffset && i < kPartialOffset + kPartialElems;
          return value<T>(left, i - kPartialOffset + kPartialSrcOffset, salt);
        }) == 0);
  for (size_t k = 0; k < 4; ++k) {
    const auto st = kStrides[k];
    CHECK(mismatches(slot(kIput0 + k), [&](size_t i, bool* defined) {
            const size_t index = i / static_cast<size_t>(st.dst);
            *defined = i % static_cast<size_t>(st.dst) == 0 && index < kStridedElems;
            return value<T>(left, index * static_cast<size_t>(st.src), salt);
          }) == 0);
  }

  // Reads from the right neighbour, into private memory.
  std::vector<T> local(kLen);
  auto reset = [&] {
    for (auto& x : local) x = T(0);
  };
  reset();
  ops.get(local.data(), src, kLen, right);
  CHECK(mismatches(local.data(), whole(right)) == 0);
  reset();
  ops.get_nbi(local.data(), src, kLen, right);
  ops.quiet();
  CHECK(mismatches(local.data(), whole(right)) == 0);
  reset();
  for (size_t i = 0; i < kLen; ++i) local[i] = ops.g(&src[i], right);
  CHECK(mismatches(local.data(), whole(right)) == 0);
  reset();
  ops.get(local.data(), src, kLen, me);
  CHECK(mismatches(local.data(), whole(me)) == 0);
  reset();
  ops.get(local.data(), src, 0, right);
  ops.get_nbi(local.data(), src, 0, right);
  ops.quiet();
  CHECK(mismatches(local.data(), [](size_t, bool* defined) {
          *defined = false;
          return T(0);
        }) == 0);
  for (size_t k = 0; k < 4; ++k) {
    const auto st = kStrides[k];
    reset();
    ops.iget(local.data(), src, st.dst, st.src, kStridedElems, right);
    CHECK(mismatches(local.data(), [&](size_t i, bool* defined) {
            const size_t index = i / static_cast<size_t>(st.dst);
            *defined = i % static_cast<size_t>(st.dst) == 0 && index < kStridedElems;
            return value<T>(right, index * static_cast<size_t>(st.src), salt);
          }) == 0);
  }
  // A get into symmetric memory works the same.
  ops.get(slot(kPut), src, kLen, right);
  CHECK(mismatches(slot(kPut), whole(right)) == 0);
  shmem_barrier_all();  // nobody rewrites src while another PE reads it
}

template <class R>
void test_type_everywhere(void* heap, shmem_ctx_t created, typename R::type* static_buf) {
  using T = typename R::type;
  T* heap_buf = static_cast<T*>(heap);
  int salt = 0;
  for (T* buf : {heap_buf, static_buf}) {
    test_type<R>(buf, Via::Plain, SHMEM_CTX_DEFAULT, ++salt);
    test_type<R>(buf, Via::DefaultCtx, SHMEM_CTX_DEFAULT, ++salt);
    if (created != SHMEM_CTX_DEFAULT) test_type<R>(buf, Via::CreatedCtx, created, ++salt);
  }
}

// --- Sized routines: elements of SIZE bits, on raw bytes. -------------------

struct Sized {
  size_t bytes;
  void (*put)(shmem_ctx_t, void*, const void*, size_t, int, bool);
  void (*get)(shmem_ctx_t, void*, const void*, size_t, int, bool);
  void (*iput)(shmem_ctx_t, void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int, bool);
  void (*iget)(shmem_ctx_t, void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int, bool);
  void (*put_nbi)(shmem_ctx_t, void*, const void*, size_t, int, bool);
  void (*get_nbi)(shmem_ctx_t, void*, const void*, size_t, int, bool);
};

#define TERN_SIZED(BITS)                                                                        \
  Sized {                                                                                       \
    BITS / 8,                                                                                   \
        [](shmem_ctx_t c, void* d, const void* s, size_t n, int pe, bool use_ctx) {            \
          use_ctx ? shmem_ctx_put##BITS(c, d, s, n, pe) : shmem_put##BITS(d, s, n, pe);         \
        },                                                                                      \
        [](shmem_ctx_t c, void* d, const void* s, size_t n, int pe, bool use_ctx) {            \
          use_ctx ? shmem_ctx_get##BITS(c, d, s, n, pe) : shmem_get##BITS(d, s, n, pe);         \
        },                                                                                      \
        [](shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe, \
           bool use_ctx) {                                                                      \
          use_ctx ? shmem_ctx_iput##BITS(c, d, s, dst, sst, n, pe)                              \
                  : shmem_iput##BITS(d, s, dst, sst, n, pe);                                    \
        },                                                                                      \
        [](shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe, \
           bool use_ctx) {                                                                      \
          use_ctx ? shmem_ctx_iget##BITS(c, d, s, dst, sst, n, pe)                              \
                  : shmem_iget##BITS(d, s, dst, sst, n, pe);                                    \
        },                                                                                      \
        [](shmem_ctx_t c, void* d, const void* s, size_t n, int pe, bool use_ctx) {            \
          use_ctx ? shmem_ctx_put##BITS##_nbi(c, d, s, n, pe) : shmem_put##BITS##_nbi(d, s, n, pe); \
        },                                                                                      \
        [](shmem_ctx_t c, void* d, const void* s, size_t n, int pe, bool use_ctx) {            \
          use_ctx ? shmem_ctx_get##BITS##_nbi(c, d, s, n, pe) : shmem_get##BITS##_nbi(d, s, n, pe); \
        },                                                                                      \
  }

alignas(64) unsigned char g_static_bytes[kSlots * kLen * 16];

unsigned char byte_value(int pe, size_t byte, int salt) {
  return static_cast<unsigned char>((pe * 29 + byte * 11 + salt * 5) % 251 + 1);
}

// Element e of a sized array (of `bytes` bytes) holds the bytes of source
// element `src_index` of `pe`.
bool element_is(const unsigned char* base, size_t e, size_t bytes, int pe, size_t src_index, int salt) {
  for (size_t b = 0; b < bytes; ++b) {
    if (base[e * bytes + b] != byte_value(pe, src_index * bytes + b, salt)) return false;
  }
  return true;
}
bool element_zero(const unsigned char* base, size_t e, size_t bytes) {
  for (size_t b = 0; b < bytes; ++b) {
    if (base[e * bytes + b] != 0) return false;
  }
  return true;
}

void test_sized(const Sized& sz, unsigned char* buf, shmem_ctx_t ctx, bool use_ctx, int salt) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  const size_t slot_bytes = kLen * sz.bytes;
  unsigned char* src = buf;
  auto slot = [&](size_t s) { return buf + s * slot_bytes; };
  for (size_t i = 0; i < slot_bytes; ++i) src[i] = byte_value(me, i, salt);
  std::memset(buf + slot_bytes, 0, (kSlots - 1) * slot_bytes);
  shmem_barrier_all();
  sz.put(ctx, slot(kPut), src, kLen, right, use_ctx);
  sz.put_nbi(ctx, slot(kPutNbi), src, kLen, right, use_ctx);
  for (size_t k = 0; k < 4; ++k) {
    sz.iput(ctx, slot(kIput0 + k), src, kStrides[k].dst, kStrides[k].src, kStridedElems, right, use_ctx);
  }
  sz.put(ctx, slot(kPutEmpty), src, 0, right, use_ctx);
  use_ctx ? shmem_ctx_quiet(ctx) : shmem_quiet();
  shmem_barrier_all();
  bool put_ok = true, nbi_ok = true, empty_ok = true;
  for (size_t e = 0; e < kLen; ++e) {
    put_ok = put_ok && element_is(slot(kPut), e, sz.bytes, left, e, salt);
    nbi_ok = nbi_ok && element_is(slot(kPutNbi), e, sz.bytes, left, e, salt);
    empty_ok = empty_ok && element_zero(slot(kPutEmpty), e, sz.bytes);
  }
  CHECK(put_ok);
  CHECK(nbi_ok);
  CHECK(empty_ok);
  for (size_t k = 0; k < 4; ++k) {
    const size_t dst = static_cast<size_t>(kStrides[k].dst), sst = static_cast<size_t>(kStrides[k].src);
    bool ok = true;
    for (size_t e = 0; e < kLen; ++e) {
      const bool defined = e % dst == 0 && e / dst < kStridedElems;
      ok = ok && (defined ? element_is(slot(kIput0 + k), e, sz.bytes, left, (e / dst) * sst, salt)
                          : element_zero(slot(kIput0 + k), e, sz.bytes));
    }
    CHECK(ok);
  }
  std::vector<unsigned char> local(slot_bytes);
  sz.get(ctx, local.data(), src, kLen, right, use_ctx);
  bool get_ok = true;
  for (size_t e = 0; e < kLen; ++e) get_ok = get_ok && element_is(local.data(), e, sz.bytes, right, e, salt);
  CHECK(get_ok);
  std::fill(local.begin(), local.end(), 0);
  sz.get_nbi(ctx, local.data(), src, kLen, right, use_ctx);
  use_ctx ? shmem_ctx_quiet(ctx) : shmem_quiet();
  bool get_nbi_ok = true;
  for (size_t e = 0; e < kLen; ++e) get_nbi_ok = get_nbi_ok && element_is(local.data(), e, sz.bytes, right, e, salt);
  CHECK(get_nbi_ok);
  for (size_t k = 0; k < 4; ++k) {
    const size_t dst = static_cast<size_t>(kStrides[k].dst), sst = static_cast<size_t>(kStrides[k].src);
    std::fill(local.begin(), local.end(), 0);
    sz.iget(ctx, local.data(), src, kStrides[k].dst, kStrides[k].src, kStridedElems, right, use_ctx);
    bool ok = true;
    for (size_t e = 0; e < kLen; ++e) {
      const bool defined = e % dst == 0 && e / dst < kStridedElems;
      ok = ok && (defined ? element_is(local.data(), e, sz.bytes, right, (e / dst) * sst, salt)
                          : element_zero(local.data(), e, sz.bytes));
    }
    CHECK(ok);
  }
  shmem_barrier_all();
}

// --- putmem / getmem ----------------------------------------------------------

void test_mem(unsigned char* buf, size_t capacity, shmem_ctx_t ctx, bool use_ctx, int salt) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  const size_t sizes[] = {0, 1, 3, 100, 4096 + 5, 65536, 1 << 20};
  const size_t offsets[] = {0, 3};
  // Layout: source in the first half, destination in the second.
  const size_t half = capacity / 2;
  for (size_t size : sizes) {
    for (size_t offset : offsets) {
      if (size + offset > half) continue;
      unsigned char* src = buf + offset;
      unsigned char* dst = buf + half + (offset ? 1 : 0);
      for (size_t i = 0; i < size; ++i) src[i] = byte_value(me, i, salt);
      std::memset(buf + half, 0, half);
      shmem_barrier_all();
      if (size % 2 == 0) {
        use_ctx ? shmem_ctx_putmem(ctx, dst, src, size, right) : shmem_putmem(dst, src, size, right);
      } else {
        use_ctx ? shmem_ctx_putmem_nbi(ctx, dst, src, size, right) : shmem_putmem_nbi(dst, src, size, right);
      }
      use_ctx ? shmem_ctx_quiet(ctx) : shmem_quiet();
      shmem_barrier_all();
      bool ok = true;
      for (size_t i = 0; i < size; ++i) ok = ok && dst[i] == byte_value(left, i, salt);
      // Nothing written past the end.
      ok = ok && dst[size] == 0;
      CHECK(ok);
      std::vector<unsigned char> local(size + 1, 0);
      if (size % 2 == 1) {
        use_ctx ? shmem_ctx_getmem(ctx, local.data(), src, size, right) : shmem_getmem(local.data(), src, size, right);
      } else {
        use_ctx ? shmem_ctx_getmem_nbi(ctx, local.data(), src, size, right)
                : shmem_getmem_nbi(local.data(), src, size, right);
        use_ctx ? shmem_ctx_quiet(ctx) : shmem_quiet();
      }
      bool got = true;
      for (size_t i = 0; i < size; ++i) got = got && local[i] == byte_value(right, i, salt);
      got = got && local[size] == 0;
      CHECK(got);
      shmem_barrier_all();
    }
  }
}

// Every PE writes its block into every PE's buffer, then reads every PE's.
void test_all_to_all(unsigned char* buf, size_t capacity) {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const size_t block = capacity / static_cast<size_t>(n) / 2;
  std::vector<unsigned char> mine(block);
  for (size_t i = 0; i < block; ++i) mine[i] = byte_value(me, i, 77);
  std::memset(buf, 0, capacity);
  shmem_barrier_all();
  for (int k = 0; k < n; ++k) {
    const int pe = (me + k) % n;
    if (k % 2 == 0) {
      shmem_putmem(buf + static_cast<size_t>(me) * block, mine.data(), block, pe);
    } else {
      shmem_putmem_nbi(buf + static_cast<size_t>(me) * block, mine.data(), block, pe);
    }
  }
  shmem_barrier_all();
  bool ok = true;
  for (int pe = 0; pe < n; ++pe) {
    for (size_t i = 0; i < block; ++i) ok = ok && buf[static_cast<size_t>(pe) * block + i] == byte_value(pe, i, 77);
  }
  CHECK(ok);
  std::vector<unsigned char> got(block);
  for (int pe = 0; pe < n; ++pe) {
    const int from = (pe + me) % n;
    shmem_getmem(got.data(), buf + static_cast<size_t>(from) * block, block, from);
    bool same = true;
    for (size_t i = 0; i < block; ++i) same = same && got[i] == byte_value(from, i, 77);
    CHECK(same);
  }
  shmem_barrier_all();
}

}  // namespace

int main() {
  shmem_init();
  void* heap = shmem_malloc(kSlots * kLen * 16);
  const size_t mem_capacity = (2u << 20) + 64;
  auto* mem = static_cast<unsigned char*>(shmem_malloc(mem_capacity));
  CHECK(heap != nullptr && mem != nullptr);
  shmem_ctx_t created = SHMEM_CTX_DEFAULT;
  CHECK(shmem_ctx_create(0, &created) == 0);
  if (heap != nullptr && mem != nullptr) {
#define TERN_RUN_RMA(T, N) test_type_everywhere<Rma_##N>(heap, created, g_static_##N);
    TERN_RMA_TYPES(TERN_RUN_RMA)
#undef TERN_RUN_RMA
    const Sized sized[] = {TERN_SIZED(8), TERN_SIZED(16), TERN_SIZED(32), TERN_SIZED(64), TERN_SIZED(128)};
    int salt = 0;
    for (const Sized& sz : sized) {
      for (unsigned char* buf : {static_cast<unsigned char*>(heap), g_static_bytes}) {
        test_sized(sz, buf, SHMEM_CTX_DEFAULT, false, ++salt);
        test_sized(sz, buf, SHMEM_CTX_DEFAULT, true, ++salt);
        if (created != SHMEM_CTX_DEFAULT) test_sized(sz, buf, created, true, ++salt);
      }
    }
    test_mem(mem, mem_capacity, SHMEM_CTX_DEFAULT, false, 1);
    test_mem(mem, mem_capacity, SHMEM_CTX_DEFAULT, true, 2);
    if (created != SHMEM_CTX_DEFAULT) test_mem(mem, mem_capacity, created, true, 3);
    test_mem(g_static_bytes, sizeof(g_static_bytes), SHMEM_CTX_DEFAULT, false, 4);
    test_all_to_all(mem, mem_capacity);
  }
  if (created != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(created);
  shmem_free(mem);
  shmem_free(heap);
  const int rc = tern_conclude("shmem_rma");
  shmem_finalize();
  return rc;
}
