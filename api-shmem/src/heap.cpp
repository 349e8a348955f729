// The symmetric heap's allocator. Every PE runs the same sequence of
// collective allocations, so a deterministic first-fit allocator hands out
// the same offsets on every PE: that is what makes the objects symmetric.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "state.hpp"
#include "tern/runtime/log.hpp"

namespace tern::shmem {
namespace {

constexpr std::size_t kMinAlignment = 16;

struct Allocator {
  std::map<std::size_t, std::size_t> free_blocks;  // offset -> length, coalesced
  std::map<std::size_t, std::size_t> used_blocks;  // offset -> length
};

Allocator* g_allocator = nullptr;

void insert_free(Allocator& a, std::size_t offset, std::size_t length) {
  if (length == 0) return;
  auto next = a.free_blocks.lower_bound(offset);
  if (next != a.free_blocks.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      offset = previous->first;
      length += previous->second;
      a.free_blocks.erase(previous);
    }
  }
  if (next != a.free_blocks.end() && offset + length == next->first) {
    length += next->second;
    a.free_blocks.erase(next);
  }
  a.free_blocks.emplace(offset, length);
}

}  // namespace

void heap_setup(State& s) {
  delete g_allocator;
  g_allocator = new Allocator;
  insert_free(*g_allocator, s.user_heap_offset, s.heap_size - s.user_heap_offset);
}

void* heap_allocate(State& s, std::size_t alignment, std::size_t size) noexcept {
  if (size == 0) return nullptr;
  if (alignment < kMinAlignment) alignment = kMinAlignment;
  if (size > s.heap_size || alignment > s.heap_alignment) return nullptr;
  size = (size + kMinAlignment - 1) & ~(kMinAlignment - 1);
  std::lock_guard lock(s.heap_mutex);
  Allocator& a = *g_allocator;
  for (auto it = a.free_blocks.begin(); it != a.free_blocks.end(); ++it) {
    const std::size_t block = it->first, length = it->second;
    // Offsets from the heap base, which is page aligned.
    const std::size_t start = (block + alignment - 1) & ~(alignment - 1);
    if (start < block || start - block > length || length - (start - block) < size) continue;
    a.free_blocks.erase(it);
    insert_free(a, block, start - block);
    insert_free(a, start + size, block + length - (start + size));
    a.used_blocks.emplace(start, size);
    return reinterpret_cast<void*>(s.heap_base + start);
  }
  return nullptr;
}

void heap_free(State& s, void* pointer) noexcept {
  std::lock_guard lock(s.heap_mutex);
  Allocator& a = *g_allocator;
  const std::size_t offset = reinterpret_cast<uintptr_t>(pointer) - s.heap_base;
  auto it = a.used_blocks.find(offset);
  if (it == a.used_blocks.end()) return;
  const std::size_t length = it->second;
  a.used_blocks.erase(it);
  insert_free(a, offset, length);
}

std::size_t heap_block_size(State& s, void* pointer) noexcept {
  std::lock_guard lock(s.heap_mutex);
  const std::size_t offset = reinterpret_cast<uintptr_t>(pointer) - s.heap_base;
  auto it = g_allocator->used_blocks.find(offset);
  return it == g_allocator->used_blocks.end() ? 0 : it->second;
}

