#include "tcp_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace tern::engine::transport::tcp {
namespace {

constexpr uint32_t kAddressMagic = 0x41505454;  // "TTPA"
constexpr uint16_t kAddressVersion = 1;

struct FixedPart {
  uint32_t magic;
  uint16_t version;
  uint16_t count;
  uint64_t worker_uuid;
  HostId host;
  uint8_t secret[kSecretBytes];
} __attribute__((packed));
static_assert(sizeof(FixedPart) == 56);

struct PackedListener {
  uint32_t ip;
  uint16_t port;
  uint8_t prefix;
  uint8_t reserved;
} __attribute__((packed));
static_assert(sizeof(PackedListener) == 8);

uint32_t mask_of(uint8_t prefix) noexcept {
  return prefix == 0 ? 0 : htonl(~uint32_t{0} << (32 - prefix));
}

bool parse_cidr(std::string_view text, uint32_t& ip, uint8_t& prefix) {
  const auto slash = text.find('/');
  std::string host(text.substr(0, slash));
  in_addr parsed{};
  if (inet_pton(AF_INET, host.c_str(), &parsed) != 1) return false;
  ip = parsed.s_addr;
  prefix = 32;
  if (slash == std::string_view::npos) return true;
  std::string_view bits = text.substr(slash + 1);
  if (bits.empty() || bits.size() > 2) return false;
  unsigned value = 0;
  for (char c : bits) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 32) return false;
  prefix = static_cast<uint8_t>(value);
  return true;
}

uint8_t prefix_of(const sockaddr* netmask) noexcept {
  if (netmask == nullptr || netmask->sa_family != AF_INET) return 32;
  const uint32_t mask = ntohl(reinterpret_cast<const sockaddr_in*>(netmask)->sin_addr.s_addr);
  return static_cast<uint8_t>(__builtin_popcount(mask));
}

}  // namespace

bool InterfaceAddress::is_loopback() const noexcept { return (ntohl(ip) >> 24) == 127; }

bool InterfaceAddress::same_subnet(uint32_t other_ip) const noexcept {
  const uint32_t mask = mask_of(prefix);
  return (ip & mask) == (other_ip & mask);
}

std::string InterfaceAddress::to_string() const {
  char text[INET_ADDRSTRLEN] = {};
  in_addr addr{};
  addr.s_addr = ip;
  inet_ntop(AF_INET, &addr, text, sizeof(text));
  return std::string(text) + ":" + std::to_string(ntohs(port));
}

std::vector<std::byte> pack_address(const TcpAddress& address) {
  FixedPart fixed{};
  fixed.magic = kAddressMagic;
  fixed.version = kAddressVersion;
  fixed.count = static_cast<uint16_t>(address.listeners.size());
  fixed.worker_uuid = address.worker_uuid;
  fixed.host = address.host;
  std::memcpy(fixed.secret, address.secret.data(), kSecretBytes);
  std::vector<std::byte> bytes(sizeof(fixed) + address.listeners.size() * sizeof(PackedListener));
  std::memcpy(bytes.data(), &fixed, sizeof(fixed));
  std::byte* at = bytes.data() + sizeof(fixed);
  for (const InterfaceAddress& listener : address.listeners) {
    const PackedListener packed{listener.ip, listener.port, listener.prefix, 0};
    std::memcpy(at, &packed, sizeof(packed));
    at += sizeof(packed);
  }
  return bytes;
}

bool unpack_address(std::span<const std::byte> bytes, TcpAddress& out) {
  FixedPart fixed{};
  if (bytes.size() < sizeof(fixed)) return false;
  std::memcpy(&fixed, bytes.data(), sizeof(fixed));
  if (fixed.magic != kAddressMagic || fixed.version != kAddressVersion) return false;
  if (fixed.count == 0 || fixed.count > kMaxListeners) return false;
  if (bytes.size() != sizeof(fixed) + fixed.count * sizeof(PackedListener)) return false;
  TcpAddress address;
  address.worker_uuid = fixed.worker_uuid;
  address.host = fixed.host;
  std::memcpy(address.secret.data(), fixed.secret, kSecretBytes);
  for (unsigned i = 0; i < fixed.count; ++i) {
    PackedListener packed{};
    std::memcpy(&packed, bytes.data() + sizeof(fixed) + i * sizeof(packed), sizeof(packed));
    if (packed.port == 0 || packed.prefix > 32 || packed.ip == 0) return false;
    InterfaceAddress listener;
    listener.ip = packed.ip;
    listener.port = packed.port;
    listener.prefix = packed.prefix;
    address.listeners.push_back(listener);
  }
  out = std::move(address);
  return true;
}

