#include "tag/offload.hpp"

namespace tern::engine::tag {

void Offload::attach(transport::TagDevice* device, std::size_t threshold) {
  device_ = device;
  threshold_ = device != nullptr ? threshold : SIZE_MAX;
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
  entry->device_slot = -1;
  --offloaded_;
  return true;
}

ExpectedEntry* Offload::completed(uint32_t slot) noexcept {
  if (slot >= shadow_.size() || shadow_[slot] == nullptr) return nullptr;
  ExpectedEntry* entry = shadow_[slot];
  shadow_[slot] = nullptr;
  entry->device_slot = -1;
  --offloaded_;
  return entry;
}

}  // namespace tern::engine::tag
