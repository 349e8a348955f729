// The packed worker address: what peers exchange (through PMIx, or a test's
// bootstrap) to connect. Layout: header {magic, version, count, uuid, host
// name length}, the host name (for messages: transports decide reachability
// from their own addresses), then per transport {name length, name, address
// length, address}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tern/runtime/status.hpp"

namespace tern::engine {

struct TransportAddress {
  std::string_view name;
  std::span<const std::byte> address;
};

struct WorkerAddress {
  uint64_t uuid = 0;
  std::string_view host;  // a view into the packed bytes
  std::vector<TransportAddress> transports;  // views into the packed bytes
};

[[nodiscard]] std::vector<std::byte> pack_worker_address(uint64_t uuid, std::string_view host,
                                                         std::span<const TransportAddress> transports);
// InvalidParam when `packed` is not a well-formed address.
[[nodiscard]] Status unpack_worker_address(std::span<const std::byte> packed, WorkerAddress& out);

}  // namespace tern::engine
