// Collectives over a team or an active set: broadcast, collect, fcollect,
// alltoall(s) and the reductions. Every PE's symmetric memory is mapped here
// (or, on another host, read with RMA gets), so a collective needs no messages: each PE pulls what its own dest needs
// straight from the members' source objects, between two barriers. The first
// says every source is ready and every dest free; the second that nobody
// reads a source any more, so a PE may reuse it once the call returns.
// Pulling means a PE only ever stores into its own memory, so two PEs never
// write one place, whatever the arguments.
//
// What may not overlap follows from that: while a PE writes its dest, the
// others may still read its source. So a reduction builds its result aside
// and the broadcast root fills its own dest only after the closing barrier
// (both may then be in place), while the gathers refuse a dest that overlaps
// the PE's own source.
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "shmemx.h"
#include "state.hpp"

namespace tern::shmem {
namespace {

// The PEs of one collective: a team's, or an active set's (the legacy calls).
struct Group {
  const int* members = nullptr;  // world PEs, in group order
  int size = 0;
  int my_index = -1;
  unsigned slot = 0;
  const char* kind = "team";  // for messages

  [[nodiscard]] int pe(int index) const noexcept { return members[index]; }
};

void sync(const Group& group) noexcept { barrier(group.slot, group.members, group.size, group.my_index); }

// The group behind a team handle (not SHMEM_TEAM_INVALID: the callers answer
// that with a non-zero status first).
Group team_group(const char* function, shmem_team_t handle) {
  const tern_shmem_team& team = checked_team(function, handle);
  return {team.members.data(), static_cast<int>(team.members.size()), team.my_index, team.slot, "team"};
}

// The active set PE_start, 2^logPE_stride, PE_size, checked, with pSync
// (which Tern does not use: its own sync words are per slot) checked for
// being symmetric, as the specification requires and other libraries rely on.
Group active_set(const char* function, int start, int log_stride, int size, const long* pSync, std::size_t sync_words) {
  const State& s = state(function);
  if (size < 1) fail(function, "PE_size %d: an active set has at least one PE", size);
  if (log_stride < 0 || log_stride > 30) fail(function, "logPE_stride %d is not between 0 and 30", log_stride);
  if (start < 0 || start >= s.n_pes) {
    fail(function, "PE_start %d is out of range (the job has PEs 0..%d)", start, s.n_pes - 1);
  }
  const long long stride = 1LL << log_stride;
  const long long last = start + (size - 1) * stride;
  if (last >= s.n_pes) {
    fail(function, "the active set (PE_start %d, logPE_stride %d, PE_size %d) ends at PE %lld, past the last PE %d",
         start, log_stride, size, last, s.n_pes - 1);
  }
  const long long offset = s.my_pe - start;
  if (offset < 0 || offset % stride != 0 || offset / stride >= size) {
    fail(function,
         "this PE (%d) is not in the active set (PE_start %d, logPE_stride %d, PE_size %d); only its members may call",
         s.my_pe, start, log_stride, size);
  }
  if (!is_symmetric(pSync, sync_words * sizeof(long))) {
    fail(function,
         "pSync %p is not symmetric: it must be an array of %zu longs in the symmetric heap or the program's "
         "global or static data, the same array on every PE of the active set",
         static_cast<const void*>(pSync), sync_words);
  }
  // Programs call with the same set over and over: keep its member list.
  struct Cached {
    int start = -1, log_stride = -1, size = 0;
    std::vector<int> members;
  };
  thread_local Cached cached;
  if (cached.start != start || cached.log_stride != log_stride || cached.size != size) {
    cached.members.resize(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) cached.members[static_cast<std::size_t>(i)] = static_cast<int>(start + i * stride);
    cached.start = start;
    cached.log_stride = log_stride;
    cached.size = size;
  }
  return {cached.members.data(), size, static_cast<int>(offset / stride), kSlotActiveSet, "active set"};
}

std::size_t multiply(const char* function, std::size_t a, std::size_t b) {
  std::size_t product;
  if (__builtin_mul_overflow(a, b, &product)) fail(function, "the size %zu x %zu overflows", a, b);
  return product;
}

// Bytes from the first to the end of the last of `count` elements `stride` elements apart.
std::size_t strided_span(const char* function, std::size_t count, std::size_t stride, std::size_t element) {
  if (count == 0) return 0;
  return multiply(function, multiply(function, count - 1, stride) + 1, element);
}

void check_symmetric(const char* function, const char* name, const void* address, std::size_t bytes) {
  if (bytes == 0 || is_symmetric(address, bytes)) return;
  fail(function,
       "%s %p (%zu bytes) is not symmetric: it must lie in the symmetric heap (shmem_malloc) or the program's "
       "global or static data",
       name, address, bytes);
}

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) noexcept {
  const auto x = reinterpret_cast<uintptr_t>(a);
  const auto y = reinterpret_cast<uintptr_t>(b);
  return a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}

// Whether two strided sets of `count` elements of `element` bytes share a
// byte: a's at a + k * a_step, b's at b + m * b_step (steps in bytes, at
// least `element`). Interleaved arrays are fine, so spans alone cannot tell.
bool strided_overlap(const void* a, std::size_t a_step, const void* b, std::size_t b_step, std::size_t count,
                     std::size_t element) noexcept {
  if (count == 0) return false;
  if (!overlap(a, (count - 1) * a_step + element, b, (count - 1) * b_step + element)) return false;
  // Both lie in one symmetric region, so the distances fit a long long.
  const long long from_b = static_cast<long long>(reinterpret_cast<uintptr_t>(a) - reinterpret_cast<uintptr_t>(b));
  const auto a_stride = static_cast<long long>(a_step);
  const auto b_stride = static_cast<long long>(b_step);
  const auto size = static_cast<long long>(element);
  const auto n = static_cast<long long>(count);
  for (long long k = 0; k < n; ++k) {
    const long long p = from_b + k * a_stride;  // a's element k starts here, relative to b
    // b's element m shares a byte when m * b_stride lies in (p - size, p + size).
    const long long low = p - size;
    const long long m = low < 0 ? 0 : low / b_stride + 1;
    if (m < n && m * b_stride < p + size) return true;
  }
  return false;
}

[[noreturn]] void overlapping(const char* function, const void* dest, std::size_t dest_bytes, const void* source,
                              std::size_t source_bytes) {
  fail(function,
       "dest %p (%zu bytes) overlaps source %p (%zu bytes) on this PE: the other PEs read source while this PE "
       "writes dest, so they must be separate objects",
       dest, dest_bytes, source, source_bytes);
}

const std::byte* peer_source(const char* function, const void* source, std::size_t offset, std::size_t bytes,
                             int pe) {
  const void* object = static_cast<const std::byte*>(source) + offset;
  const std::byte* mapped = mapped_or_net(function, object, bytes, pe);
  if (TERN_LIKELY(mapped != nullptr) || bytes == 0) return mapped;
  // A PE on another host: its bytes come into a staging buffer, which every
  // caller copies out of before asking for the next source.
  static thread_local std::vector<std::byte> staging;
  if (staging.size() < bytes) staging.resize(bytes);
  net_get(function, staging.data(), object, bytes, pe);
  return staging.data();
}

// --- Data movement, in bytes.

// root_receives: the team form writes the root's dest too, the active-set
// form leaves it alone.
void broadcast(const char* function, const Group& group, void* dest, const void* source, std::size_t bytes, int root,
               bool root_receives) {
  if (root < 0 || root >= group.size) {
    fail(function, "PE_root %d is not a PE of the %s (0..%d)", root, group.kind, group.size - 1);
  }
  check_symmetric(function, "dest", dest, bytes);
  check_symmetric(function, "source", source, bytes);
  sync(group);
  const bool is_root = group.my_index == root;
  if (!is_root && bytes != 0) std::memcpy(dest, peer_source(function, source, 0, bytes, group.pe(root)), bytes);
  sync(group);
  // Only now, with nobody reading the root's source: its dest may be the
  // same array, or overlap it.
  if (is_root && root_receives && bytes != 0 && dest != source) std::memmove(dest, source, bytes);
}

// Each PE gives `bytes` (its own count); dest gets them all in group order.
void collect(const char* function, const Group& group, void* dest, const void* source, std::size_t bytes) {
  check_symmetric(function, "source", source, bytes);
  // The counts travel through the published words, read between the barriers.
  g_state->control.published[group.slot].store(bytes, std::memory_order_relaxed);
  sync(group);
  const auto count_of = [&](int index) {
    return static_cast<std::size_t>(published_word(group.pe(index), group.slot));
  };
  std::size_t total = 0;
  for (int i = 0; i < group.size; ++i) {
    if (__builtin_add_overflow(total, count_of(i), &total)) fail(function, "the collected size overflows");
  }
  check_symmetric(function, "dest", dest, total);
  if (overlap(dest, total, source, bytes)) overlapping(function, dest, total, source, bytes);
  auto* out = static_cast<std::byte*>(dest);
  for (int i = 0; i < group.size; ++i) {
    const std::size_t count = count_of(i);
    if (count != 0) std::memcpy(out, peer_source(function, source, 0, count, group.pe(i)), count);
    out += count;
  }
  sync(group);  // also: nobody publishes again before everyone has read the counts
}

// Reading starts at the next member and wraps, so the PEs do not all read
// member 0 first.
void fcollect(const char* function, const Group& group, void* dest, const void* source, std::size_t bytes) {
  const std::size_t total = multiply(function, bytes, static_cast<std::size_t>(group.size));
  check_symmetric(function, "dest", dest, total);
  check_symmetric(function, "source", source, bytes);
  if (overlap(dest, total, source, bytes)) overlapping(function, dest, total, source, bytes);
  sync(group);
  if (bytes != 0) {
    auto* out = static_cast<std::byte*>(dest);
    for (int step = 0; step < group.size; ++step) {
      const int i = (group.my_index + step) % group.size;
      const std::byte* from = peer_source(function, source, 0, bytes, group.pe(i));
      std::memcpy(out + static_cast<std::size_t>(i) * bytes, from, bytes);
    }
  }
  sync(group);
}

// Block i of this PE's dest is block my_index of member i's source.
void alltoall(const char* function, const Group& group, void* dest, const void* source, std::size_t block) {
  const std::size_t total = multiply(function, block, static_cast<std::size_t>(group.size));
  check_symmetric(function, "dest", dest, total);
  check_symmetric(function, "source", source, total);
  if (overlap(dest, total, source, total)) overlapping(function, dest, total, source, total);
  sync(group);
  if (block != 0) {
    auto* out = static_cast<std::byte*>(dest);
    const std::size_t mine = static_cast<std::size_t>(group.my_index) * block;
    for (int step = 0; step < group.size; ++step) {
      const int i = (group.my_index + step) % group.size;
      std::memcpy(out + static_cast<std::size_t>(i) * block, peer_source(function, source, mine, block, group.pe(i)),
                  block);
    }
  }
  sync(group);
}

// As alltoall with strided elements: element e of the block from member i
// lands at dest[(i * nelems + e) * dst], read from that member's
// source[(my_index * nelems + e) * sst] (strides in elements).
template <std::size_t Element>
void alltoalls(const char* function, const Group& group, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
               std::size_t nelems) {
  if (dst < 1 || sst < 1) fail(function, "strides must be at least 1 (dst %td, sst %td)", dst, sst);
  const auto dest_stride = static_cast<std::size_t>(dst);
  const auto source_stride = static_cast<std::size_t>(sst);
  const std::size_t count = multiply(function, nelems, static_cast<std::size_t>(group.size));
  const std::size_t dest_span = strided_span(function, count, dest_stride, Element);
  const std::size_t source_span = strided_span(function, count, source_stride, Element);
  check_symmetric(function, "dest", dest, dest_span);
  check_symmetric(function, "source", source, source_span);
  if (strided_overlap(dest, dest_stride * Element, source, source_stride * Element, count, Element)) {
    overlapping(function, dest, dest_span, source, source_span);
  }
  sync(group);
  if (nelems != 0) {
    auto* out = static_cast<std::byte*>(dest);
    const std::size_t block_span = strided_span(function, nelems, source_stride, Element);
    const std::size_t mine = static_cast<std::size_t>(group.my_index) * nelems * source_stride * Element;
    for (int step = 0; step < group.size; ++step) {
      const int i = (group.my_index + step) % group.size;
      const std::byte* from = peer_source(function, source, mine, block_span, group.pe(i));
      std::byte* to = out + static_cast<std::size_t>(i) * nelems * dest_stride * Element;
      for (std::size_t e = 0; e < nelems; ++e) {
        std::memcpy(to + e * dest_stride * Element, from + e * source_stride * Element, Element);
      }
    }
  }
  sync(group);
}

// --- Reductions.

enum class Op { kAnd, kOr, kXor, kMax, kMin, kSum, kProd };
#define TERN_REDUCE_OP_and Op::kAnd
#define TERN_REDUCE_OP_or Op::kOr
#define TERN_REDUCE_OP_xor Op::kXor
#define TERN_REDUCE_OP_max Op::kMax
#define TERN_REDUCE_OP_min Op::kMin
#define TERN_REDUCE_OP_sum Op::kSum
#define TERN_REDUCE_OP_prod Op::kProd

// Integer arithmetic wraps, as on every SHMEM: it is done unsigned and at
// least as wide as int, so neither overflow nor promotion is undefined.
template <typename T>
using Wrapping = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
inline constexpr bool kComplex = std::is_same_v<T, __complex__ double> || std::is_same_v<T, __complex__ float>;

template <typename T, Op op>
inline T combine(T a, T b) noexcept {
  if constexpr (op == Op::kMax) {
    return b > a ? b : a;
  } else if constexpr (op == Op::kMin) {
    return b < a ? b : a;
  } else if constexpr (std::is_floating_point_v<T> || kComplex<T>) {
    static_assert(op == Op::kSum || op == Op::kProd, "and, or and xor are for integer types only");
    if constexpr (op == Op::kSum) return a + b;
    else return a * b;
  } else {
    using W = Wrapping<T>;
    const W x = static_cast<W>(a), y = static_cast<W>(b);
    if constexpr (op == Op::kAnd) return static_cast<T>(x & y);
    else if constexpr (op == Op::kOr) return static_cast<T>(x | y);
    else if constexpr (op == Op::kXor) return static_cast<T>(x ^ y);
    else if constexpr (op == Op::kSum) return static_cast<T>(x + y);
    else return static_cast<T>(x * y);
  }
}

// Reductions go by chunks this large, so the partial result stays in cache
// and a large reduction needs no large buffer; a chunk costs one barrier.
constexpr std::size_t kReduceChunkBytes = std::size_t{64} << 10;
constexpr std::size_t kReduceStackBytes = 4096;

// Room for the partial result: on the stack when small.
template <typename T>
class Partial {
 public:
  explicit Partial(std::size_t count) {
    if (count * sizeof(T) > sizeof(local_)) {
      heap_.reset(new T[count]);
      data_ = heap_.get();
    }
  }
  Partial(const Partial&) = delete;
  Partial& operator=(const Partial&) = delete;
  [[nodiscard]] T* data() noexcept { return data_; }

