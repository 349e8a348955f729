// Team-based collectives (OpenSHMEM 1.5), checked against a serial
// computation: broadcast (the root's dest is updated too), collect (a
// different count on each PE), fcollect, alltoall, alltoalls (with strides)
// for every standard RMA type and their *mem forms; every reduction (and, or,
// xor, max, min, sum, prod) for every type the spec allows, in place too;
// team_sync. Sizes 0, 1, 7, 64 and 1000 elements on SHMEM_TEAM_WORLD, and
// the same on teams split from it (even PEs, odd PEs, all but PE 0, a single
// PE), where PE numbers (the broadcast root) are team-relative.
#include <shmem.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "check.h"

#if TERN_SHMEM_1_5
namespace {

constexpr size_t kSizes[] = {0, 1, 7, 64, 1000};
constexpr size_t kSmallSizes[] = {1, 7};
constexpr size_t kMaxElems = 1000;
constexpr size_t kMaxStride = 3;

unsigned char* g_src = nullptr;
unsigned char* g_dst = nullptr;
size_t g_buf_bytes = 0;

struct Team {
  shmem_team_t team;
  const char* name;
  std::vector<int> members;  // world PE of each team PE
};

template <class T>
T value(int pe, size_t i, int salt) {
  return static_cast<T>((pe * 17 + static_cast<int>(i % 4096) * 5 + salt * 3) % 113 + 1);
}

template <class T>
void clear_dst() {
  T* d = reinterpret_cast<T*>(g_dst);
  for (size_t i = 0; i < g_buf_bytes / sizeof(T); ++i) d[i] = T(0);
}

// --- data movement, per RMA type --------------------------------------------

#define TERN_RMA_TYPES(X)                                                                       \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)                   \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)        \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                       \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)    \
  X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)                    \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

