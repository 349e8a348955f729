// Puts and gets. On this node the peer's heap is mapped here, so every
// transfer is a copy between two addresses of this process and is complete
// when the call returns; the _nbi forms are the same copies (quiet has
// nothing left to wait for). A PE on another host goes through net.hpp.
#include <cstring>

#include "state.hpp"
#include "tern/runtime/copy.hpp"

namespace tern::shmem {
namespace {

inline void put_bytes(const char* function, void* dest, const void* source, std::size_t bytes, int pe) {
  std::byte* target = mapped_or_net(function, dest, bytes, pe);
  if (TERN_UNLIKELY(target == nullptr)) {
    net_put(function, dest, source, bytes, pe);
    return;
  }
  if (bytes >= kSharedCopyMinBytes &&
      copy_shared(pe, target, static_cast<const std::byte*>(source), bytes, dest, source, true)) {
    return;
  }
  runtime::copy_bytes(target, source, bytes);
}

inline void get_bytes(const char* function, void* dest, const void* source, std::size_t bytes, int pe) {
  const std::byte* origin = mapped_or_net(function, source, bytes, pe);
  if (TERN_UNLIKELY(origin == nullptr)) {
    net_get(function, dest, source, bytes, pe);
    return;
  }
  if (bytes >= kSharedCopyMinBytes &&
      copy_shared(pe, static_cast<std::byte*>(dest), origin, bytes, dest, source, false)) {
    return;
  }
  runtime::copy_bytes(dest, origin, bytes);
}

// Strided: element i goes from source[i * sst] to dest[i * dst] (strides in elements).
inline void iput_bytes(const char* function, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       std::size_t nelems, std::size_t element, int pe) {
  if (nelems == 0) {
    (void)mapped_or_net(function, dest, 0, pe);
    return;
  }
  if (dst < 1 || sst < 1) fail(function, "strides must be positive (dst %td, sst %td)", dst, sst);
  const std::size_t span = (nelems - 1) * static_cast<std::size_t>(dst) * element + element;
  std::byte* target = mapped_or_net(function, dest, span, pe);
  const auto* from = static_cast<const std::byte*>(source);
  if (TERN_UNLIKELY(target == nullptr)) {
    for (std::size_t i = 0; i < nelems; ++i) {
      net_put(function, static_cast<std::byte*>(dest) + i * static_cast<std::size_t>(dst) * element,
              from + i * static_cast<std::size_t>(sst) * element, element, pe);
    }
    return;
  }
  for (std::size_t i = 0; i < nelems; ++i) {
    std::memcpy(target + i * static_cast<std::size_t>(dst) * element, from + i * static_cast<std::size_t>(sst) * element,
                element);
  }
}

inline void iget_bytes(const char* function, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       std::size_t nelems, std::size_t element, int pe) {
  if (nelems == 0) {
    (void)mapped_or_net(function, source, 0, pe);
    return;
  }
  if (dst < 1 || sst < 1) fail(function, "strides must be positive (dst %td, sst %td)", dst, sst);
  const std::size_t span = (nelems - 1) * static_cast<std::size_t>(sst) * element + element;
  const std::byte* origin = mapped_or_net(function, source, span, pe);
  auto* to = static_cast<std::byte*>(dest);
  if (TERN_UNLIKELY(origin == nullptr)) {
    for (std::size_t i = 0; i < nelems; ++i) {
      net_get(function, to + i * static_cast<std::size_t>(dst) * element,
              static_cast<const std::byte*>(source) + i * static_cast<std::size_t>(sst) * element, element, pe);
    }
    return;
  }
  for (std::size_t i = 0; i < nelems; ++i) {
    std::memcpy(to + i * static_cast<std::size_t>(dst) * element, origin + i * static_cast<std::size_t>(sst) * element,
                element);
  }
}

// One element (shmem_p, shmem_g).
template <typename T>
inline void put_value(const char* function, T* dest, T value, int pe) {
  T* target = reinterpret_cast<T*>(mapped_or_net(function, dest, sizeof(T), pe));
  if (TERN_LIKELY(target != nullptr)) {
    *target = value;
  } else {
    net_put(function, dest, &value, sizeof(T), pe);
  }
}

template <typename T>
inline T get_value(const char* function, const T* source, int pe) {
  const T* origin = reinterpret_cast<const T*>(mapped_or_net(function, source, sizeof(T), pe));
  if (TERN_LIKELY(origin != nullptr)) return *origin;
  T value;
  net_get(function, &value, source, sizeof(T), pe);
  return value;
}

// The data first, then the signal, so a PE that sees the signal sees the data.
inline void put_signal_bytes(const char* function, void* dest, const void* source, std::size_t bytes,
                             uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
    fail(function, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
  }
  put_bytes(function, dest, source, bytes, pe);
  auto* word = reinterpret_cast<uint64_t*>(mapped_or_net(function, sig_addr, sizeof(uint64_t), pe));
  if (TERN_UNLIKELY(word == nullptr)) {
    // Behind the data on the same ordered stream: applied after it.
    (void)net_atomic(function, sig_op == SHMEM_SIGNAL_SET ? engine::rma::AtomicOp::Swap : engine::rma::AtomicOp::Add,
                     sizeof(uint64_t), sig_addr, signal, 0, pe);
    return;
  }
  if (sig_op == SHMEM_SIGNAL_SET) {
    __atomic_store_n(word, signal, __ATOMIC_RELEASE);
  } else {
    __atomic_fetch_add(word, signal, __ATOMIC_RELEASE);
  }
}

}  // namespace
}  // namespace tern::shmem

