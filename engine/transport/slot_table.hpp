// Objects named by a 64-bit id that a peer echoes back (a get in flight, a
// registered region, a send waiting for its acknowledgement): the id is
// {generation, index + 1}, so an id from a confused, stale or hostile peer
// finds nothing instead of something else, in O(1), and no lookup trusts a
// pointer from the wire. Id 0 is never given out. Storage grows only past
// the most entries ever held at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tern::engine::transport {

template <typename T>
class SlotTable {
 public:
  [[nodiscard]] uint64_t add(const T& value) {
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<uint32_t>(slots_.size());
      slots_.push_back({});
      // So that remove(), which is noexcept, never allocates.
      free_.reserve(slots_.capacity());
    }
    Slot& slot = slots_[index];
    slot.value = value;
    slot.used = true;
    ++slot.generation;
    ++used_;
    return (uint64_t{slot.generation} << 32) | (uint64_t{index} + 1);
  }

  // Null when `id` names nothing (never given out, removed, or reused since).
  [[nodiscard]] T* find(uint64_t id) noexcept {
    const uint64_t index_plus_one = id & 0xffffffffu;
    if (index_plus_one == 0 || index_plus_one > slots_.size()) return nullptr;
    Slot& slot = slots_[index_plus_one - 1];
    if (!slot.used || slot.generation != static_cast<uint32_t>(id >> 32)) return nullptr;
    return &slot.value;
  }

  void remove(uint64_t id) noexcept {
    if (find(id) == nullptr) return;
    const auto index = static_cast<uint32_t>((id & 0xffffffffu) - 1);
    slots_[index].used = false;
    slots_[index].value = T{};
    free_.push_back(index);
    --used_;
  }

  [[nodiscard]] std::size_t size() const noexcept { return used_; }

  // Calls fn(id, value) for every entry; fn may remove the entry it is given.
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].used) fn((uint64_t{slots_[i].generation} << 32) | (i + 1), slots_[i].value);
    }
  }

 private:
  struct Slot {
    T value{};
    uint32_t generation = 0;
    bool used = false;
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::size_t used_ = 0;
};

}  // namespace tern::engine::transport