 private:
  alignas(64) T local_[kReduceStackBytes / sizeof(T)];
  std::unique_ptr<T[]> heap_;
  T* data_ = local_;
};

// Every PE reduces all the members' sources itself, in group order, so all
// get the same result to the bit (floating point included). dest is written
// only after the barrier that ends the reading of a chunk: it may be the
// source array itself, which the others are reading until then.
template <typename T, Op op>
void reduce(const char* function, const Group& group, T* dest, const T* source, std::size_t count) {
  const std::size_t bytes = multiply(function, count, sizeof(T));
  check_symmetric(function, "dest", dest, bytes);
  check_symmetric(function, "source", source, bytes);
  if (dest != source && overlap(dest, bytes, source, bytes)) {
    fail(function,
         "dest %p and source %p (%zu bytes each) overlap without being the same array: a reduction may be in "
         "place (dest == source) but not shifted",
         static_cast<void*>(dest), static_cast<const void*>(source), bytes);
  }
  sync(group);
  constexpr std::size_t kChunk = kReduceChunkBytes / sizeof(T);
  Partial<T> partial_buffer(std::min(count, kChunk));
  T* __restrict partial = partial_buffer.data();
  for (std::size_t start = 0; start < count; start += kChunk) {
    const std::size_t n = std::min(kChunk, count - start);
    const std::size_t chunk_bytes = n * sizeof(T);
    const std::size_t offset = start * sizeof(T);
    std::memcpy(partial, peer_source(function, source, offset, chunk_bytes, group.pe(0)), chunk_bytes);
    for (int i = 1; i < group.size; ++i) {
      const auto* __restrict in =
          reinterpret_cast<const T*>(peer_source(function, source, offset, chunk_bytes, group.pe(i)));
      for (std::size_t k = 0; k < n; ++k) partial[k] = combine<T, op>(partial[k], in[k]);
    }
    sync(group);
    std::memcpy(dest + start, partial, chunk_bytes);
  }
}

// --- The team-based entry points' bodies. SHMEM_TEAM_INVALID gets a
// non-zero status and no synchronization (its PEs are not a team).

int team_broadcast(const char* function, shmem_team_t team, void* dest, const void* source, std::size_t nelems,
                   std::size_t element, int root) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Group group = team_group(function, team);
  broadcast(function, group, dest, source, multiply(function, nelems, element), root, true);
  return 0;
}

