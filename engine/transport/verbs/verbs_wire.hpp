// What verbs peers exchange outside the RC queue pairs: the iface address
// (published through the worker address exchange) and the datagrams of the
// connection service (sent on each iface's UD queue pair).
//
// Both are input: unpack checks magic, version, length, link layer and
// that every QPN is a 24-bit number, and the service checks the secret.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

inline constexpr std::size_t kSecretBytes = 16;
using Secret = std::array<uint8_t, kSecretBytes>;

struct VerbsAddress {
  uint64_t worker_uuid = 0;
  PortAddress port;
  uint32_t ud_qpn = 0;
  uint32_t mtu = 0;
  // Non-zero for an emulated device: its fabric lives in that process only.
  uint32_t emulated_pid = 0;
  Secret secret{};
  bool tag_matching = false;  // its SRQ matches tags: messages to it carry a tag-matching header
};

[[nodiscard]] std::vector<std::byte> pack_address(const VerbsAddress& address);
// False for anything that is not a well-formed verbs address.
[[nodiscard]] bool unpack_address(std::span<const std::byte> bytes, VerbsAddress& out);

enum class WireupType : uint8_t { Request = 1, Reply = 2 };

// Request: "connect your QP for me to my `rc_qpn`" (`secret` is the
// target's, from its address; `nonce` the requester's, echoed back).
// Reply: "my QP `rc_qpn` is connected to your `peer_qpn`" (`secret` is the
// requester's nonce).
struct WireupMessage {
  WireupType type = WireupType::Request;
  uint64_t sender_uuid = 0;
  uint64_t target_uuid = 0;
  Secret secret{};
  Secret nonce{};
  uint32_t rc_qpn = 0;
  uint32_t psn = 0;
  uint32_t peer_qpn = 0;
  uint32_t ud_qpn = 0;  // where to answer
  uint32_t mtu = 0;
  PortAddress port;
  bool tag_matching = false;  // the sender's SRQ matches tags (VerbsAddress::tag_matching)
  // The sender's word for this connection, where a TM receiver writes how
  // many of the sender's ordinary messages it has handled (0: none).
  uint64_t handled_address = 0;
  uint32_t handled_rkey = 0;
};

inline constexpr std::size_t kWireupBytes = 4 + 1 + 1 + 8 + 8 + 16 + 16 + 5 * 4 + 1 + 2 + 16 + 1 + 8 + 4;

void pack_wireup(const WireupMessage& message, std::byte (&out)[kWireupBytes]);
[[nodiscard]] bool unpack_wireup(std::span<const std::byte> bytes, WireupMessage& out);

// Whether `mine` can reach `theirs` (same link layer, a LID or GID to use).
[[nodiscard]] bool port_reaches(const PortAddress& mine, const PortAddress& theirs) noexcept;

}  // namespace tern::engine::transport::verbs
