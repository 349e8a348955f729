// The emulated fabric's shared state (verbs_emulated.hpp): its devices,
// their registrations and QPs, and the key and range checks every access
// to registered memory passes. Internal to the emulation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "verbs_emulated.hpp"
#include "verbs_memory_events.hpp"

namespace tern::engine::transport::verbs {

class EmulatedFabric;

namespace emulation {

class EmuQp;

struct Region {
  uintptr_t address = 0;
  std::size_t length = 0;
  uint32_t access = 0;
  uint64_t pd = 0;
  // Part of the range was unmapped or replaced since it was registered: a
  // device would go on using the pages it pinned, which the emulation
  // cannot reach, so every access fails instead of touching what is mapped
  // there now.
  bool stale = false;
};

// A posted work request that has not run yet; inline data is copied at post.
struct Queued {
  SendWr wr;
  std::vector<std::byte> inline_bytes;
  uint32_t covers = 1;  // send queue slots its completion frees
};

struct Device {
  DeviceInfo info;
  std::map<uint32_t, Region> by_lkey;
  std::map<uint32_t, Region> by_rkey;
  std::map<uint32_t, EmuQp*> qps;
};

}  // namespace emulation

class EmulatedFabric {
 public:
  using Device = emulation::Device;

  explicit EmulatedFabric(const EmulatedFabricParams& params) : params_(params) {
    for (unsigned i = 0; i < params.devices; ++i) {
      Device device;
      DeviceInfo& info = device.info;
      info.name = "emu" + std::to_string(i);
      info.node_guid = 0x7e4e000000000000ull + i + 1;
      info.link_layer = params.link_layer;
      info.lid = params.link_layer == LinkLayer::InfiniBand ? static_cast<uint16_t>(i + 1) : 0;
      info.gid[0] = 0xfe;
      info.gid[1] = 0x80;
      for (int b = 0; b < 8; ++b) info.gid[8 + b] = static_cast<uint8_t>(info.node_guid >> (56 - 8 * b));
      info.active_mtu = 4096;
      info.max_qp_wr = params.max_qp_wr;
      info.max_srq_wr = params.max_qp_wr;
      info.max_cqe = 65536;
      info.max_mr_size = UINT64_MAX;
      info.max_msg_size = 1u << 31;
      info.atomics = params.atomics;
      info.tm_max_tags = params.tm_max_tags;
      info.tm_max_ops = params.tm_max_tags != 0 ? params.tm_max_ops : 0;
      info.tm_max_sge = params.tm_max_tags != 0 ? 1 : 0;
      devices_.push_back(std::move(device));
    }
  }

  std::mutex mutex;
  [[nodiscard]] const EmulatedFabricParams& params() const noexcept { return params_; }
  [[nodiscard]] std::vector<Device>& devices() noexcept { return devices_; }
  [[nodiscard]] Device* find(const PortAddress& to) noexcept {
    for (Device& device : devices_) {
      if (to.link_layer != device.info.link_layer) continue;
      if (to.link_layer == LinkLayer::InfiniBand ? to.lid == device.info.lid : to.gid == device.info.gid) {
        return &device;
      }
    }
    return nullptr;
  }
  uint32_t next_qpn() noexcept { return next_qpn_++; }
  uint32_t next_key() noexcept { return next_key_ += 0x101; }
  uint64_t next_pd() noexcept { return ++next_pd_; }
  // With the fabric locked: marks the registrations whose memory was
  // released since the last look stale (Region::stale).
  void note_released() {
    if (!released_events_.pending()) return;
    std::vector<memory_events::Range> ranges;
    const bool complete = released_events_.read(ranges);
    for (Device& device : devices_) {
      for (auto* keys : {&device.by_lkey, &device.by_rkey}) {
        for (auto& [key, region] : *keys) {
          if (!complete) region.stale = true;
          for (const memory_events::Range& range : ranges) {
            if (region.address < range.start + range.length && range.start < region.address + region.length) {
              region.stale = true;
            }
          }
        }
      }
    }
  }
  unsigned datagrams_to_drop = 0;

 private:
  EmulatedFabricParams params_;
  std::vector<Device> devices_;
  memory_events::Reader released_events_;
  uint32_t next_qpn_ = 0x100;
  uint32_t next_key_ = 0x1000;
  uint64_t next_pd_ = 0;
};

namespace emulation {

using Fabric = std::shared_ptr<EmulatedFabric>;

// Whether [address, address + length) lies inside `region`.
inline bool inside(const Region& region, uint64_t address, uint64_t length) {
  return address >= region.address && length <= region.length && address - region.address <= region.length - length;
}

inline const Region* find_region(const std::map<uint32_t, Region>& keys, uint32_t key, uint64_t pd, uint64_t address,
                          uint64_t length, uint32_t access) {
  auto it = keys.find(key);
  if (it == keys.end() || it->second.stale || it->second.pd != pd || !inside(it->second, address, length)) {
    return nullptr;
  }
  if ((it->second.access & access) != access) return nullptr;
  return &it->second;
}

}  // namespace emulation
}  // namespace tern::engine::transport::verbs
