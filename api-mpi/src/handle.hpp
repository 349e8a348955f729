// Handles that outlive their object. A handle is an int that names a table
// slot in its low bits and that slot's generation above them; freeing an
// object moves its slot to the next generation, so a copy of the old handle
// names nothing, even after the slot holds a new object, and is refused as
// invalid instead of silently reaching the new one (MPI_Request_free, then
// MPI_Irecv, then MPI_Wait on the first handle's copy).
#pragma once

#include <cstdint>

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

}  // namespace tern::mpi
