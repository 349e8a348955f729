// Regions are memfds: a peer on the same node opens the owner's descriptor
// through /proc/<pid>/fd/<fd> and maps the same pages, so no name is ever
// created in /dev/shm and nothing outlives the processes that map it.
#include "tern/engine/memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "core/memory_key.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"
#include "tern/runtime/topology.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define TERN_MEMORY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TERN_MEMORY_ASAN 1
#endif
#endif

namespace tern::engine {
namespace {

std::size_t page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

Status status_from_errno(int error) noexcept {
  return error == ENOMEM || error == ENOSPC ? Status::NoMemory : Status::IoError;
}

// Copies the program's own memory into the memfd. Under ASan the range may
// span the redzones it keeps between globals, which a checked memcpy would
// report as an overflow although every byte is mapped and ours.
#ifdef TERN_MEMORY_ASAN
__attribute__((no_sanitize_address)) void copy_existing(void* to, const void* from, std::size_t length) noexcept {
  // volatile keeps the loop from becoming a (checked) memcpy call.
  auto* out = static_cast<volatile uint64_t*>(to);
  const auto* in = static_cast<const volatile uint64_t*>(from);
  for (std::size_t i = 0; i < length / sizeof(uint64_t); ++i) out[i] = in[i];
}
#else
void copy_existing(void* to, const void* from, std::size_t length) noexcept { std::memcpy(to, from, length); }
#endif

// A memfd of `length` bytes, or -1 with errno set.
int create_memfd(std::size_t length) noexcept {
  const int fd = memfd_create("tern-region", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, static_cast<off_t>(length)) != 0) {
    const int error = errno;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

Status fail(const char* what, std::size_t length, int fd) noexcept {
  const int error = errno;
  TERN_LOG(Warn, "mem_map: cannot map %zu bytes (%s: %s)", length, what, std::strerror(error));
  if (fd >= 0) close(fd);
  return status_from_errno(error);
}

// `alignment`: a power of two, at least the page size. A larger one is had by
// reserving alignment more address space than needed and mapping the file
// at the aligned address inside it, then giving back the rest.
Status allocate(std::size_t length, std::size_t alignment, void*& base, int& fd) noexcept {
  fd = create_memfd(length);
  if (fd < 0) return fail("memfd_create", length, -1);
  const std::size_t page = page_size();
  if (alignment <= page) {
    base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (base == MAP_FAILED) return fail("mmap", length, fd);
  } else {
    const std::size_t span = length + alignment;
    void* reserved = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) return fail("mmap (reserving aligned address space)", length, fd);
    const auto start = reinterpret_cast<uintptr_t>(reserved);
    const uintptr_t aligned = (start + alignment - 1) & ~(alignment - 1);
    base = mmap(reinterpret_cast<void*>(aligned), length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED,
                fd, 0);
    if (base == MAP_FAILED) {
      munmap(reserved, span);
      return fail("mmap", length, fd);
    }
    if (aligned > start) munmap(reserved, aligned - start);
    const uintptr_t end = aligned + length;
    if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
  }
  (void)runtime::place_near_self(base, length);  // its owner's node, as pages are touched
  return Status::Ok;
}

// Whether every page of [address, address + length) lies in a private
// writable mapping other than the stack, as /proc/self/maps says: only
// such memory is the caller's alone to swap for shared pages (a shared
// mapping has other users, and the stack is being written by this very
// call while its pages are copied).
bool private_writable(uintptr_t address, std::size_t length) noexcept {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  uintptr_t covered = address;  // everything below it checked
  const uintptr_t end = address + length;
  char line[512];
  while (covered < end && std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, stop = 0;
    char perms[8] = {};
    int name_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &stop, perms, &name_at) < 3) break;
    if (stop <= covered) continue;
    if (start > covered) break;  // a hole
    const char* name = line + name_at;
    if (std::strncmp(perms, "rw-p", 4) != 0 || std::strncmp(name, "[stack", 6) == 0) break;
    covered = stop;
  }
  std::fclose(maps);
  return covered >= end;
}