using namespace tern::shmem;

#define TERN_CTX_CHECK(name) pe = ctx_world_pe(name, ctx, pe)

extern "C" {

#define TERN_SHMEM_DEFINE_RMA(T, N)                                                                             \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe) {                                        \
    put_bytes("shmem_" #N "_put", dest, source, nelems * sizeof(T), pe);                                         \
  }                                                                                                              \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {                   \
    TERN_CTX_CHECK("shmem_ctx_" #N "_put");                                                                      \
    put_bytes("shmem_ctx_" #N "_put", dest, source, nelems * sizeof(T), pe);                                     \
  }                                                                                                              \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe) {                                        \
    get_bytes("shmem_" #N "_get", dest, source, nelems * sizeof(T), pe);                                         \
  }                                                                                                              \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {                   \
    TERN_CTX_CHECK("shmem_ctx_" #N "_get");                                                                      \
    get_bytes("shmem_ctx_" #N "_get", dest, source, nelems * sizeof(T), pe);                                     \
  }                                                                                                              \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe) {                                    \
    put_bytes("shmem_" #N "_put_nbi", dest, source, nelems * sizeof(T), pe);                                     \
  }                                                                                                              \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {               \
    TERN_CTX_CHECK("shmem_ctx_" #N "_put_nbi");                                                                  \
    put_bytes("shmem_ctx_" #N "_put_nbi", dest, source, nelems * sizeof(T), pe);                                 \
  }                                                                                                              \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe) {                                    \
    get_bytes("shmem_" #N "_get_nbi", dest, source, nelems * sizeof(T), pe);                                     \
  }                                                                                                              \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) {               \
    TERN_CTX_CHECK("shmem_ctx_" #N "_get_nbi");                                                                  \
    get_bytes("shmem_ctx_" #N "_get_nbi", dest, source, nelems * sizeof(T), pe);                                 \
  }                                                                                                              \
  void shmem_##N##_p(T* dest, T value, int pe) {                                                                 \
    put_value("shmem_" #N "_p", dest, value, pe);                                \
  }                                                                                                              \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe) {                                            \
    TERN_CTX_CHECK("shmem_ctx_" #N "_p");                                                                        \
    put_value("shmem_ctx_" #N "_p", dest, value, pe);                            \
  }                                                                                                              \
  T shmem_##N##_g(const T* source, int pe) {                                                                     \
    return get_value("shmem_" #N "_g", source, pe);                         \
  }                                                                                                              \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe) {                                                \
    TERN_CTX_CHECK("shmem_ctx_" #N "_g");                                                                        \
    return get_value("shmem_ctx_" #N "_g", source, pe);                     \
  }                                                                                                              \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {         \
    iput_bytes("shmem_" #N "_iput", dest, source, dst, sst, nelems, sizeof(T), pe);                              \
  }                                                                                                              \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,            \
                            size_t nelems, int pe) {                                                             \
    TERN_CTX_CHECK("shmem_ctx_" #N "_iput");                                                                     \
    iput_bytes("shmem_ctx_" #N "_iput", dest, source, dst, sst, nelems, sizeof(T), pe);                          \
  }                                                                                                              \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {         \
    iget_bytes("shmem_" #N "_iget", dest, source, dst, sst, nelems, sizeof(T), pe);                              \
  }                                                                                                              \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,            \
                            size_t nelems, int pe) {                                                             \
    TERN_CTX_CHECK("shmem_ctx_" #N "_iget");                                                                     \
    iget_bytes("shmem_ctx_" #N "_iget", dest, source, dst, sst, nelems, sizeof(T), pe);                          \
  }                                                                                                              \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,      \
                              int sig_op, int pe) {                                                              \
    put_signal_bytes("shmem_" #N "_put_signal", dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe); \
  }                                                                                                              \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, uint64_t* sig_addr,  \
                                  uint64_t signal, int sig_op, int pe) {                                         \
    TERN_CTX_CHECK("shmem_ctx_" #N "_put_signal");                                                               \
    put_signal_bytes("shmem_ctx_" #N "_put_signal", dest, source, nelems * sizeof(T), sig_addr, signal, sig_op,  \
                     pe);                                                                                        \
  }                                                                                                              \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,  \
                                  int sig_op, int pe) {                                                          \
    put_signal_bytes("shmem_" #N "_put_signal_nbi", dest, source, nelems * sizeof(T), sig_addr, signal, sig_op,  \
                     pe);                                                                                        \
  }                                                                                                              \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,                  \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                 \
    TERN_CTX_CHECK("shmem_ctx_" #N "_put_signal_nbi");                                                           \
    put_signal_bytes("shmem_ctx_" #N "_put_signal_nbi", dest, source, nelems * sizeof(T), sig_addr, signal,      \
                     sig_op, pe);                                                                                \
  }
TERN_SHMEM_RMA_TYPES(TERN_SHMEM_DEFINE_RMA)

#define TERN_SHMEM_DEFINE_SIZED(B)                                                                               \
  void shmem_put##B(void* dest, const void* source, size_t nelems, int pe) {                                     \
    put_bytes("shmem_put" #B, dest, source, nelems * (B / 8), pe);                                               \
  }                                                                                                              \
  void shmem_ctx_put##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {                \
    TERN_CTX_CHECK("shmem_ctx_put" #B);                                                                          \
    put_bytes("shmem_ctx_put" #B, dest, source, nelems * (B / 8), pe);                                           \
  }                                                                                                              \
  void shmem_get##B(void* dest, const void* source, size_t nelems, int pe) {                                     \
    get_bytes("shmem_get" #B, dest, source, nelems * (B / 8), pe);                                               \
  }                                                                                                              \
  void shmem_ctx_get##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {                \
    TERN_CTX_CHECK("shmem_ctx_get" #B);                                                                          \
    get_bytes("shmem_ctx_get" #B, dest, source, nelems * (B / 8), pe);                                           \
  }                                                                                                              \
  void shmem_put##B##_nbi(void* dest, const void* source, size_t nelems, int pe) {                               \
    put_bytes("shmem_put" #B "_nbi", dest, source, nelems * (B / 8), pe);                                        \
  }                                                                                                              \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {          \
    TERN_CTX_CHECK("shmem_ctx_put" #B "_nbi");                                                                   \
    put_bytes("shmem_ctx_put" #B "_nbi", dest, source, nelems * (B / 8), pe);                                    \
  }                                                                                                              \
  void shmem_get##B##_nbi(void* dest, const void* source, size_t nelems, int pe) {                               \
    get_bytes("shmem_get" #B "_nbi", dest, source, nelems * (B / 8), pe);                                        \
  }                                                                                                              \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {          \
    TERN_CTX_CHECK("shmem_ctx_get" #B "_nbi");                                                                   \
    get_bytes("shmem_ctx_get" #B "_nbi", dest, source, nelems * (B / 8), pe);                                    \
  }                                                                                                              \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {      \
    iput_bytes("shmem_iput" #B, dest, source, dst, sst, nelems, B / 8, pe);                                      \
  }                                                                                                              \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,         \
                         size_t nelems, int pe) {                                                                \
    TERN_CTX_CHECK("shmem_ctx_iput" #B);                                                                         \
    iput_bytes("shmem_ctx_iput" #B, dest, source, dst, sst, nelems, B / 8, pe);                                  \
  }                                                                                                              \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {      \
    iget_bytes("shmem_iget" #B, dest, source, dst, sst, nelems, B / 8, pe);                                      \
  }                                                                                                              \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,         \
                         size_t nelems, int pe) {                                                                \
    TERN_CTX_CHECK("shmem_ctx_iget" #B);                                                                         \
    iget_bytes("shmem_ctx_iget" #B, dest, source, dst, sst, nelems, B / 8, pe);                                  \
  }                                                                                                              \
  void shmem_put##B##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, \
                             int sig_op, int pe) {                                                               \
    put_signal_bytes("shmem_put" #B "_signal", dest, source, nelems * (B / 8), sig_addr, signal, sig_op, pe);    \
  }                                                                                                              \
  void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,                 \
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                      \
    TERN_CTX_CHECK("shmem_ctx_put" #B "_signal");                                                                \
    put_signal_bytes("shmem_ctx_put" #B "_signal", dest, source, nelems * (B / 8), sig_addr, signal, sig_op, pe); \
  }                                                                                                              \
  void shmem_put##B##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,              \
                                 uint64_t signal, int sig_op, int pe) {                                          \
    put_signal_bytes("shmem_put" #B "_signal_nbi", dest, source, nelems * (B / 8), sig_addr, signal, sig_op,     \
                     pe);                                                                                        \
  }                                                                                                              \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,             \
                                     uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                  \
    TERN_CTX_CHECK("shmem_ctx_put" #B "_signal_nbi");                                                            \
    put_signal_bytes("shmem_ctx_put" #B "_signal_nbi", dest, source, nelems * (B / 8), sig_addr, signal, sig_op, \
                     pe);                                                                                        \
  }
TERN_SHMEM_SIZES(TERN_SHMEM_DEFINE_SIZED)

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) {
  put_bytes("shmem_putmem", dest, source, nelems, pe);
}
void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {
  TERN_CTX_CHECK("shmem_ctx_putmem");
  put_bytes("shmem_ctx_putmem", dest, source, nelems, pe);
}
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe) {
  get_bytes("shmem_getmem", dest, source, nelems, pe);
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {
  TERN_CTX_CHECK("shmem_ctx_getmem");
  get_bytes("shmem_ctx_getmem", dest, source, nelems, pe);
}
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe) {
  put_bytes("shmem_putmem_nbi", dest, source, nelems, pe);
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {
  TERN_CTX_CHECK("shmem_ctx_putmem_nbi");
  put_bytes("shmem_ctx_putmem_nbi", dest, source, nelems, pe);
}
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe) {
  get_bytes("shmem_getmem_nbi", dest, source, nelems, pe);
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {
  TERN_CTX_CHECK("shmem_ctx_getmem_nbi");
  get_bytes("shmem_ctx_getmem_nbi", dest, source, nelems, pe);
}
void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                         int sig_op, int pe) {
  put_signal_bytes("shmem_putmem_signal", dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                             uint64_t signal, int sig_op, int pe) {
  TERN_CTX_CHECK("shmem_ctx_putmem_signal");
  put_signal_bytes("shmem_ctx_putmem_signal", dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                             int sig_op, int pe) {
  put_signal_bytes("shmem_putmem_signal_nbi", dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  TERN_CTX_CHECK("shmem_ctx_putmem_signal_nbi");
  put_signal_bytes("shmem_ctx_putmem_signal_nbi", dest, source, nelems, sig_addr, signal, sig_op, pe);
}

}  // extern "C"