int team_collect(const char* function, shmem_team_t team, void* dest, const void* source, std::size_t nelems,
                 std::size_t element) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Group group = team_group(function, team);
  collect(function, group, dest, source, multiply(function, nelems, element));
  return 0;
}

int team_fcollect(const char* function, shmem_team_t team, void* dest, const void* source, std::size_t nelems,
                  std::size_t element) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Group group = team_group(function, team);
  fcollect(function, group, dest, source, multiply(function, nelems, element));
  return 0;
}

int team_alltoall(const char* function, shmem_team_t team, void* dest, const void* source, std::size_t nelems,
                  std::size_t element) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Group group = team_group(function, team);
  alltoall(function, group, dest, source, multiply(function, nelems, element));
  return 0;
}

template <std::size_t Element>
int team_alltoalls(const char* function, shmem_team_t team, void* dest, const void* source, ptrdiff_t dst,
                   ptrdiff_t sst, std::size_t nelems) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Group group = team_group(function, team);
  alltoalls<Element>(function, group, dest, source, dst, sst, nelems);
  return 0;
}

template <typename T, Op op>
int team_reduce(const char* function, shmem_team_t team, T* dest, const T* source, std::size_t nreduce) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Group group = team_group(function, team);
  reduce<T, op>(function, group, dest, source, nreduce);
  return 0;
}

