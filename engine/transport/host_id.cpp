#include "host_id.hpp"

#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace tern::engine::transport {
namespace {

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

std::string local_host_name() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) return "?";
  return host;
}

}  // namespace tern::engine::transport