Status share_existing(void* address, std::size_t length, int& fd) noexcept {
  fd = create_memfd(length);
  if (fd < 0) return fail("memfd_create", length, -1);
  void* staging = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (staging == MAP_FAILED) return fail("mmap", length, fd);
  copy_existing(staging, address, length);
  // The staging view stays until the swap has worked: a failed MAP_FIXED may
  // already have dropped the old pages, and this is the only copy of them.
  if (mmap(address, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    const int error = errno;
    void* restored = mmap(address, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (restored != MAP_FAILED) {
      copy_existing(address, staging, length);
    } else {
      TERN_LOG(Error, "mem_map: [%p, +%zu) lost its pages and could not get them back (%s)", address, length,
               std::strerror(errno));
    }
    munmap(staging, length);
    errno = error;
    return fail("mmap over the existing range", length, fd);
  }
  munmap(staging, length);
  return Status::Ok;
}

}  // namespace

Status MemRegion::map(const MemMapParams& params, MemRegion*& region) {
  region = nullptr;
  const std::size_t page = page_size();
  std::size_t length = params.length;
  if (length == 0 || length > SIZE_MAX - page) return Status::InvalidParam;
  void* base = nullptr;
  int fd = -1;
  Status status = Status::InvalidParam;
  if (params.flags == kMemAllocate) {
    const std::size_t alignment = params.alignment;
    if ((alignment & (alignment - 1)) != 0 || alignment > (std::size_t{1} << 40)) return Status::InvalidParam;
    length = align_up(length, page);
    status = allocate(length, alignment, base, fd);
  } else if (params.flags == kMemShareExisting) {
    const auto address = reinterpret_cast<uintptr_t>(params.address);
    if (address == 0 || address % page != 0 || length % page != 0 || address > UINTPTR_MAX - length) {
      return Status::InvalidParam;
    }
    // Refuse holes here rather than fault in the copy below.
    if (msync(params.address, length, MS_ASYNC) != 0) {
      TERN_LOG(Warn, "mem_map: [%p, +%zu) is not mapped memory (%s)", params.address, length, std::strerror(errno));
      return Status::InvalidParam;
    }
    if (!private_writable(address, length)) {
      TERN_LOG(Debug, "mem_map: [%p, +%zu) is not private writable memory off the stack: not shared in place",
               params.address, length);
      return Status::Unsupported;
    }
    base = params.address;
    status = share_existing(base, length, fd);
  }
  if (status != Status::Ok) return status;

  auto* made = new (std::nothrow) MemRegion;
  if (made == nullptr) {
    if (params.flags == kMemAllocate) munmap(base, length);
    close(fd);
    return Status::NoMemory;
  }
  made->base_ = base;
  made->length_ = length;
  made->fd_ = fd;
  made->owns_mapping_ = params.flags == kMemAllocate;

  PackedMemKey key{};
  key.magic = kMemKeyMagic;
  key.version = kMemKeyVersion;
  key.node = transport::shm::local_host_id();
  key.pid = static_cast<int32_t>(getpid());
  key.fd = fd;
  key.base = reinterpret_cast<uint64_t>(base);
  key.length = length;
  made->packed_key_.resize(sizeof(key));
  std::memcpy(made->packed_key_.data(), &key, sizeof(key));
  region = made;
  return Status::Ok;
}

void MemRegion::unmap(MemRegion* region) noexcept {
  if (region == nullptr) return;
  if (region->owns_mapping_) munmap(region->base_, region->length_);
  if (region->fd_ >= 0) close(region->fd_);
  delete region;
}

void MemRegion::unshare(MemRegion* region) noexcept {
  if (region == nullptr) return;
  if (!region->owns_mapping_) {
    // Private pages again: a copy, moved over the range in one step.
    const std::size_t length = region->length_;
    void* staging = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (staging != MAP_FAILED) {
      copy_existing(staging, region->base_, length);
      if (mremap(staging, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, region->base_) == MAP_FAILED) {
        TERN_LOG(Debug, "mem_map: [%p, +%zu) stays shared (mremap: %s)", region->base_, length, std::strerror(errno));
        munmap(staging, length);
      }
    } else {
      TERN_LOG(Debug, "mem_map: [%p, +%zu) stays shared (mmap: %s)", region->base_, length, std::strerror(errno));
    }
  }
  unmap(region);
}

Status RemoteKey::unpack(std::span<const std::byte> packed, RemoteKey*& key) {
  key = nullptr;
  PackedMemKey fields;
  if (packed.size() != sizeof(fields)) return Status::InvalidParam;
  std::memcpy(&fields, packed.data(), sizeof(fields));
  if (fields.magic != kMemKeyMagic || fields.version != kMemKeyVersion || fields.length == 0 ||
      fields.base > UINT64_MAX - fields.length) {
    return Status::InvalidParam;
  }
  const bool same_node = fields.node == transport::shm::local_host_id();
  if (!same_node) {
    TERN_LOG(Info, "mem key: process %d's region (%llu bytes) is on another node: no local mapping",
             static_cast<int>(fields.pid), static_cast<unsigned long long>(fields.length));
    return Status::Unreachable;
  }

  std::byte* local = nullptr;
  const bool own = fields.pid == static_cast<int32_t>(getpid());
  if (own) {
    local = reinterpret_cast<std::byte*>(static_cast<uintptr_t>(fields.base));
  } else {
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%d/fd/%d", static_cast<int>(fields.pid), static_cast<int>(fields.fd));
    const int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      TERN_LOG(Warn, "mem key: cannot open process %d's region (%s: %s)", static_cast<int>(fields.pid), path,
               std::strerror(errno));
      return Status::Unreachable;
    }
    // A stale key (the owner reused the descriptor number) must not map a
    // file shorter than the region: touching past its end would be SIGBUS.
    struct stat file {};
    if (fstat(fd, &file) != 0 || static_cast<uint64_t>(file.st_size) < fields.length) {
      TERN_LOG(Warn, "mem key: process %d's %s is not a region of %llu bytes", static_cast<int>(fields.pid), path,
               static_cast<unsigned long long>(fields.length));
      close(fd);
      return Status::Unreachable;
    }
    void* mapped = mmap(nullptr, static_cast<std::size_t>(fields.length), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_NORESERVE, fd, 0);
    const int error = errno;
    close(fd);  // the mapping keeps the file alive
    if (mapped == MAP_FAILED) {
      TERN_LOG(Warn, "mem key: cannot map process %d's region of %llu bytes (%s)", static_cast<int>(fields.pid),
               static_cast<unsigned long long>(fields.length), std::strerror(error));
      return Status::Unreachable;
    }
    local = static_cast<std::byte*>(mapped);
  }

  auto* made = new (std::nothrow) RemoteKey;
  if (made == nullptr) {
    if (!own) munmap(local, static_cast<std::size_t>(fields.length));
    return Status::NoMemory;
  }
  made->remote_base_ = fields.base;
  made->length_ = static_cast<std::size_t>(fields.length);
  made->local_base_ = local;
  made->owns_mapping_ = !own;
  key = made;
  return Status::Ok;
}

void RemoteKey::destroy(RemoteKey* key) noexcept {
  if (key == nullptr) return;
  if (key->owns_mapping_) munmap(key->local_base_, key->length_);
  delete key;
}

}  // namespace tern::engine
