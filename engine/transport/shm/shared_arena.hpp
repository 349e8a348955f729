// Memory that local peers can map directly. One memfd per iface, reserved at
// a fixed size (sparse: pages exist only once touched) and handed out by a
// first-fit allocator. A peer maps the whole file once and then copies large
// messages with a plain memcpy, which runs at memory speed where a CMA system
// call pins and copies page by page.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "tern/runtime/status.hpp"

namespace tern::engine::transport::shm {

class SharedArena {
 public:
  SharedArena() = default;
  ~SharedArena();
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  // Reserves `capacity` bytes of address space backed by a new memfd.
  [[nodiscard]] Status create(std::size_t capacity);

  // Null when the arena is full (callers fall back to private memory).
  [[nodiscard]] void* allocate(std::size_t size) noexcept;
  // False when `pointer` did not come from this arena.
  bool deallocate(void* pointer) noexcept;

  // Whether [pointer, pointer + length) lies in the arena.
  [[nodiscard]] bool contains(const void* pointer, std::size_t length) const noexcept {
    return contains(pointer) && (length == 0 || contains(static_cast<const std::byte*>(pointer) + length - 1));
  }
  [[nodiscard]] bool contains(const void* pointer) const noexcept {
    auto address = reinterpret_cast<uintptr_t>(pointer);
    return address >= reinterpret_cast<uintptr_t>(base_) && address < reinterpret_cast<uintptr_t>(base_) + capacity_;
  }
  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] uint64_t base() const noexcept { return reinterpret_cast<uint64_t>(base_); }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  int fd_ = -1;
  std::byte* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::mutex mutex_;                          // allocation is not a hot path
  std::map<std::size_t, std::size_t> free_;   // offset -> length, coalesced
  std::map<std::size_t, std::size_t> used_;   // offset -> length
};

// Another process's arena, mapped here on first use.
class PeerArena {
 public:
  PeerArena() = default;
  ~PeerArena();
  PeerArena(const PeerArena&) = delete;
  PeerArena& operator=(const PeerArena&) = delete;

  void describe(pid_t pid, int fd, uint64_t base, std::size_t capacity) noexcept {
    pid_ = pid;
    fd_ = fd;
    remote_base_ = base;
    capacity_ = capacity;
  }

  // Where [remote, remote + length) of the peer is mapped here, or null when
  // that range is not in the peer's arena or the arena cannot be mapped.
  [[nodiscard]] std::byte* translate(uint64_t remote, std::size_t length) noexcept {
    if (capacity_ == 0 || remote < remote_base_ || remote - remote_base_ > capacity_ ||
        length > capacity_ - (remote - remote_base_)) {
      return nullptr;
    }
    if (local_ == nullptr && !map()) return nullptr;
    return local_ + (remote - remote_base_);
  }

 private:
  bool map() noexcept;

  pid_t pid_ = 0;
  int fd_ = -1;
  uint64_t remote_base_ = 0;
  std::size_t capacity_ = 0;
  std::byte* local_ = nullptr;
  bool failed_ = false;  // tried once and could not: use CMA from then on
};

}  // namespace tern::engine::transport::shm