bool select_interfaces(const std::string& spec, std::vector<InterfaceAddress>& out, std::string& error) {
  out.clear();
  if (spec == "none") return true;
  struct Wanted {
    std::string name;
    uint32_t ip = 0;
    uint8_t prefix = 0;
    bool is_cidr = false;
  };
  std::vector<Wanted> wanted;
  const bool automatic = spec.empty() || spec == "auto";
  if (!automatic) {
    std::string_view rest(spec);
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (item.empty() || item.size() >= IFNAMSIZ + 4) {
        error = "TERN_TCP_IF: empty or overlong item in '" + spec + "'";
        return false;
      }
      Wanted w;
      if (item.find_first_of("./") != std::string_view::npos || (item[0] >= '0' && item[0] <= '9')) {
        if (!parse_cidr(item, w.ip, w.prefix)) {
          error = "TERN_TCP_IF: '" + std::string(item) + "' is neither an interface name nor an IPv4 CIDR block";
          return false;
        }
        w.is_cidr = true;
      } else {
        w.name = std::string(item);
      }
      wanted.push_back(std::move(w));
    }
  }

  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    error = std::string("getifaddrs: ") + std::strerror(errno);
    return false;
  }
  std::vector<InterfaceAddress> loopback;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    if ((entry->ifa_flags & IFF_UP) == 0) continue;
    InterfaceAddress candidate;
    candidate.name = entry->ifa_name;
    candidate.ip = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr.s_addr;
    candidate.prefix = prefix_of(entry->ifa_netmask);
    const bool is_loop = (entry->ifa_flags & IFF_LOOPBACK) != 0 || candidate.is_loopback();
    bool take = false;
    if (automatic) {
      take = !is_loop;
      if (is_loop) loopback.push_back(candidate);
    } else {
      for (const Wanted& w : wanted) {
        if (w.is_cidr) {
          InterfaceAddress block;
          block.ip = w.ip;
          block.prefix = w.prefix;
          take = take || block.same_subnet(candidate.ip);
        } else {
          take = take || w.name == candidate.name;
        }
      }
    }
    if (take && out.size() < kMaxListeners) out.push_back(candidate);
  }
  freeifaddrs(list);
  if (automatic && out.empty() && !loopback.empty()) out.push_back(loopback.front());
  if (out.empty() && !automatic) {
    error = "TERN_TCP_IF='" + spec + "' matches no interface that is up with an IPv4 address";
    return false;
  }
  return true;
}

bool choose_route(const std::vector<InterfaceAddress>& local, const TcpAddress& remote, InterfaceAddress& to,
                  std::string& via) {
  const bool same_host = remote.host == local_host_id();
  for (const InterfaceAddress& theirs : remote.listeners) {
    for (const InterfaceAddress& ours : local) {
      if (theirs.is_loopback() != ours.is_loopback()) continue;
      if (theirs.is_loopback() && !same_host) continue;
      if (ours.same_subnet(theirs.ip)) {
        to = theirs;
        via = ours.name;
        return true;
      }
    }
  }
  // No shared subnet: the first routable listener, through whatever route
  // the kernel picks.
  if (local.empty()) return false;
  for (const InterfaceAddress& theirs : remote.listeners) {
    if (theirs.is_loopback() && !same_host) continue;
    if (!theirs.is_loopback() && local.front().is_loopback()) continue;
    to = theirs;
    via = local.front().name;
    return true;
  }
  return false;
}

}  // namespace tern::engine::transport::tcp
