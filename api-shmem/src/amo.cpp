// Atomic memory operations: CPU atomics on the target PE's word, mapped
// here. Every AMO on an object, from any PE, goes through the same hardware
// atomic on the same physical memory, so they are atomic with respect to one
// another. Sequentially consistent, which also orders them with the PE's puts.
// A PE on another host runs them through net.hpp: its own progress applies
// them with the same CPU atomics, so they are atomic with the local ones.
#include <cstring>

#include "state.hpp"

namespace tern::shmem {
namespace {

using engine::rma::AtomicOp;

// Null where `pe` is reached over the network.
template <typename T>
inline T* word_to_read(const char* function, const T* dest, int pe) {
  auto* target = reinterpret_cast<T*>(mapped_or_net(function, dest, sizeof(T), pe));
  if (TERN_UNLIKELY(reinterpret_cast<uintptr_t>(target) % alignof(T) != 0)) {
    fail(function, "address %p is not aligned for a %zu-byte atomic", static_cast<const void*>(dest), sizeof(T));
  }
  return target;
}

// Locked instructions do not train the core's stream prefetcher, so a loop of
// AMOs along an array waits for a whole cache-line transfer from the target's
// core at each new line: about 48 M/s for 8-byte words on the machine this
// was measured on, against 130-150 M/s with the next line asked for ahead. So
// where this thread's AMO lands less than a line above its previous one, the
// next line is fetched for writing; a hot counter (no step) or scattered
// words are left alone, so that no neighbour's line is pulled away for
// nothing.
inline void prefetch_next_line_if_streaming(const void* target) {
  static thread_local uintptr_t previous __attribute__((tls_model("initial-exec"))) = 0;
  const auto here = reinterpret_cast<uintptr_t>(target);
  const uintptr_t step = here - previous;  // wraps to huge when going down
  previous = here;
  if (step - 1 < kCacheLine) {
    __builtin_prefetch(static_cast<const char*>(target) + kCacheLine, 1, 3);
  }
}

template <typename T>
inline T* word(const char* function, const T* dest, int pe) {
  T* target = word_to_read(function, dest, pe);
  if (TERN_LIKELY(target != nullptr)) prefetch_next_line_if_streaming(target);
  return target;
}

// The network form: the value's bits, zero-extended, and back. Every AMO
// type is 4 or 8 bytes wide, which the transports' atomics cover.
template <typename T>
inline uint64_t bits_of(T value) noexcept {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "remote atomics are 4 or 8 bytes wide");
  if constexpr (sizeof(T) == 4) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  } else {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
}

template <typename T>
inline T from_bits(uint64_t bits) noexcept {
  T value;
  if constexpr (sizeof(T) == 4) {
    const auto narrow = static_cast<uint32_t>(bits);
    std::memcpy(&value, &narrow, sizeof(value));
  } else {
    std::memcpy(&value, &bits, sizeof(value));
  }
  return value;
}

// Out of line: the mapped path stays as small as it was.
template <typename T>
__attribute__((noinline)) T net_amo(const char* function, AtomicOp op, const T* dest, T operand, T compare, int pe) {
  return from_bits<T>(net_atomic(function, op, sizeof(T), dest, bits_of(operand), bits_of(compare), pe));
}

// Plain loads along an array train the prefetcher themselves.
template <typename T>
inline T fetch(const char* function, const T* source, int pe) {
  const T* target = word_to_read(function, source, pe);
  if (TERN_UNLIKELY(target == nullptr)) return net_amo(function, AtomicOp::FetchOr, source, T{}, T{}, pe);
  T value;
  __atomic_load(target, &value, __ATOMIC_SEQ_CST);
  return value;
}

template <typename T>
inline void set(const char* function, T* dest, T value, int pe) {
  T* target = word(function, dest, pe);
  if (TERN_UNLIKELY(target == nullptr)) {
    (void)net_amo(function, AtomicOp::Swap, dest, value, T{}, pe);
    return;
  }
  __atomic_store(target, &value, __ATOMIC_SEQ_CST);
}

template <typename T>
inline T swap(const char* function, T* dest, T value, int pe) {
  T* target = word(function, dest, pe);
  if (TERN_UNLIKELY(target == nullptr)) return net_amo(function, AtomicOp::Swap, dest, value, T{}, pe);
  T old;
  __atomic_exchange(target, &value, &old, __ATOMIC_SEQ_CST);
  return old;
}

template <typename T>
inline T compare_swap(const char* function, T* dest, T cond, T value, int pe) {
  T* target = word(function, dest, pe);
  if (TERN_UNLIKELY(target == nullptr)) return net_amo(function, AtomicOp::CompareSwap, dest, value, cond, pe);
  __atomic_compare_exchange_n(target, &cond, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cond;  // the old value either way
}

#define TERN_SHMEM_FETCH_OP(NAME, OP, BUILTIN)                                                  \
  template <typename T>                                                                         \
  inline T NAME(const char* function, T* dest, T value, int pe) {                               \
    T* target = word(function, dest, pe);                                                       \
    if (TERN_UNLIKELY(target == nullptr)) return net_amo(function, OP, dest, value, T{}, pe);   \
    return BUILTIN(target, value, __ATOMIC_SEQ_CST);                                            \
  }
TERN_SHMEM_FETCH_OP(fetch_add, AtomicOp::FetchAdd, __atomic_fetch_add)
TERN_SHMEM_FETCH_OP(fetch_and, AtomicOp::FetchAnd, __atomic_fetch_and)
TERN_SHMEM_FETCH_OP(fetch_or, AtomicOp::FetchOr, __atomic_fetch_or)
TERN_SHMEM_FETCH_OP(fetch_xor, AtomicOp::FetchXor, __atomic_fetch_xor)
#undef TERN_SHMEM_FETCH_OP

// The fetch of an _nbi AMO lands in local memory the caller owns.
template <typename T>
inline void deliver(const char* function, T* fetch_into, T value) {
  if (fetch_into == nullptr) fail(function, "fetch is a null pointer");
  *fetch_into = value;
}

}  // namespace
}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

