#include "shm_address.hpp"

#include <cstring>
#include <utility>

namespace tern::engine::transport::shm {
namespace {

constexpr uint32_t kAddressMagic = 0x4d485354;  // "TSHM"
constexpr uint16_t kAddressVersion = 2;
constexpr std::size_t kMaxNameLength = 100;  // fits sun_path with room to spare

struct FixedPart {
  uint32_t magic;
  uint16_t version;
  uint16_t name_length;
  HostId host;
  int32_t pid;
  uint32_t cells;
  uint32_t cell_size;
  int32_t arena_fd;
  uint64_t arena_base;
  uint64_t arena_capacity;
} __attribute__((packed));
static_assert(sizeof(FixedPart) == 64);

}  // namespace

bool valid_segment_name(const std::string& name) noexcept {
  if (name.size() < 2 || name.size() > kMaxNameLength || name[0] != '/') return false;
  for (std::size_t i = 1; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

std::vector<std::byte> pack_address(const ShmAddress& address) {
  FixedPart fixed{};
  fixed.magic = kAddressMagic;
  fixed.version = kAddressVersion;
  fixed.name_length = static_cast<uint16_t>(address.segment_name.size());
  fixed.host = address.host;
  fixed.pid = static_cast<int32_t>(address.pid);
  fixed.cells = address.geometry.cells;
  fixed.cell_size = address.geometry.cell_size;
  fixed.arena_fd = address.arena_fd;
  fixed.arena_base = address.arena_base;
  fixed.arena_capacity = address.arena_capacity;
  std::vector<std::byte> bytes(sizeof(fixed) + address.segment_name.size());
  std::memcpy(bytes.data(), &fixed, sizeof(fixed));
  std::memcpy(bytes.data() + sizeof(fixed), address.segment_name.data(), address.segment_name.size());
  return bytes;
}

bool unpack_address(std::span<const std::byte> bytes, ShmAddress& out) {
  FixedPart fixed{};
  if (bytes.size() < sizeof(fixed)) return false;
  std::memcpy(&fixed, bytes.data(), sizeof(fixed));
  if (fixed.magic != kAddressMagic || fixed.version != kAddressVersion) return false;
  if (bytes.size() != sizeof(fixed) + fixed.name_length || fixed.pid <= 0) return false;
  ShmAddress address;
  address.host = fixed.host;
  address.pid = static_cast<pid_t>(fixed.pid);
  address.geometry.cells = fixed.cells;
  address.geometry.cell_size = fixed.cell_size;
  address.arena_fd = fixed.arena_fd;
  address.arena_base = fixed.arena_base;
  address.arena_capacity = fixed.arena_capacity;
  address.segment_name.assign(reinterpret_cast<const char*>(bytes.data() + sizeof(fixed)), fixed.name_length);
  if (!address.geometry.valid() || !valid_segment_name(address.segment_name)) return false;
  out = std::move(address);
  return true;
}

}  // namespace tern::engine::transport::shm
