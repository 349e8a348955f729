// What a peer needs to reach a TCP iface: the worker it belongs to, the host
// it runs on, the secret a connection must present, and one listening
// address per interface the iface chose (TERN_TCP_IF).
#pragma once

#include <netinet/in.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tcp_wire.hpp"
#include "transport/host_id.hpp"

namespace tern::engine::transport::tcp {

// An IPv4 interface address (network byte order) with its prefix length.
struct InterfaceAddress {
  std::string name;  // local interfaces only; not sent to peers
  uint32_t ip = 0;
  uint8_t prefix = 0;
  uint16_t port = 0;  // network byte order; 0 until listening

  [[nodiscard]] bool is_loopback() const noexcept;
  [[nodiscard]] bool same_subnet(uint32_t other_ip) const noexcept;
  [[nodiscard]] std::string to_string() const;  // "10.0.0.1:4000"
};

struct TcpAddress {
  uint64_t worker_uuid = 0;
  HostId host{};
  std::array<uint8_t, kSecretBytes> secret{};
  std::vector<InterfaceAddress> listeners;
};

inline constexpr std::size_t kMaxListeners = 32;

[[nodiscard]] std::vector<std::byte> pack_address(const TcpAddress& address);
// False for anything that is not a well-formed TCP address.
[[nodiscard]] bool unpack_address(std::span<const std::byte> bytes, TcpAddress& out);

// The interfaces TERN_TCP_IF selects, as getifaddrs reports them (up, IPv4):
// "auto" (or empty) takes every non-loopback one, or loopback when there is
// no other; otherwise a comma list of interface names and CIDR blocks
// ("eth0,10.200.0.0/24"); "none" takes nothing. False with `error` set when an
// item is malformed or the system cannot list its interfaces.
[[nodiscard]] bool select_interfaces(const std::string& spec, std::vector<InterfaceAddress>& out,
                                     std::string& error);

// Which of `remote`'s listeners to connect to from `local`: one in a subnet
// of ours first (with the local interface that shares it), then any that is
// not loopback, loopback only on the same host. False when none will do.
[[nodiscard]] bool choose_route(const std::vector<InterfaceAddress>& local, const TcpAddress& remote,
                                InterfaceAddress& to, std::string& via);

}  // namespace tern::engine::transport::tcp