// pWrk is not used either, but a program that passes a private or short one
// fails on other libraries: the specification's size is checked.
template <typename T, Op op>
void to_all(const char* function, T* dest, const T* source, int nreduce, int start, int log_stride, int size,
            const T* pWrk, const long* pSync) {
  const Group group = active_set(function, start, log_stride, size, pSync, SHMEM_REDUCE_SYNC_SIZE);
  if (nreduce < 0) fail(function, "nreduce %d is negative", nreduce);
  const auto work = std::max<std::size_t>(static_cast<std::size_t>(nreduce) / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
  if (!is_symmetric(pWrk, work * sizeof(T))) {
    fail(function,
         "pWrk %p is not a symmetric array of at least max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) = %zu "
         "elements",
         static_cast<const void*>(pWrk), work);
  }
  reduce<T, op>(function, group, dest, source, static_cast<std::size_t>(nreduce));
}

}  // namespace
}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

// --- Team based.

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) {
  return team_broadcast("shmem_broadcastmem", team, dest, source, nelems, 1, PE_root);
}

int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return team_collect("shmem_collectmem", team, dest, source, nelems, 1);
}

int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return team_fcollect("shmem_fcollectmem", team, dest, source, nelems, 1);
}

int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return team_alltoall("shmem_alltoallmem", team, dest, source, nelems, 1);
}

