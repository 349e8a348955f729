#include "shm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "tern/runtime/log.hpp"
#include "tern/runtime/topology.hpp"

namespace tern::engine::transport::shm {
namespace {

// Takes the page faults now rather than on the first messages. MAP_POPULATE
// alone was not enough: it maps a shared file's pages for reading only, and
// on a VM whose hypervisor keeps its own page tables each process's first
// access to each page exits to the host. The first pass through the FIFO
// then made 64 KiB sends take 35-90 us instead of 3. Every page is touched
// once, with an atomic add of zero: a write access that cannot change a word
// a peer may be writing at the same moment.
void* map(int fd, std::size_t size) noexcept {
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (base == MAP_FAILED) return nullptr;
  static const std::size_t page_size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* bytes = static_cast<std::byte*>(base);
  for (std::size_t offset = 0; offset < size; offset += page_size) {
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(bytes + offset)).fetch_add(0, std::memory_order_relaxed);
  }
  return base;
}

}  // namespace

ShmSegment::ShmSegment(ShmSegment&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Status ShmSegment::create(const std::string& name, std::size_t size, ShmSegment& out) {
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return Status::Busy;
    TERN_LOG(Error, "shm: shm_open(%s): %s", name.c_str(), std::strerror(errno));
    return Status::IoError;
  }
  Status status = Status::Ok;
  int error = posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (error == EOPNOTSUPP || error == EINVAL) {
    // A file system without reservation: size it and hope.
    error = ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
  }
  void* base = nullptr;
  if (error != 0) {
    TERN_LOG(Error, "shm: cannot size %s to %zu bytes: %s", name.c_str(), size, std::strerror(error));
    status = error == ENOSPC ? Status::NoMemory : Status::IoError;
  } else if ((base = map(fd, size)) == nullptr) {
    TERN_LOG(Error, "shm: mmap(%s, %zu): %s", name.c_str(), size, std::strerror(errno));
    status = Status::NoMemory;
  }
  close(fd);
  if (status != Status::Ok) {
    unlink(name);
    return status;
  }
  // The creator is the one that polls this segment most: keep it on its node.
  (void)runtime::place_near_self(base, size);
  out = ShmSegment();
  out.base_ = base;
  out.size_ = size;
  return Status::Ok;
}

Status ShmSegment::attach(const std::string& name, std::size_t size, ShmSegment& out) {
  const int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound;
    TERN_LOG(Error, "shm: shm_open(%s): %s", name.c_str(), std::strerror(errno));
    return Status::IoError;
  }
  struct stat info {};
  Status status = Status::Ok;
  void* base = nullptr;
  if (fstat(fd, &info) != 0) {
    TERN_LOG(Error, "shm: fstat(%s): %s", name.c_str(), std::strerror(errno));
    status = Status::IoError;
  } else if (static_cast<std::size_t>(info.st_size) < size) {
    TERN_LOG(Error, "shm: %s has %lld bytes, expected %zu", name.c_str(), static_cast<long long>(info.st_size),
             size);
    status = Status::InvalidParam;
  } else if ((base = map(fd, size)) == nullptr) {
    TERN_LOG(Error, "shm: mmap(%s, %zu): %s", name.c_str(), size, std::strerror(errno));
    status = Status::NoMemory;
  }
  close(fd);
  if (status != Status::Ok) return status;
  out = ShmSegment();
  out.base_ = base;
  out.size_ = size;
  return Status::Ok;
}

void ShmSegment::unlink(const std::string& name) noexcept {
  if (shm_unlink(name.c_str()) != 0 && errno != ENOENT) {
    TERN_LOG(Warn, "shm: shm_unlink(%s): %s", name.c_str(), std::strerror(errno));
  }
}

void ShmSegment::unmap() noexcept {
  if (base_ != nullptr) munmap(base_, size_);
  base_ = nullptr;
  size_ = 0;
}

}  // namespace tern::engine::transport::shm
