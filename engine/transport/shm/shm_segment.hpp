// A POSIX shared-memory object mapped into this process.
#pragma once

#include <cstddef>
#include <string>

#include "tern/runtime/status.hpp"

namespace tern::engine::transport::shm {

class ShmSegment {
 public:
  ShmSegment() = default;
  ~ShmSegment() { unmap(); }
  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  // Creates the object `name` (exclusively, mode 0600), `size` bytes with
  // memory reserved up front (so a full /dev/shm fails here, not as SIGBUS
  // later), and maps it. Busy when the name is taken; the name is removed
  // again on any failure.
  [[nodiscard]] static Status create(const std::string& name, std::size_t size, ShmSegment& out);

  // Maps `size` bytes of the existing object `name`. NotFound when no such
  // name exists (never created, already unlinked, owner gone); InvalidParam
  // when the object is smaller than `size`.
  [[nodiscard]] static Status attach(const std::string& name, std::size_t size, ShmSegment& out);

  // Removes the name; mappings stay valid. A name already gone is fine.
  static void unlink(const std::string& name) noexcept;

  [[nodiscard]] void* base() const noexcept { return base_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool mapped() const noexcept { return base_ != nullptr; }

  void unmap() noexcept;

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tern::engine::transport::shm