int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) {
  return team_alltoalls<1>("shmem_alltoallsmem", team, dest, source, dst, sst, nelems);
}

#define TERN_SHMEM_DEFINE_COLL(T, N)                                                                      \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root) {   \
    return team_broadcast("shmem_" #N "_broadcast", team, dest, source, nelems, sizeof(T), PE_root);     \
  }                                                                                                      \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                  \
    return team_collect("shmem_" #N "_collect", team, dest, source, nelems, sizeof(T));                  \
  }                                                                                                      \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                 \
    return team_fcollect("shmem_" #N "_fcollect", team, dest, source, nelems, sizeof(T));                \
  }                                                                                                      \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) {                 \
    return team_alltoall("shmem_" #N "_alltoall", team, dest, source, nelems, sizeof(T));                \
  }                                                                                                      \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,  \
                            size_t nelems) {                                                             \
    return team_alltoalls<sizeof(T)>("shmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems);    \
  }
TERN_SHMEM_RMA_TYPES(TERN_SHMEM_DEFINE_COLL)

#define TERN_SHMEM_DEFINE_REDUCE(T, N, OP)                                                                   \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce) {              \
    return team_reduce<T, TERN_REDUCE_OP_##OP>("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce); \
  }
#define TERN_SHMEM_DEFINE_REDUCE_BITWISE(T, N) \
  TERN_SHMEM_DEFINE_REDUCE(T, N, and) TERN_SHMEM_DEFINE_REDUCE(T, N, or) TERN_SHMEM_DEFINE_REDUCE(T, N, xor)
#define TERN_SHMEM_DEFINE_REDUCE_COMPARE(T, N) TERN_SHMEM_DEFINE_REDUCE(T, N, max) TERN_SHMEM_DEFINE_REDUCE(T, N, min)
#define TERN_SHMEM_DEFINE_REDUCE_ARITH(T, N) TERN_SHMEM_DEFINE_REDUCE(T, N, sum) TERN_SHMEM_DEFINE_REDUCE(T, N, prod)
TERN_SHMEM_BITWISE_REDUCE_TYPES(TERN_SHMEM_DEFINE_REDUCE_BITWISE)
TERN_SHMEMX_SIGNED_BITWISE_REDUCE_TYPES(TERN_SHMEM_DEFINE_REDUCE_BITWISE)
TERN_SHMEM_COMPARE_REDUCE_TYPES(TERN_SHMEM_DEFINE_REDUCE_COMPARE)
TERN_SHMEM_ARITH_REDUCE_TYPES(TERN_SHMEM_DEFINE_REDUCE_ARITH)
TERN_SHMEM_COMPLEX_TYPES(TERN_SHMEM_DEFINE_REDUCE_ARITH)

// --- Active sets (deprecated in 1.5, still what most SHMEM programs call).

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  constexpr const char* kFunction = "shmem_barrier";
  const Group group = active_set(kFunction, PE_start, logPE_stride, PE_size, pSync, SHMEM_BARRIER_SYNC_SIZE);
  quiet();  // a barrier completes this PE's puts first (sync() fences as well; this says it)
  sync(group);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  sync(active_set("shmem_sync", PE_start, logPE_stride, PE_size, pSync, SHMEM_BARRIER_SYNC_SIZE));
}

