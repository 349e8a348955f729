// Point-to-point synchronization: waiting on and testing this PE's own
// symmetric variables, which peers update with stores and atomics.
#include <cstring>

#include "state.hpp"

namespace tern::shmem {
namespace {

template <typename T>
inline T load(const T* ivar) {
  T value;
  __atomic_load(ivar, &value, __ATOMIC_ACQUIRE);
  return value;
}

template <typename T>
inline bool compare(const char* function, T value, int cmp, T cmp_value) {
  switch (cmp) {
    case SHMEM_CMP_EQ: return value == cmp_value;
    case SHMEM_CMP_NE: return value != cmp_value;
    case SHMEM_CMP_GT: return value > cmp_value;
    case SHMEM_CMP_GE: return value >= cmp_value;
    case SHMEM_CMP_LT: return value < cmp_value;
    case SHMEM_CMP_LE: return value <= cmp_value;
    default: fail(function, "cmp %d is not one of the SHMEM_CMP_ constants", cmp);
  }
}

template <typename T>
inline void check_ivar(const char* function, const T* ivar) {
  (void)state(function);
  if (ivar == nullptr) fail(function, "ivar is a null pointer");
  poll_net();  // a loop of tests must let PEs on other hosts reach this one
}

template <typename T>
inline void check_ivars(const char* function, const T* ivars, std::size_t nelems, int cmp) {
  (void)state(function);
  if (ivars == nullptr && nelems != 0) fail(function, "ivars is a null pointer");
  poll_net();
  (void)compare<T>(function, T{}, cmp, T{});  // rejects a bad cmp even when nothing is waited for
}

inline bool included(const int* status, std::size_t i) { return status == nullptr || status[i] == 0; }

// `cmp_values` null: every element compares with `cmp_value`.
template <typename T>
inline bool satisfied(const char* function, const T* ivars, std::size_t i, int cmp, T cmp_value,
                      const T* cmp_values) {
  return compare(function, load(&ivars[i]), cmp, cmp_values != nullptr ? cmp_values[i] : cmp_value);
}

template <typename T>
bool test_all(const char* function, T* ivars, std::size_t nelems, const int* status, int cmp, T cmp_value,
              const T* cmp_values) {
  for (std::size_t i = 0; i < nelems; ++i) {
    if (included(status, i) && !satisfied(function, ivars, i, cmp, cmp_value, cmp_values)) return false;
  }
  return true;
}

// SIZE_MAX when none (or all are excluded).
template <typename T>
std::size_t test_any(const char* function, T* ivars, std::size_t nelems, const int* status, int cmp, T cmp_value,
                     const T* cmp_values) {
  for (std::size_t i = 0; i < nelems; ++i) {
    if (included(status, i) && satisfied(function, ivars, i, cmp, cmp_value, cmp_values)) return i;
  }
  return SIZE_MAX;
}

template <typename T>
std::size_t test_some(const char* function, T* ivars, std::size_t nelems, std::size_t* indices, const int* status,
                      int cmp, T cmp_value, const T* cmp_values) {
  if (indices == nullptr && nelems != 0) fail(function, "indices is a null pointer");
  std::size_t found = 0;
  for (std::size_t i = 0; i < nelems; ++i) {
    if (included(status, i) && satisfied(function, ivars, i, cmp, cmp_value, cmp_values)) indices[found++] = i;
  }
  return found;
}

bool none_included(const int* status, std::size_t nelems) {
  for (std::size_t i = 0; i < nelems; ++i) {
    if (included(status, i)) return false;
  }
  return true;
}

template <typename T>
void wait_all(const char* function, T* ivars, std::size_t nelems, const int* status, int cmp, T cmp_value,
              const T* cmp_values) {
  check_ivars(function, ivars, nelems, cmp);
  wait_until([&] { return test_all(function, ivars, nelems, status, cmp, cmp_value, cmp_values); });
}

template <typename T>
std::size_t wait_any(const char* function, T* ivars, std::size_t nelems, const int* status, int cmp, T cmp_value,
                     const T* cmp_values) {
  check_ivars(function, ivars, nelems, cmp);
  if (none_included(status, nelems)) return SIZE_MAX;
  std::size_t index = SIZE_MAX;
  wait_until([&] {
    index = test_any(function, ivars, nelems, status, cmp, cmp_value, cmp_values);
    return index != SIZE_MAX;
  });
  return index;
}

template <typename T>
std::size_t wait_some(const char* function, T* ivars, std::size_t nelems, std::size_t* indices, const int* status,
                      int cmp, T cmp_value, const T* cmp_values) {
  check_ivars(function, ivars, nelems, cmp);
  if (none_included(status, nelems)) return 0;
  std::size_t found = 0;
  wait_until([&] {
    found = test_some(function, ivars, nelems, indices, status, cmp, cmp_value, cmp_values);
    return found != 0;
  });
  return found;
}

template <typename T>
void wait_one(const char* function, T* ivar, int cmp, T cmp_value) {
  check_ivar(function, ivar);
  (void)compare<T>(function, T{}, cmp, T{});
  wait_until([&] { return compare(function, load(ivar), cmp, cmp_value); });
}

}  // namespace
}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