#define TERN_DEFINE_MOVE(T, N)                                                                   \
  struct Move_##N {                                                                             \
    using type = T;                                                                             \
    static int broadcast(shmem_team_t t, T* d, const T* s, size_t n, int root) {                 \
      return shmem_##N##_broadcast(t, d, s, n, root);                                           \
    }                                                                                           \
    static int collect(shmem_team_t t, T* d, const T* s, size_t n) { return shmem_##N##_collect(t, d, s, n); } \
    static int fcollect(shmem_team_t t, T* d, const T* s, size_t n) { return shmem_##N##_fcollect(t, d, s, n); } \
    static int alltoall(shmem_team_t t, T* d, const T* s, size_t n) { return shmem_##N##_alltoall(t, d, s, n); } \
    static int alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) { \
      return shmem_##N##_alltoalls(t, d, s, dst, sst, n);                                       \
    }                                                                                           \
  };
TERN_RMA_TYPES(TERN_DEFINE_MOVE)

// The *mem forms, as a "type" of bytes.
struct Move_mem {
  using type = unsigned char;
  static int broadcast(shmem_team_t t, unsigned char* d, const unsigned char* s, size_t n, int root) {
    return shmem_broadcastmem(t, d, s, n, root);
  }
  static int collect(shmem_team_t t, unsigned char* d, const unsigned char* s, size_t n) { return shmem_collectmem(t, d, s, n); }
  static int fcollect(shmem_team_t t, unsigned char* d, const unsigned char* s, size_t n) { return shmem_fcollectmem(t, d, s, n); }
  static int alltoall(shmem_team_t t, unsigned char* d, const unsigned char* s, size_t n) { return shmem_alltoallmem(t, d, s, n); }
  static int alltoalls(shmem_team_t t, unsigned char* d, const unsigned char* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) {
    return shmem_alltoallsmem(t, d, s, dst, sst, n);
  }
};

template <class R>
void test_broadcast(const Team& team, int my_index, const size_t* sizes, size_t count, int salt) {
  using T = typename R::type;
  const int size = static_cast<int>(team.members.size());
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = reinterpret_cast<T*>(g_dst);
  const int me = shmem_my_pe();
  for (size_t s = 0; s < count; ++s) {
    const size_t nelems = sizes[s];
    for (int root : {0, size - 1}) {
      for (size_t i = 0; i < nelems; ++i) src[i] = value<T>(me, i, salt);
      clear_dst<T>();
      shmem_team_sync(team.team);
      CHECK(R::broadcast(team.team, dst, src, nelems, root) == 0);
      bool ok = true;
      for (size_t i = 0; i < nelems; ++i) ok = ok && dst[i] == value<T>(team.members[static_cast<size_t>(root)], i, salt);
      ok = ok && dst[nelems] == T(0);
      CHECK(ok);
      shmem_team_sync(team.team);
    }
  }
  (void)my_index;
}

template <class R>
void test_collect(const Team& team, int my_index, bool fixed, const size_t* sizes, size_t count, int salt) {
  using T = typename R::type;
  const int size = static_cast<int>(team.members.size());
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = reinterpret_cast<T*>(g_dst);
  const int me = shmem_my_pe();
  for (size_t s = 0; s < count; ++s) {
    const size_t base = sizes[s];
    auto elems = [&](int k) { return fixed ? base : base + static_cast<size_t>(k % 3); };
    const size_t mine = elems(my_index);
    for (size_t i = 0; i < mine; ++i) src[i] = value<T>(me, i, salt);
    clear_dst<T>();
    shmem_team_sync(team.team);
    CHECK((fixed ? R::fcollect(team.team, dst, src, mine) : R::collect(team.team, dst, src, mine)) == 0);
    bool ok = true;
    size_t at = 0;
    for (int k = 0; k < size; ++k) {
      for (size_t i = 0; i < elems(k); ++i) ok = ok && dst[at++] == value<T>(team.members[static_cast<size_t>(k)], i, salt);
    }
    ok = ok && dst[at] == T(0);
    CHECK(ok);
    shmem_team_sync(team.team);
  }
}

template <class R>
void test_alltoall(const Team& team, int my_index, const size_t* sizes, size_t count, int salt) {
  using T = typename R::type;
  const int size = static_cast<int>(team.members.size());
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = reinterpret_cast<T*>(g_dst);
  const int me = shmem_my_pe();
  auto block_value = [&](int from, int to_index, size_t i) {
    return value<T>(from, static_cast<size_t>(to_index) * 7 + i, salt);
  };
  for (size_t s = 0; s < count; ++s) {
    const size_t nelems = sizes[s];
    for (int k = 0; k < size; ++k) {
      for (size_t i = 0; i < nelems; ++i) src[static_cast<size_t>(k) * nelems + i] = block_value(me, k, i);
    }
    clear_dst<T>();
    shmem_team_sync(team.team);
    CHECK(R::alltoall(team.team, dst, src, nelems) == 0);
    bool ok = true;
    for (int k = 0; k < size; ++k) {
      for (size_t i = 0; i < nelems; ++i) {
        ok = ok && dst[static_cast<size_t>(k) * nelems + i] == block_value(team.members[static_cast<size_t>(k)], my_index, i);
      }
    }
    ok = ok && dst[static_cast<size_t>(size) * nelems] == T(0);
    CHECK(ok);
    shmem_team_sync(team.team);
  }
  const ptrdiff_t strides[][2] = {{1, 1}, {2, 3}, {3, 1}};
  for (const auto& st : strides) {
    const size_t dst_stride = static_cast<size_t>(st[0]), src_stride = static_cast<size_t>(st[1]);
    for (size_t nelems : {size_t(1), size_t(9)}) {
      for (int k = 0; k < size; ++k) {
        for (size_t i = 0; i < nelems; ++i) src[src_stride * (static_cast<size_t>(k) * nelems + i)] = block_value(me, k, i);
      }
      clear_dst<T>();
      shmem_team_sync(team.team);
      CHECK(R::alltoalls(team.team, dst, src, st[0], st[1], nelems) == 0);
      bool ok = true;
      const size_t span = dst_stride * static_cast<size_t>(size) * nelems;
      for (size_t at = 0; at < span + 1; ++at) {
        const bool used = at < span && at % dst_stride == 0;
        const size_t element = at / dst_stride;
        const size_t from_index = element / nelems;
        const T expected = used ? block_value(team.members[from_index], my_index, element % nelems) : T(0);
        ok = ok && dst[at] == expected;
      }
      CHECK(ok);
      shmem_team_sync(team.team);
    }
  }
}

template <class R>
void test_moves(const Team& team, int my_index, bool full, int salt) {
  const size_t* sizes = full ? kSizes : kSmallSizes;
  const size_t count = full ? sizeof(kSizes) / sizeof(kSizes[0]) : sizeof(kSmallSizes) / sizeof(kSmallSizes[0]);
  test_broadcast<R>(team, my_index, sizes, count, salt);
  test_collect<R>(team, my_index, false, sizes, count, salt + 1);
  test_collect<R>(team, my_index, true, sizes, count, salt + 2);
  test_alltoall<R>(team, my_index, sizes, count, salt + 3);
}

// --- reductions -----------------------------------------------------------------

enum class Op { And, Or, Xor, Max, Min, Sum, Prod };

template <class T>
T red_value(Op op, int pe, size_t i) {
  const int k = static_cast<int>(i % 1024);
  switch (op) {
    case Op::And: return static_cast<T>(~(1 << ((pe + k) % 8)) & 0x7f);
    case Op::Or: return static_cast<T>(1 << ((pe * 3 + k) % 7));
    case Op::Xor: return static_cast<T>((pe * 29 + k * 7) & 0x7f);
    case Op::Max:
    case Op::Min:
      if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>) {
        return static_cast<T>((pe * 37 + k * 11) % 100 - 50);
      } else {
        return static_cast<T>((pe * 37 + k * 11) % 100);
      }
    case Op::Sum: return static_cast<T>(pe % 4 + k % 8);
    case Op::Prod: return static_cast<T>(((pe + k) % 4 == 0) ? 2 : 1);
  }
  return T(0);
}

