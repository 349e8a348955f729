// Small compiler helpers used on hot paths.
#pragma once

#include <cstddef>

#define TERN_LIKELY(x) __builtin_expect(!!(x), 1)
#define TERN_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace tern {

inline constexpr std::size_t kCacheLine = 64;

// Tell the CPU we are spinning: lowers power and frees the sibling hyperthread.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

constexpr std::size_t align_up(std::size_t value, std::size_t alignment) noexcept {
  return (value + alignment - 1) & ~(alignment - 1);
}

constexpr bool is_pow2(std::size_t value) noexcept { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace tern

namespace tern {

// Byte offset of `Member` inside `T`, valid for any class (offsetof is not,
// for classes with base members); the compiler folds it to a constant.
template <typename T, typename M>
inline std::size_t member_offset(M T::*member) noexcept {
  union Storage {
    char byte;
    T object;
    Storage() : byte(0) {}
    ~Storage() {}
  } storage;
  return static_cast<std::size_t>(reinterpret_cast<char*>(&(storage.object.*member)) -
                                  reinterpret_cast<char*>(&storage.object));
}

// The object that embeds `*field` as its `member`.
template <typename T, typename M>
inline T* container_of(M* field, M T::*member) noexcept {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(field) - member_offset(member));
}

}  // namespace tern