#define TERN_SHMEM_DEFINE_P2P(T, N)                                                                            \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value) {                                                 \
    wait_one("shmem_" #N "_wait_until", ivar, cmp, cmp_value);                                                 \
  }                                                                                                            \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {          \
    wait_all("shmem_" #N "_wait_until_all", ivars, nelems, status, cmp, cmp_value, static_cast<const T*>(nullptr)); \
  }                                                                                                            \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {        \
    return wait_any("shmem_" #N "_wait_until_any", ivars, nelems, status, cmp, cmp_value,                      \
                    static_cast<const T*>(nullptr));                                                           \
  }                                                                                                            \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,     \
                                     T cmp_value) {                                                            \
    return wait_some("shmem_" #N "_wait_until_some", ivars, nelems, indices, status, cmp, cmp_value,           \
                     static_cast<const T*>(nullptr));                                                          \
  }                                                                                                            \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) { \
    wait_all("shmem_" #N "_wait_until_all_vector", ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);               \
  }                                                                                                            \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,                \
                                           const T* cmp_values) {                                                    \
    return wait_any("shmem_" #N "_wait_until_any_vector", ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);        \
  }                                                                                                            \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status,       \
                                            int cmp, const T* cmp_values) {                                          \
    return wait_some("shmem_" #N "_wait_until_some_vector", ivars, nelems, indices, status, cmp, static_cast<T>(0),          \
                     cmp_values);                                                                              \
  }                                                                                                            \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value) {                                                        \
    check_ivar("shmem_" #N "_test", ivar);                                                                     \
    return compare("shmem_" #N "_test", load(ivar), cmp, cmp_value) ? 1 : 0;                                   \
  }                                                                                                            \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {                 \
    check_ivars("shmem_" #N "_test_all", ivars, nelems, cmp);                                                  \
    return test_all("shmem_" #N "_test_all", ivars, nelems, status, cmp, cmp_value,                            \
                    static_cast<const T*>(nullptr)) ? 1 : 0;                                                   \
  }                                                                                                            \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value) {              \
    check_ivars("shmem_" #N "_test_any", ivars, nelems, cmp);                                                  \
    return test_any("shmem_" #N "_test_any", ivars, nelems, status, cmp, cmp_value,                            \
                    static_cast<const T*>(nullptr));                                                           \
  }                                                                                                            \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,           \
                               T cmp_value) {                                                                  \
    check_ivars("shmem_" #N "_test_some", ivars, nelems, cmp);                                                 \
    return test_some("shmem_" #N "_test_some", ivars, nelems, indices, status, cmp, cmp_value,                 \
                     static_cast<const T*>(nullptr));                                                          \
  }                                                                                                            \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) {        \
    check_ivars("shmem_" #N "_test_all_vector", ivars, nelems, cmp);                                           \
    return test_all("shmem_" #N "_test_all_vector", ivars, nelems, status, cmp, static_cast<T>(0), cmp_values) ? 1 : 0;      \
  }                                                                                                            \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values) {     \
    check_ivars("shmem_" #N "_test_any_vector", ivars, nelems, cmp);                                           \
    return test_any("shmem_" #N "_test_any_vector", ivars, nelems, status, cmp, static_cast<T>(0), cmp_values);              \
  }                                                                                                            \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,    \
                                      const T* cmp_values) {                                                         \
    check_ivars("shmem_" #N "_test_some_vector", ivars, nelems, cmp);                                          \
    return test_some("shmem_" #N "_test_some_vector", ivars, nelems, indices, status, cmp, static_cast<T>(0), cmp_values);   \
  }
TERN_SHMEM_P2P_TYPES(TERN_SHMEM_DEFINE_P2P)

#define TERN_SHMEM_DEFINE_WAIT_DEPRECATED(T, N) \
  void shmem_##N##_wait(T* ivar, T cmp_value) { wait_one("shmem_" #N "_wait", ivar, SHMEM_CMP_NE, cmp_value); }
TERN_SHMEM_DEFINE_WAIT_DEPRECATED(short, short)
TERN_SHMEM_DEFINE_WAIT_DEPRECATED(int, int)
TERN_SHMEM_DEFINE_WAIT_DEPRECATED(long, long)
TERN_SHMEM_DEFINE_WAIT_DEPRECATED(long long, longlong)
void shmem_wait(long* ivar, long cmp_value) { wait_one("shmem_wait", ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_wait_until(long* ivar, int cmp, long cmp_value) { wait_one("shmem_wait_until", ivar, cmp, cmp_value); }

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) {
  check_ivar("shmem_signal_fetch", sig_addr);
  return load(sig_addr);
}

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  constexpr const char* kFunction = "shmem_signal_wait_until";
  wait_one(kFunction, sig_addr, cmp, cmp_value);
  return load(sig_addr);
}

}  // extern "C"
