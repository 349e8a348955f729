#include "shared_arena.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"
#include "tern/runtime/topology.hpp"

namespace tern::engine::transport::shm {
namespace {

constexpr std::size_t kPage = 4096;
// Freed blocks at least this large give their pages back to the system.
constexpr std::size_t kReleaseThreshold = 1u << 20;

}  // namespace

SharedArena::~SharedArena() {
  if (base_ != nullptr) munmap(base_, capacity_);
  if (fd_ >= 0) close(fd_);
}

Status SharedArena::create(std::size_t capacity) {
  capacity = align_up(capacity, kPage);
  fd_ = memfd_create("tern-arena", MFD_CLOEXEC);
  if (fd_ < 0) {
    TERN_LOG(Info, "shm: no shared arena (memfd_create: %s)", std::strerror(errno));
    return Status::Unsupported;
  }
  if (ftruncate(fd_, static_cast<off_t>(capacity)) != 0) {
    TERN_LOG(Info, "shm: no shared arena (ftruncate %zu: %s)", capacity, std::strerror(errno));
    return Status::Unsupported;
  }
  void* base = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (base == MAP_FAILED) {
    TERN_LOG(Info, "shm: no shared arena (mmap %zu: %s)", capacity, std::strerror(errno));
    return Status::Unsupported;
  }
  (void)runtime::place_near_self(base, capacity);  // pages appear on first touch, on this rank's node
  base_ = static_cast<std::byte*>(base);
  capacity_ = capacity;
  free_.emplace(0, capacity);
  return Status::Ok;
}

void* SharedArena::allocate(std::size_t size) noexcept {
  if (base_ == nullptr || size == 0) return nullptr;
  // Page granularity keeps blocks apart for hole punching and alignment.
  size = align_up(size, kPage);
  std::lock_guard lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const std::size_t offset = it->first;
    const std::size_t left = it->second - size;
    free_.erase(it);
    if (left != 0) free_.emplace(offset + size, left);
    used_.emplace(offset, size);
    return base_ + offset;
  }
  return nullptr;
}

bool SharedArena::deallocate(void* pointer) noexcept {
  if (!contains(pointer)) return false;
  const std::size_t offset = static_cast<std::size_t>(static_cast<std::byte*>(pointer) - base_);
  std::lock_guard lock(mutex_);
  auto used = used_.find(offset);
  if (used == used_.end()) return false;
  std::size_t start = offset;
  std::size_t length = used->second;
  used_.erase(used);
  if (length >= kReleaseThreshold) {
    fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(start),
              static_cast<off_t>(length));
  }
  // Coalesce with the free neighbours.
  auto next = free_.lower_bound(start);
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == start) {
      start = previous->first;
      length += previous->second;
      free_.erase(previous);
    }
  }
  if (next != free_.end() && start + length == next->first) {
    length += next->second;
    free_.erase(next);
  }
  free_.emplace(start, length);
  return true;
}

PeerArena::~PeerArena() {
  if (local_ != nullptr) munmap(local_, capacity_);
}

bool PeerArena::map() noexcept {
  if (failed_ || fd_ < 0) return false;
  failed_ = true;  // until it works
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/fd/%d", static_cast<int>(pid_), fd_);
  const int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    TERN_LOG(Info, "shm: cannot open process %d's arena (%s): large copies use CMA", static_cast<int>(pid_),
             std::strerror(errno));
    return false;
  }
  void* local = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  close(fd);
  if (local == MAP_FAILED) {
    TERN_LOG(Info, "shm: cannot map process %d's arena (%s): large copies use CMA", static_cast<int>(pid_),
             std::strerror(errno));
    return false;
  }
  local_ = static_cast<std::byte*>(local);
  failed_ = false;
  return true;
}

}  // namespace tern::engine::transport::shm
