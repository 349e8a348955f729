// The packed form of a memory key (MemRegion::packed_key). Internal: peers
// only pass the bytes along; white-box tests read this to forge keys.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/shm/shm_address.hpp"

namespace tern::engine {

inline constexpr uint32_t kMemKeyMagic = 0x594b4d54;  // "TMKY"
inline constexpr uint16_t kMemKeyVersion = 1;

// Fixed size and packed, so a key means the same bytes in every process
// built from this source; peers on one node share the ABI.
struct PackedMemKey {
  uint32_t magic;
  uint16_t version;
  uint16_t reserved;
  // The owner's kernel and namespaces: /proc/<pid>/fd/<fd> names the owner's
  // memfd only where this matches.
  transport::shm::HostId node;
  int32_t pid;
  int32_t fd;
  uint64_t base;
  uint64_t length;
} __attribute__((packed));
static_assert(sizeof(PackedMemKey) == 56);

}  // namespace tern::engine