#define TERN_SHMEM_DEFINE_AMO_EXTENDED(T, N)                                                        \
  T shmem_##N##_atomic_fetch(const T* source, int pe) {                                            \
    return fetch("shmem_" #N "_atomic_fetch", source, pe);                                         \
  }                                                                                                \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe) {                       \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch", ctx, pe);                                               \
    return fetch("shmem_ctx_" #N "_atomic_fetch", source, pe);                                     \
  }                                                                                                \
  void shmem_##N##_atomic_fetch_nbi(T* fetch_into, const T* source, int pe) {                      \
    deliver("shmem_" #N "_atomic_fetch_nbi", fetch_into, fetch("shmem_" #N "_atomic_fetch_nbi", source, pe)); \
  }                                                                                                \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch_into, const T* source, int pe) { \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_nbi", ctx, pe);                                           \
    deliver("shmem_ctx_" #N "_atomic_fetch_nbi", fetch_into,                                       \
            fetch("shmem_ctx_" #N "_atomic_fetch_nbi", source, pe));                               \
  }                                                                                                \
  void shmem_##N##_atomic_set(T* dest, T value, int pe) { set("shmem_" #N "_atomic_set", dest, value, pe); } \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* dest, T value, int pe) {                     \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_set", ctx, pe);                                                 \
    set("shmem_ctx_" #N "_atomic_set", dest, value, pe);                                           \
  }                                                                                                \
  T shmem_##N##_atomic_swap(T* dest, T value, int pe) {                                            \
    return swap("shmem_" #N "_atomic_swap", dest, value, pe);                                      \
  }                                                                                                \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* dest, T value, int pe) {                       \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_swap", ctx, pe);                                                \
    return swap("shmem_ctx_" #N "_atomic_swap", dest, value, pe);                                  \
  }                                                                                                \
  void shmem_##N##_atomic_swap_nbi(T* fetch_into, T* dest, T value, int pe) {                      \
    deliver("shmem_" #N "_atomic_swap_nbi", fetch_into, swap("shmem_" #N "_atomic_swap_nbi", dest, value, pe)); \
  }                                                                                                \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* fetch_into, T* dest, T value, int pe) { \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_swap_nbi", ctx, pe);                                            \
    deliver("shmem_ctx_" #N "_atomic_swap_nbi", fetch_into,                                        \
            swap("shmem_ctx_" #N "_atomic_swap_nbi", dest, value, pe));                            \
  }
TERN_SHMEM_AMO_STANDARD_TYPES(TERN_SHMEM_DEFINE_AMO_EXTENDED)
TERN_SHMEM_AMO_EXTENDED_TYPES(TERN_SHMEM_DEFINE_AMO_EXTENDED)

#define TERN_SHMEM_DEFINE_AMO_STANDARD(T, N)                                                                     \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe) {                                         \
    return compare_swap("shmem_" #N "_atomic_compare_swap", dest, cond, value, pe);                             \
  }                                                                                                             \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe) {                    \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_compare_swap", ctx, pe);                                                     \
    return compare_swap("shmem_ctx_" #N "_atomic_compare_swap", dest, cond, value, pe);                         \
  }                                                                                                             \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch_into, T* dest, T cond, T value, int pe) {                   \
    deliver("shmem_" #N "_atomic_compare_swap_nbi", fetch_into,                                                 \
            compare_swap("shmem_" #N "_atomic_compare_swap_nbi", dest, cond, value, pe));                       \
  }                                                                                                             \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch_into, T* dest, T cond, T value,        \
                                               int pe) {                                                        \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_compare_swap_nbi", ctx, pe);                                                 \
    deliver("shmem_ctx_" #N "_atomic_compare_swap_nbi", fetch_into,                                             \
            compare_swap("shmem_ctx_" #N "_atomic_compare_swap_nbi", dest, cond, value, pe));                   \
  }                                                                                                             \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe) {                                                             \
    return fetch_add("shmem_" #N "_atomic_fetch_inc", dest, static_cast<T>(1), pe);                                          \
  }                                                                                                             \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe) {                                        \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_inc", ctx, pe);                                                        \
    return fetch_add("shmem_ctx_" #N "_atomic_fetch_inc", dest, static_cast<T>(1), pe);                                      \
  }                                                                                                             \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch_into, T* dest, int pe) {                                       \
    deliver("shmem_" #N "_atomic_fetch_inc_nbi", fetch_into,                                                    \
            fetch_add("shmem_" #N "_atomic_fetch_inc_nbi", dest, static_cast<T>(1), pe));                                    \
  }                                                                                                             \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch_into, T* dest, int pe) {                  \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_inc_nbi", ctx, pe);                                                    \
    deliver("shmem_ctx_" #N "_atomic_fetch_inc_nbi", fetch_into,                                                \
            fetch_add("shmem_ctx_" #N "_atomic_fetch_inc_nbi", dest, static_cast<T>(1), pe));                                \
  }                                                                                                             \
  void shmem_##N##_atomic_inc(T* dest, int pe) { (void)fetch_add("shmem_" #N "_atomic_inc", dest, static_cast<T>(1), pe); }  \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe) {                                           \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_inc", ctx, pe);                                                              \
    (void)fetch_add("shmem_ctx_" #N "_atomic_inc", dest, static_cast<T>(1), pe);                                             \
  }                                                                                                             \
  T shmem_##N##_atomic_fetch_add(T* dest, T value, int pe) {                                                    \
    return fetch_add("shmem_" #N "_atomic_fetch_add", dest, value, pe);                                         \
  }                                                                                                             \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* dest, T value, int pe) {                               \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_add", ctx, pe);                                                        \
    return fetch_add("shmem_ctx_" #N "_atomic_fetch_add", dest, value, pe);                                     \
  }                                                                                                             \
  void shmem_##N##_atomic_fetch_add_nbi(T* fetch_into, T* dest, T value, int pe) {                              \
    deliver("shmem_" #N "_atomic_fetch_add_nbi", fetch_into,                                                    \
            fetch_add("shmem_" #N "_atomic_fetch_add_nbi", dest, value, pe));                                   \
  }                                                                                                             \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* fetch_into, T* dest, T value, int pe) {         \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_add_nbi", ctx, pe);                                                    \
    deliver("shmem_ctx_" #N "_atomic_fetch_add_nbi", fetch_into,                                                \
            fetch_add("shmem_ctx_" #N "_atomic_fetch_add_nbi", dest, value, pe));                               \
  }                                                                                                             \
  void shmem_##N##_atomic_add(T* dest, T value, int pe) {                                                       \
    (void)fetch_add("shmem_" #N "_atomic_add", dest, value, pe);                                                \
  }                                                                                                             \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* dest, T value, int pe) {                                  \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_add", ctx, pe);                                                              \
    (void)fetch_add("shmem_ctx_" #N "_atomic_add", dest, value, pe);                                            \
  }
TERN_SHMEM_AMO_STANDARD_TYPES(TERN_SHMEM_DEFINE_AMO_STANDARD)

#define TERN_SHMEM_DEFINE_AMO_BITWISE_OP(T, N, OP)                                                             \
  T shmem_##N##_atomic_fetch_##OP(T* dest, T value, int pe) {                                                  \
    return fetch_##OP("shmem_" #N "_atomic_fetch_" #OP, dest, value, pe);                                      \
  }                                                                                                            \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T* dest, T value, int pe) {                             \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_" #OP, ctx, pe);                                                      \
    return fetch_##OP("shmem_ctx_" #N "_atomic_fetch_" #OP, dest, value, pe);                                  \
  }                                                                                                            \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T* fetch_into, T* dest, T value, int pe) {                          \
    deliver("shmem_" #N "_atomic_fetch_" #OP "_nbi", fetch_into,                                               \
            fetch_##OP("shmem_" #N "_atomic_fetch_" #OP "_nbi", dest, value, pe));                             \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T* fetch_into, T* dest, T value, int pe) {     \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_fetch_" #OP "_nbi", ctx, pe);                                               \
    deliver("shmem_ctx_" #N "_atomic_fetch_" #OP "_nbi", fetch_into,                                           \
            fetch_##OP("shmem_ctx_" #N "_atomic_fetch_" #OP "_nbi", dest, value, pe));                         \
  }                                                                                                            \
  void shmem_##N##_atomic_##OP(T* dest, T value, int pe) {                                                     \
    (void)fetch_##OP("shmem_" #N "_atomic_" #OP, dest, value, pe);                                             \
  }                                                                                                            \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T* dest, T value, int pe) {                                \
    pe = ctx_world_pe("shmem_ctx_" #N "_atomic_" #OP, ctx, pe);                                                            \
    (void)fetch_##OP("shmem_ctx_" #N "_atomic_" #OP, dest, value, pe);                                         \
  }
#define TERN_SHMEM_DEFINE_AMO_BITWISE(T, N)                                          \
  TERN_SHMEM_DEFINE_AMO_BITWISE_OP(T, N, and) TERN_SHMEM_DEFINE_AMO_BITWISE_OP(T, N, or) \
  TERN_SHMEM_DEFINE_AMO_BITWISE_OP(T, N, xor)
TERN_SHMEM_AMO_BITWISE_TYPES(TERN_SHMEM_DEFINE_AMO_BITWISE)

// The deprecated names, as the 1.5 specification still lists them.
#define TERN_SHMEM_DEFINE_AMO_DEPRECATED(T, N)                                                              \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe) {                                                  \
    return compare_swap("shmem_" #N "_cswap", dest, cond, value, pe);                                      \
  }                                                                                                        \
  T shmem_##N##_finc(T* dest, int pe) { return fetch_add("shmem_" #N "_finc", dest, static_cast<T>(1), pe); }          \
  void shmem_##N##_inc(T* dest, int pe) { (void)fetch_add("shmem_" #N "_inc", dest, static_cast<T>(1), pe); }          \
  T shmem_##N##_fadd(T* dest, T value, int pe) { return fetch_add("shmem_" #N "_fadd", dest, value, pe); } \
  void shmem_##N##_add(T* dest, T value, int pe) { (void)fetch_add("shmem_" #N "_add", dest, value, pe); }
#define TERN_SHMEM_DEFINE_AMO_DEPRECATED_EXT(T, N)                                                    \
  T shmem_##N##_fetch(const T* source, int pe) { return fetch("shmem_" #N "_fetch", source, pe); }   \
  void shmem_##N##_set(T* dest, T value, int pe) { set("shmem_" #N "_set", dest, value, pe); }       \
  T shmem_##N##_swap(T* dest, T value, int pe) { return swap("shmem_" #N "_swap", dest, value, pe); }
TERN_SHMEM_DEPRECATED_AMO_TYPES(TERN_SHMEM_DEFINE_AMO_DEPRECATED)
TERN_SHMEM_DEPRECATED_AMO_TYPES(TERN_SHMEM_DEFINE_AMO_DEPRECATED_EXT)
TERN_SHMEM_DEFINE_AMO_DEPRECATED_EXT(float, float)
TERN_SHMEM_DEFINE_AMO_DEPRECATED_EXT(double, double)

}  // extern "C"