template <class T>
T combine(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (op == Op::And) return static_cast<T>(a & b);
    if (op == Op::Or) return static_cast<T>(a | b);
    if (op == Op::Xor) return static_cast<T>(a ^ b);
  }
  switch (op) {
    case Op::Max: return std::max(a, b);
    case Op::Min: return std::min(a, b);
    case Op::Sum: return static_cast<T>(a + b);
    case Op::Prod: return static_cast<T>(a * b);
    default: return a;
  }
}

using Reduce = int (*)(shmem_team_t, void* dest, const void* src, size_t nreduce);

template <class T>
void test_reduce(const Team& team, Op op, Reduce reduce, const size_t* sizes, size_t count) {
  const int me = shmem_my_pe();
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = reinterpret_cast<T*>(g_dst);
  for (size_t s = 0; s < count; ++s) {
    const size_t nreduce = sizes[s];
    for (bool in_place : {false, true}) {
      if (in_place && nreduce != 7) continue;
      for (size_t i = 0; i < nreduce; ++i) src[i] = red_value<T>(op, me, i);
      for (size_t i = 0; i <= nreduce; ++i) dst[i] = T(0);
      shmem_team_sync(team.team);
      T* out = in_place ? src : dst;
      CHECK(reduce(team.team, out, src, nreduce) == 0);
      bool ok = true;
      for (size_t i = 0; i < nreduce; ++i) {
        T expected = red_value<T>(op, team.members[0], i);
        for (size_t k = 1; k < team.members.size(); ++k) expected = combine<T>(op, expected, red_value<T>(op, team.members[k], i));
        ok = ok && out[i] == expected;
      }
      if (!in_place) ok = ok && dst[nreduce] == T(0);
      CHECK(ok);
      shmem_team_sync(team.team);
    }
  }
}

#define TERN_REDUCE(T, N, OP)                                                            \
  [](shmem_team_t t, void* d, const void* s, size_t n) {                                 \
    return shmem_##N##_##OP##_reduce(t, static_cast<T*>(d), static_cast<const T*>(s), n); \
  }
#define TERN_REDUCE_ARITH(T, N)                                                          \
  test_reduce<T>(team, Op::Max, TERN_REDUCE(T, N, max), sizes, count);                   \
  test_reduce<T>(team, Op::Min, TERN_REDUCE(T, N, min), sizes, count);                   \
  test_reduce<T>(team, Op::Sum, TERN_REDUCE(T, N, sum), sizes, count);                   \
  test_reduce<T>(team, Op::Prod, TERN_REDUCE(T, N, prod), sizes, count);
#define TERN_REDUCE_BITWISE(T, N)                                                        \
  test_reduce<T>(team, Op::And, TERN_REDUCE(T, N, and), sizes, count);                   \
  test_reduce<T>(team, Op::Or, TERN_REDUCE(T, N, or), sizes, count);                     \
  test_reduce<T>(team, Op::Xor, TERN_REDUCE(T, N, xor), sizes, count);                   \
  TERN_REDUCE_ARITH(T, N)

void test_reductions(const Team& team, bool full) {
  const size_t* sizes = full ? kSizes : kSmallSizes;
  const size_t count = full ? sizeof(kSizes) / sizeof(kSizes[0]) : sizeof(kSmallSizes) / sizeof(kSmallSizes[0]);
  // MAX, MIN, SUM, PROD only.
  TERN_REDUCE_ARITH(char, char)
  TERN_REDUCE_ARITH(signed char, schar)
  TERN_REDUCE_ARITH(short, short)
  TERN_REDUCE_ARITH(int, int)
  TERN_REDUCE_ARITH(long, long)
  TERN_REDUCE_ARITH(long long, longlong)
  TERN_REDUCE_ARITH(ptrdiff_t, ptrdiff)
  TERN_REDUCE_ARITH(float, float)
  TERN_REDUCE_ARITH(double, double)
  TERN_REDUCE_ARITH(long double, longdouble)
  // AND, OR, XOR too.
  TERN_REDUCE_BITWISE(unsigned char, uchar)
  TERN_REDUCE_BITWISE(unsigned short, ushort)
  TERN_REDUCE_BITWISE(unsigned int, uint)
  TERN_REDUCE_BITWISE(unsigned long, ulong)
  TERN_REDUCE_BITWISE(unsigned long long, ulonglong)
  TERN_REDUCE_BITWISE(int8_t, int8)
  TERN_REDUCE_BITWISE(int16_t, int16)
  TERN_REDUCE_BITWISE(int32_t, int32)
  TERN_REDUCE_BITWISE(int64_t, int64)
  TERN_REDUCE_BITWISE(uint8_t, uint8)
  TERN_REDUCE_BITWISE(uint16_t, uint16)
  TERN_REDUCE_BITWISE(uint32_t, uint32)
  TERN_REDUCE_BITWISE(uint64_t, uint64)
  TERN_REDUCE_BITWISE(size_t, size)
}

