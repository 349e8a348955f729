#include "shm_address.hpp"

#include <limits.h>
#include <unistd.h>

#include <cstdio>
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

uint64_t fnv1a(uint64_t hash, const void* data, std::size_t length) noexcept {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < length; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

HostId compute_host_id() {
  HostId id{};
  // The boot id names this kernel instance.
  if (std::FILE* file = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char text[64] = {};
    const std::size_t got = std::fread(text, 1, sizeof(text) - 1, file);
    std::fclose(file);
    std::size_t nibble = 0;
    for (std::size_t i = 0; i < got && nibble < 32; ++i) {
      const int v = hex_value(text[i]);
      if (v < 0) continue;
      id[nibble / 2] = static_cast<uint8_t>(id[nibble / 2] | (nibble % 2 == 0 ? v << 4 : v));
      ++nibble;
    }
  }
  // Containers on one kernel see different /dev/shm, pids and abstract
  // sockets when their namespaces differ; host name and namespace ids tell.
  uint64_t hash = 0xcbf29ce484222325ULL;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) hash = fnv1a(hash, host, std::strlen(host));
  for (const char* ns : {"/proc/self/ns/ipc", "/proc/self/ns/mnt", "/proc/self/ns/net", "/proc/self/ns/pid"}) {
    char link[128] = {};
    const ssize_t length = readlink(ns, link, sizeof(link) - 1);
    if (length > 0) hash = fnv1a(hash, link, static_cast<std::size_t>(length));
  }
  std::memcpy(id.data() + 16, &hash, sizeof(hash));
  return id;
}

}  // namespace

const HostId& local_host_id() {
  static const HostId id = compute_host_id();
  return id;
}

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
