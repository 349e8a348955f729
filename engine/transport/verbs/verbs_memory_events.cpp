#include "verbs_memory_events.hpp"

// Sanitizers intercept the same calls: no hooks of ours under them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TERN_MEMORY_HOOKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TERN_MEMORY_HOOKS 0
#endif
#endif
#ifndef TERN_MEMORY_HOOKS
#define TERN_MEMORY_HOOKS 1
#endif

#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <mutex>

namespace tern::engine::transport::verbs::memory_events {
namespace {

constexpr bool kHooked = TERN_MEMORY_HOOKS != 0;

constexpr uint64_t kRingSize = 4096;

struct Entry {
  std::atomic<uint64_t> sequence{0};  // the entry's index + 1 once written
  uintptr_t start = 0;
  std::size_t length = 0;
};

std::array<Entry, kRingSize> ring;
std::atomic<uint64_t> head{0};

}  // namespace

bool hooked() noexcept {
  if constexpr (!kHooked) {
    return false;
  } else {
    // The hooks see the process's calls only if its symbol lookup finds
    // them before libc's: in the program, or exported by the shared
    // library they are linked into (libtern_mpi and libtern_shmem export
    // them; a library that keeps them local sees only its own calls).
    static const bool resolved = dlsym(RTLD_DEFAULT, "munmap") == reinterpret_cast<void*>(&::munmap);
    return resolved;
  }
}

void released(const void* start, std::size_t length) noexcept {
  if (length == 0) return;
  const uint64_t index = head.fetch_add(1, std::memory_order_acq_rel);
  Entry& entry = ring[index % kRingSize];
  entry.start = reinterpret_cast<uintptr_t>(start);
  entry.length = length;
  entry.sequence.store(index + 1, std::memory_order_release);
}

void keep_malloc_memory_mapped() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)mallopt(M_MMAP_MAX, 0);
    (void)mallopt(M_TRIM_THRESHOLD, INT_MAX);
    (void)mallopt(M_TOP_PAD, 0);
  });
}

Reader::Reader() noexcept : cursor_(head.load(std::memory_order_acquire)) {}

bool Reader::pending() const noexcept { return head.load(std::memory_order_acquire) != cursor_; }

bool Reader::read(std::vector<Range>& out) {
  const uint64_t end = head.load(std::memory_order_acquire);
  if (end - cursor_ > kRingSize) {
    cursor_ = end;
    return false;
  }
  while (cursor_ != end) {
    const Entry& entry = ring[cursor_ % kRingSize];
    const uint64_t sequence = entry.sequence.load(std::memory_order_acquire);
    // Another thread is still writing it: the rest comes with the next read.
    if (sequence < cursor_ + 1) break;
    // Overwritten since: more came than the ring holds.
    if (sequence != cursor_ + 1) {
      cursor_ = end;
      return false;
    }
    out.push_back({entry.start, entry.length});
    ++cursor_;
  }
  return true;
}

}  // namespace tern::engine::transport::verbs::memory_events

#if TERN_MEMORY_HOOKS

// The hooks: the system call, then the log. Made as system calls, not
// through libc's functions, which would find these again.
extern "C" {

void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
  const long result = syscall(SYS_mmap, address, length, protection, flags, fd, offset);
  if (result == -1) return MAP_FAILED;
  // A fixed mapping replaces whatever was mapped there.
  if ((flags & MAP_FIXED) != 0) tern::engine::transport::verbs::memory_events::released(address, length);
  return reinterpret_cast<void*>(result);
}

int munmap(void* address, size_t length) {
  const long result = syscall(SYS_munmap, address, length);
  if (result == 0) tern::engine::transport::verbs::memory_events::released(address, length);
  return static_cast<int>(result);
}

void* mremap(void* old_address, size_t old_size, size_t new_size, int flags, ...) {
  void* new_address = nullptr;
  if ((flags & MREMAP_FIXED) != 0) {
    va_list args;
    va_start(args, flags);
    new_address = va_arg(args, void*);
    va_end(args);
  }
  const long result = syscall(SYS_mremap, old_address, old_size, new_size, flags, new_address);
  if (result == -1) return MAP_FAILED;
  // Moved, shrunk or grown: the old range is no longer what it was, and a
  // range it moved onto is new.
  tern::engine::transport::verbs::memory_events::released(old_address, old_size);
  if ((flags & MREMAP_FIXED) != 0) tern::engine::transport::verbs::memory_events::released(new_address, new_size);
  return reinterpret_cast<void*>(result);
}

int madvise(void* address, size_t length, int advice) {
  const long result = syscall(SYS_madvise, address, length, advice);
  // These give the pages back: the next touch maps new ones.
  if (result == 0 && (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE)) {
    tern::engine::transport::verbs::memory_events::released(address, length);
  }
  return static_cast<int>(result);
}

}  // extern "C"

#endif