// --- team_sync -------------------------------------------------------------------

void test_team_sync(const Team& team, int my_index) {
  static long slots[64];
  const int size = static_cast<int>(team.members.size());
  for (int r = 0; r < 4; ++r) {
    const int next = team.members[static_cast<size_t>((my_index + 1) % size)];
    shmem_long_p(&slots[my_index % 64], 10L * r + my_index, next);
    shmem_quiet();
    CHECK(shmem_team_sync(team.team) == 0);
    const int prev = (my_index + size - 1) % size;
    CHECK(slots[prev % 64] == 10L * r + prev);
    CHECK(shmem_team_sync(team.team) == 0);
  }
}

// --- teams -------------------------------------------------------------------------

std::vector<Team> make_teams(int n) {
  std::vector<Team> teams;
  std::vector<int> world(static_cast<size_t>(n));
  for (int pe = 0; pe < n; ++pe) world[static_cast<size_t>(pe)] = pe;
  teams.push_back({SHMEM_TEAM_WORLD, "world", world});
  struct Split {
    const char* name;
    int start, stride, size;
  };
  std::vector<Split> splits = {{"even", 0, 2, (n + 1) / 2}, {"single", n - 1, 1, 1}};
  if (n >= 2) splits.push_back({"odd", 1, 2, n / 2});
  if (n >= 2) splits.push_back({"all-but-0", 1, 1, n - 1});
  shmem_team_config_t config;
  config.num_contexts = 0;
  for (const Split& split : splits) {
    shmem_team_t team = SHMEM_TEAM_INVALID;
    const int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, split.start, split.stride, split.size, &config, 0, &team);
    CHECK(rc == 0);
    std::vector<int> members;
    for (int k = 0; k < split.size; ++k) members.push_back(split.start + k * split.stride);
    teams.push_back({team, split.name, members});
  }
  return teams;
}

}  // namespace
#endif  // TERN_SHMEM_1_5

int main() {
  shmem_init();
#if TERN_SHMEM_1_5
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  g_buf_bytes = static_cast<size_t>(n) * kMaxElems * kMaxStride * 16 + 64;
  g_src = static_cast<unsigned char*>(shmem_malloc(g_buf_bytes));
  g_dst = static_cast<unsigned char*>(shmem_malloc(g_buf_bytes));
  CHECK(g_src != nullptr && g_dst != nullptr);
  if (g_src != nullptr && g_dst != nullptr) {
    std::vector<Team> teams = make_teams(n);
    for (size_t t = 0; t < teams.size(); ++t) {
      const Team& team = teams[t];
      int salt = static_cast<int>(t) * 1000;  // the same on every member of the team
      const auto found = std::find(team.members.begin(), team.members.end(), me);
      const bool member = found != team.members.end();
      CHECK(member == (team.team != SHMEM_TEAM_INVALID));
      if (member && team.team != SHMEM_TEAM_INVALID) {
        const int my_index = static_cast<int>(found - team.members.begin());
        CHECK(shmem_team_my_pe(team.team) == my_index);
        CHECK(shmem_team_n_pes(team.team) == static_cast<int>(team.members.size()));
        const bool full = team.team == SHMEM_TEAM_WORLD;
        test_team_sync(team, my_index);
        if (full) {
#define TERN_RUN_MOVES(T, N) test_moves<Move_##N>(team, my_index, true, salt += 4);
          TERN_RMA_TYPES(TERN_RUN_MOVES)
#undef TERN_RUN_MOVES
        } else {
          test_moves<Move_int>(team, my_index, false, salt += 4);
          test_moves<Move_double>(team, my_index, false, salt += 4);
          test_moves<Move_char>(team, my_index, false, salt += 4);
        }
        test_moves<Move_mem>(team, my_index, full, salt += 4);
        test_reductions(team, full);
      }
      shmem_barrier_all();
    }
    for (const Team& team : teams) {
      if (team.team != SHMEM_TEAM_WORLD && team.team != SHMEM_TEAM_INVALID) shmem_team_destroy(team.team);
    }
  }
  shmem_free(g_dst);
  shmem_free(g_src);
#endif
  const int rc = tern_conclude("shmem_coll");
  shmem_finalize();
  return rc;
}