#define TERN_SHMEM_DEFINE_ACTIVE_SET(B)                                                                             \
  void shmem_broadcast##B(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,                \
                          int logPE_stride, int PE_size, long* pSync) {                                             \
    constexpr const char* kFunction = "shmem_broadcast" #B;                                                         \
    const Group group = active_set(kFunction, PE_start, logPE_stride, PE_size, pSync, SHMEM_BCAST_SYNC_SIZE);      \
    broadcast(kFunction, group, dest, source, multiply(kFunction, nelems, B / 8), PE_root, false);                 \
  }                                                                                                                 \
  void shmem_collect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,            \
                        int PE_size, long* pSync) {                                                                 \
    constexpr const char* kFunction = "shmem_collect" #B;                                                           \
    const Group group = active_set(kFunction, PE_start, logPE_stride, PE_size, pSync, SHMEM_COLLECT_SYNC_SIZE);    \
    collect(kFunction, group, dest, source, multiply(kFunction, nelems, B / 8));                                    \
  }                                                                                                                 \
  void shmem_fcollect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,           \
                         int PE_size, long* pSync) {                                                                \
    constexpr const char* kFunction = "shmem_fcollect" #B;                                                          \
    const Group group = active_set(kFunction, PE_start, logPE_stride, PE_size, pSync, SHMEM_COLLECT_SYNC_SIZE);    \
    fcollect(kFunction, group, dest, source, multiply(kFunction, nelems, B / 8));                                   \
  }                                                                                                                 \
  void shmem_alltoall##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,           \
                         int PE_size, long* pSync) {                                                                \
    constexpr const char* kFunction = "shmem_alltoall" #B;                                                          \
    const Group group = active_set(kFunction, PE_start, logPE_stride, PE_size, pSync, SHMEM_ALLTOALL_SYNC_SIZE);   \
    alltoall(kFunction, group, dest, source, multiply(kFunction, nelems, B / 8));                                   \
  }                                                                                                                 \
  void shmem_alltoalls##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,            \
                          int PE_start, int logPE_stride, int PE_size, long* pSync) {                               \
    constexpr const char* kFunction = "shmem_alltoalls" #B;                                                         \
    const Group group = active_set(kFunction, PE_start, logPE_stride, PE_size, pSync, SHMEM_ALLTOALLS_SYNC_SIZE);  \
    alltoalls<B / 8>(kFunction, group, dest, source, dst, sst, nelems);                                             \
  }
