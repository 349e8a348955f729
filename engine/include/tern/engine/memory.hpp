// Memory shared with peers for one-sided access (the ucp_mem_map / rkey model
// of the seeds). A process maps a region, packs a key for it, and hands the
// key to its peers (through the bootstrap); a peer unpacks it and asks for a
// local pointer: on the same node that is the region mapped into the peer's
// address space, so puts, gets and atomics are plain loads, stores and CPU
// atomics. Where no pointer can be had (another node, no permission), the
// caller learns it at unpack time rather than on first access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tern/runtime/status.hpp"

namespace tern::engine {

enum MemMapFlags : unsigned {
  // New shareable memory of `length` bytes; `address` is ignored. Sparse:
  // pages exist once touched, so a large region costs only what is used.
  kMemAllocate = 1u << 0,
  // Make the existing private memory [address, address + length) shareable
  // in place: same addresses, same contents, read-write. Both must be page
  // aligned, and the range in private writable mappings off the stack. For
  // a program's static data, which peers then reach by offset, or the
  // memory of an MPI window. Nothing else may write the range while this
  // runs (another thread, or a peer filling a receive posted in it).
  kMemShareExisting = 1u << 1,
};

struct MemMapParams {
  void* address = nullptr;
  std::size_t length = 0;
  unsigned flags = kMemAllocate;
  // kMemAllocate: the base's alignment, a power of two up to 1 TiB (0 or
  // anything up to the page size: page aligned). It costs address space
  // only: as much again is reserved while mapping, then given back.
  std::size_t alignment = 0;
};

// A region of this process's memory that peers may map. Owned by the caller
// of mem_map; give it back with mem_unmap.
class MemRegion {
 public:
  MemRegion(const MemRegion&) = delete;
  MemRegion& operator=(const MemRegion&) = delete;

  [[nodiscard]] void* base() const noexcept { return base_; }
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  // The key peers unpack to reach this region.
  [[nodiscard]] const std::vector<std::byte>& packed_key() const noexcept { return packed_key_; }

  // Maps a region as MemMapParams says. InvalidParam for a zero length,
  // unaligned or unmapped kMemShareExisting ranges or unknown flags (exactly
  // one of kMemAllocate and kMemShareExisting must be set); Unsupported for
  // a kMemShareExisting range in shared, read-only or stack pages; NoMemory or
  // IoError (logged with the system call's reason) when the system refuses.
  [[nodiscard]] static Status map(const MemMapParams& params, MemRegion*& region);
  // Unmaps a kMemAllocate region; a shared-in-place region stays mapped
  // (its addresses still hold the program's data) and only the handle goes.
  static void unmap(MemRegion* region) noexcept;
  // As unmap, but a shared-in-place region first gets private pages again
  // with the same contents (as a fork would expect of it), unless the system
  // refuses the memory for the copy (it then stays shared). Nothing else may
  // write the range while this runs, and peers must no longer reach it.
  static void unshare(MemRegion* region) noexcept;

 private:
  MemRegion() = default;
  ~MemRegion() = default;

  void* base_ = nullptr;
  std::size_t length_ = 0;
  int fd_ = -1;
  bool owns_mapping_ = false;
  std::vector<std::byte> packed_key_;
};

// A peer's region, unpacked from its key.
class RemoteKey {
 public:
  RemoteKey(const RemoteKey&) = delete;
  RemoteKey& operator=(const RemoteKey&) = delete;

  // Unpacks a key from MemRegion::packed_key() of another process (or this
  // one). InvalidParam when the bytes are not a key. Unreachable (with a log
  // line saying why) when the region cannot be mapped here: another node, or
  // the system refusing access to the peer's memory.
  [[nodiscard]] static Status unpack(std::span<const std::byte> packed, RemoteKey*& key);
  static void destroy(RemoteKey* key) noexcept;

  // The peer's region as the peer sees it.
  [[nodiscard]] uint64_t remote_base() const noexcept { return remote_base_; }
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  // Where the peer's region is mapped in this process.
  [[nodiscard]] std::byte* local_base() const noexcept { return local_base_; }
  // A local pointer to the peer's `remote_address`, or null when the range
  // [remote_address, remote_address + bytes) is not inside the region.
  [[nodiscard]] void* ptr(uint64_t remote_address, std::size_t bytes = 1) const noexcept {
    if (remote_address < remote_base_ || remote_address - remote_base_ > length_ ||
        bytes > length_ - (remote_address - remote_base_)) {
      return nullptr;
    }
    return local_base_ + (remote_address - remote_base_);
  }

 private:
  RemoteKey() = default;
  ~RemoteKey() = default;

  uint64_t remote_base_ = 0;
  std::size_t length_ = 0;
  std::byte* local_base_ = nullptr;
  bool owns_mapping_ = false;  // false when the key is this process's own
};

}  // namespace tern::engine