namespace {

// SHMEM_DEBUG (any value but 0) prints what TERN_LOG_LEVEL=info would log.
bool shmem_debug() {
  const char* value = std::getenv("SHMEM_DEBUG");
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

// An allocation returns NULL, as the standard asks; this says why, for
// whoever looks (SHMEM_DEBUG or TERN_LOG_LEVEL=info).
void explain_null(const char* function, State& s, std::size_t size, const char* why) {
  std::size_t free_bytes = 0;
  std::size_t largest = 0;
  {
    std::lock_guard lock(s.heap_mutex);
    for (const auto& [offset, length] : g_allocator->free_blocks) {
      free_bytes += length;
      if (length > largest) largest = length;
    }
  }
  char line[512];
  if (why != nullptr) {
    std::snprintf(line, sizeof(line), "%s: returns NULL: %s", function, why);
  } else {
    std::snprintf(line, sizeof(line),
                  "%s: returns NULL: %zu bytes do not fit in the symmetric heap (%zu bytes for objects, %zu free, "
                  "the largest free block %zu); SHMEM_SYMMETRIC_SIZE sets the heap's size",
                  function, size, s.heap_size - s.user_heap_offset, free_bytes, largest);
  }
  if (shmem_debug()) {
    std::fprintf(stderr, "Tern OpenSHMEM: PE %d: %s\n", s.my_pe, line);
  } else {
    TERN_LOG(Info, "shmem: PE %d: %s", s.my_pe, line);
  }
}

// A pointer shmem_free/realloc may take: null or one shmem_malloc returned.
void check_heap_pointer(const char* function, State& s, void* pointer) {
  if (pointer == nullptr) return;
  if (heap_block_size(s, pointer) == 0) {
    fail(function, "%p was not returned by shmem_malloc (or was freed already)", pointer);
  }
}

void* allocate_collective(const char* function, std::size_t alignment, std::size_t size) {
  State& s = state(function);
  void* pointer = heap_allocate(s, alignment, size);
  if (pointer == nullptr && size != 0) explain_null(function, s, size, nullptr);
  team_barrier(g_team_world);
  return pointer;
}

}  // namespace
}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

void* shmem_malloc(size_t size) { return allocate_collective("shmem_malloc", 0, size); }

void* shmem_malloc_with_hints(size_t size, long) {
  // Every hint (atomics, signals) is served as well by ordinary heap memory here.
  return allocate_collective("shmem_malloc_with_hints", 0, size);
}

void* shmem_calloc(size_t count, size_t size) {
  constexpr const char* kFunction = "shmem_calloc";
  State& s = state(kFunction);
  size_t bytes = 0;
  void* pointer = nullptr;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    explain_null(kFunction, s, 0, "count times size overflows size_t");
  } else {
    pointer = heap_allocate(s, 0, bytes);
    if (pointer == nullptr && bytes != 0) explain_null(kFunction, s, bytes, nullptr);
  }
  if (pointer != nullptr) std::memset(pointer, 0, bytes);
  team_barrier(g_team_world);
  return pointer;
}

void* shmem_align(size_t alignment, size_t size) {
  constexpr const char* kFunction = "shmem_align";
  State& s = state(kFunction);
  void* pointer = nullptr;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    explain_null(kFunction, s, size, "the alignment is not a power of two");
  } else if (alignment >= s.heap_size) {
    explain_null(kFunction, s, size, "the alignment is not smaller than the symmetric heap (SHMEM_SYMMETRIC_SIZE)");
  } else {
    pointer = heap_allocate(s, alignment, size);
    if (pointer == nullptr && size != 0) explain_null(kFunction, s, size, nullptr);
  }
  team_barrier(g_team_world);
  return pointer;
}

void* shmem_realloc(void* ptr, size_t size) {
  constexpr const char* kFunction = "shmem_realloc";
  State& s = state(kFunction);
  check_heap_pointer(kFunction, s, ptr);
  void* pointer = nullptr;
  if (ptr == nullptr) {
    pointer = heap_allocate(s, 0, size);
    if (pointer == nullptr && size != 0) explain_null(kFunction, s, size, nullptr);
  } else if (size == 0) {
    team_barrier(g_team_world);  // nobody may still be reading the old block
    heap_free(s, ptr);
  } else {
    pointer = heap_allocate(s, 0, size);
    if (pointer == nullptr) explain_null(kFunction, s, size, nullptr);
    if (pointer != nullptr) {
      const std::size_t old = heap_block_size(s, ptr);
      std::memcpy(pointer, ptr, old < size ? old : size);
      team_barrier(g_team_world);
      heap_free(s, ptr);
    }
  }
  team_barrier(g_team_world);
  return pointer;
}

void shmem_free(void* ptr) {
  constexpr const char* kFunction = "shmem_free";
  State& s = state(kFunction);
  check_heap_pointer(kFunction, s, ptr);
  team_barrier(g_team_world);  // peers may still be writing into it
  if (ptr != nullptr) heap_free(s, ptr);
}

void* shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void* ptr) { shmem_free(ptr); }
void* shrealloc(void* ptr, size_t size) { return shmem_realloc(ptr, size); }
void* shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

}  // extern "C"
