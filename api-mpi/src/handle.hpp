// Handles that outlive their object. A handle is an int that names a table
// slot in its low bits and that slot's generation above them; freeing an
// object moves its slot to the next generation, so a copy of the old handle
// names nothing, even after the slot holds a new object, and is refused as
// invalid instead of silently reaching the new one (MPI_Request_free, then
// MPI_Irecv, then MPI_Wait on the first handle's copy).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace tern::mpi {

template <int kSlotBits>
struct GenerationalHandle {
  static_assert(kSlotBits > 0 && kSlotBits < 31);
  static constexpr int kSlotMask = (1 << kSlotBits) - 1;
  static constexpr uint32_t kGenerationMask = (uint32_t{1} << (31 - kSlotBits)) - 1;

  // Handles stay positive: the generation never reaches the sign bit.
  [[nodiscard]] static constexpr int make(int slot, uint32_t generation) noexcept {
    return slot | static_cast<int>((generation & kGenerationMask) << kSlotBits);
  }
  [[nodiscard]] static constexpr int slot(int handle) noexcept { return handle & kSlotMask; }
  // A negative handle has a generation no slot ever holds.
  [[nodiscard]] static constexpr uint32_t generation(int handle) noexcept {
    return static_cast<uint32_t>(handle) >> kSlotBits;
  }
  [[nodiscard]] static constexpr uint32_t next(uint32_t generation) noexcept {
    return (generation + 1) & kGenerationMask;
  }
  // Whether `handle` is the handle of `slot` in `generation`.
  [[nodiscard]] static constexpr bool names(int handle, int slot, uint32_t generation) noexcept {
    return handle >= 0 && handle == make(slot, generation);
  }
};

// Objects behind generational handles, under one lock (handles may be used
// from any thread). Slot 0 is never used: handle 0 is each kind's null.
template <typename T, int kSlotBits>
class HandleTable {
 public:
  using Handle = GenerationalHandle<kSlotBits>;
  static constexpr int kCapacity = 1 << kSlotBits;

  // Takes `object` into a free slot and returns its handle; 0 when the table
  // is full, `object` then staying with the caller.
  int add(std::unique_ptr<T>& object) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int slot = 1; slot < kCapacity; ++slot) {
      if (objects_[slot] != nullptr) continue;
      objects_[slot] = std::move(object);
      lookup_[slot].store(objects_[slot].get(), std::memory_order_release);
      return Handle::make(slot, generations_[slot].load(std::memory_order_relaxed));
    }
    return 0;
  }
  // Destroys the object `handle` names; the handle and its copies name nothing from now on.
  void remove(int handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int slot = Handle::slot(handle);
    lookup_[slot].store(nullptr, std::memory_order_relaxed);
    generations_[slot].store(Handle::next(generations_[slot].load(std::memory_order_relaxed)),
                             std::memory_order_release);
    objects_[slot].reset();
  }
  // The handle `object` has now; 0 when it is not in the table. A scan: for
  // error paths, which hand user error handlers the handle.
  [[nodiscard]] int handle_of(const T* object) const noexcept {
    for (int slot = 1; slot < kCapacity; ++slot) {
      if (object != nullptr && lookup_[slot].load(std::memory_order_acquire) == object) {
        return Handle::make(slot, generations_[slot].load(std::memory_order_acquire));
      }
    }
    return 0;
  }
  // Without the lock: a lookup is on the path of calls as short as one
  // MPI_Put. Using a handle while another thread frees it is erroneous in
  // MPI, so only stale handles need refusing, which the generation does.
  [[nodiscard]] T* find(int handle) const noexcept {
    const int slot = Handle::slot(handle);
    if (slot == 0 || !Handle::names(handle, slot, generations_[slot].load(std::memory_order_acquire))) {
      return nullptr;
    }
    return lookup_[slot].load(std::memory_order_acquire);
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<T> objects_[kCapacity];
  std::atomic<T*> lookup_[kCapacity] = {};
  std::atomic<uint32_t> generations_[kCapacity] = {};
};

}  // namespace tern::mpi
