#include "tag/offload.hpp"

#include <algorithm>

namespace tern::engine::tag {

void Offload::attach(transport::TagDevice* device, std::size_t threshold, std::size_t mapped_threshold) {
  device_ = device;
  threshold_ = device != nullptr ? threshold : SIZE_MAX;
  mapped_threshold_ = device != nullptr ? std::min(mapped_threshold, threshold) : SIZE_MAX;
  shadow_.assign(device != nullptr ? device->capacity() : 0, nullptr);
}

bool Offload::give(ExpectedEntry* entry, void* buffer, std::size_t length) noexcept {
  const int slot = device_->post(entry->tag, entry->mask, buffer, length);
  if (slot < 0 || static_cast<std::size_t>(slot) >= shadow_.size()) return false;
  entry->device_slot = slot;
  shadow_[static_cast<std::size_t>(slot)] = entry;
  ++offloaded_;
  return true;
}

bool Offload::take_back(ExpectedEntry* entry) noexcept {
  const auto slot = static_cast<uint32_t>(entry->device_slot);
  if (!device_->take_back(slot)) return false;
  shadow_[slot] = nullptr;
  entry->device_slot = kUntracked;
  --offloaded_;
  return true;
}

bool Offload::overlaps_software(const ExpectedEntry* entry) const noexcept {
  for (std::size_t i = 0; i < tracked_; ++i) {
    const ExpectedEntry* other = software_[i];
    if (((entry->tag ^ other->tag) & entry->mask & other->mask) == 0) return true;
  }
  return false;
}

void Offload::keep_in_software(ExpectedEntry* entry) noexcept {
  if (tracked_ == kTrackedSoftware) {
    entry->device_slot = kUntracked;
    ++untracked_;
    return;
  }
  entry->device_slot = kTrackedBase - static_cast<int32_t>(tracked_);
  software_[tracked_++] = entry;
}

void Offload::forget_software(ExpectedEntry* entry) noexcept {
  const auto index = static_cast<std::size_t>(kTrackedBase - entry->device_slot);
  ExpectedEntry* last = software_[--tracked_];
  software_[index] = last;
  last->device_slot = kTrackedBase - static_cast<int32_t>(index);
  software_[tracked_] = nullptr;
  entry->device_slot = kUntracked;
}

ExpectedEntry* Offload::completed(uint32_t slot) noexcept {
  if (slot >= shadow_.size() || shadow_[slot] == nullptr) return nullptr;
  ExpectedEntry* entry = shadow_[slot];
  shadow_[slot] = nullptr;
  entry->device_slot = kUntracked;
  --offloaded_;
  return entry;
}

}  // namespace tern::engine::tag