TERN_SHMEM_DEFINE_ACTIVE_SET(32)
TERN_SHMEM_DEFINE_ACTIVE_SET(64)

#define TERN_SHMEM_DEFINE_TO_ALL(T, N, OP)                                                                  \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride,   \
                                 int PE_size, T* pWrk, long* pSync) {                                      \
    to_all<T, TERN_REDUCE_OP_##OP>("shmem_" #N "_" #OP "_to_all", dest, source, nreduce, PE_start,         \
                                   logPE_stride, PE_size, pWrk, pSync);                                    \
  }
#define TERN_SHMEM_DEFINE_TO_ALL_BITWISE(T, N) \
  TERN_SHMEM_DEFINE_TO_ALL(T, N, and) TERN_SHMEM_DEFINE_TO_ALL(T, N, or) TERN_SHMEM_DEFINE_TO_ALL(T, N, xor)
#define TERN_SHMEM_DEFINE_TO_ALL_COMPARE(T, N) TERN_SHMEM_DEFINE_TO_ALL(T, N, max) TERN_SHMEM_DEFINE_TO_ALL(T, N, min)
#define TERN_SHMEM_DEFINE_TO_ALL_ARITH(T, N) TERN_SHMEM_DEFINE_TO_ALL(T, N, sum) TERN_SHMEM_DEFINE_TO_ALL(T, N, prod)
TERN_SHMEM_TO_ALL_BITWISE_TYPES(TERN_SHMEM_DEFINE_TO_ALL_BITWISE)
TERN_SHMEM_TO_ALL_COMPARE_TYPES(TERN_SHMEM_DEFINE_TO_ALL_COMPARE)
TERN_SHMEM_TO_ALL_ARITH_TYPES(TERN_SHMEM_DEFINE_TO_ALL_ARITH)
TERN_SHMEM_COMPLEX_TYPES(TERN_SHMEM_DEFINE_TO_ALL_ARITH)

}  // extern "C"
