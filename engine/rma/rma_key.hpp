// The packed form of an RMA key (Registration::packed_key). Internal: peers
// pass the bytes along; white-box tests read this to forge keys.
#pragma once

#include <cstdint>

namespace tern::engine::rma {

inline constexpr uint32_t kRmaKeyMagic = 0x4b414d52;  // "RMAK"
inline constexpr uint16_t kRmaKeyVersion = 1;

// Fixed size and packed: the same bytes in every process built from this
// source, on any host of the job.
struct PackedRmaKey {
  uint32_t magic;
  uint16_t version;
  uint16_t reserved;
  uint64_t owner_uuid;     // the owner's worker
  uint64_t base;           // the range in the owner's address space
  uint64_t length;
  uint64_t transport_key;  // the owner's tcp registration; 0: none
} __attribute__((packed));
static_assert(sizeof(PackedRmaKey) == 40);

}  // namespace tern::engine::rma
