// Address ranges the process stopped mapping the way they were mapped:
// what tells the registration cache (verbs_mr_cache.hpp) that a cached
// registration no longer names the memory at its addresses.
//
// Why this is needed: a registration pins the physical pages that backed
// its virtual range when it was made. Once the range is unmapped (munmap,
// or free() of a buffer malloc had mapped), moved (mremap) or emptied
// (madvise DONTNEED/FREE/REMOVE), a new mapping at the same addresses has
// other pages, and a cached registration would make the HCA read and write
// the old ones: silently wrong data, no error anywhere.
//
// How the events are caught, and why that is enough:
//  - This library defines mmap (MAP_FIXED replaces what was mapped),
//    munmap, mremap and madvise itself (they make the
//    system call and then log the range), so every call that goes through
//    the dynamic linker's symbol lookup reaches them: the program's, and
//    any shared library's, since the one that defines them is searched
//    before libc. libtern_mpi and libtern_shmem export them for that (their
//    version scripts); hooked() checks at run time that the process's
//    lookup finds them. (UCX's memory hooks patch the same calls.)
//  - glibc's allocator makes its own calls inside libc, which no symbol
//    lookup sees: free() of a chunk it had mmapped, and the trimming of
//    its heaps. keep_malloc_memory_mapped() turns both off (chunks come
//    from the heap, which is never given back: M_MMAP_MAX 0, M_TRIM_THRESHOLD
//    and M_TOP_PAD maximal), as Open MPI does for its leave-pinned mode, so
//    memory free() releases stays mapped to the same pages and its
//    registrations stay right. The cost: freed memory is not returned to
//    the system while the process runs.
//  - What no hook sees: raw system calls (syscall(SYS_munmap, ...)) and
//    builds under a sanitizer, which intercepts the same calls (hooked()
//    is false there and the cache only ever grows, as before).
//
// The log is a ring written by any thread without a lock; each reader
// keeps its place and learns when it fell behind by more than the ring
// holds (then it must assume every range changed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tern::engine::transport::verbs::memory_events {

struct Range {
  uintptr_t start = 0;
  std::size_t length = 0;
};

// Whether the hooks see the process's calls: built in (not under a
// sanitizer) and found first by the process's symbol lookup.
[[nodiscard]] bool hooked() noexcept;

// Logs a released range (the hooks call it; tests may too).
void released(const void* start, std::size_t length) noexcept;

// Keeps memory that free() releases mapped to the same pages (see above).
void keep_malloc_memory_mapped() noexcept;

class Reader {
 public:
  Reader() noexcept;  // sees what is released from now on
  // Whether anything was released since the last read.
  [[nodiscard]] bool pending() const noexcept;
  // The ranges released since the last read, appended to `out`; false when
  // some were lost (more than the ring holds came since).
  [[nodiscard]] bool read(std::vector<Range>& out);

 private:
  uint64_t cursor_;
};

}  // namespace tern::engine::transport::verbs::memory_events
