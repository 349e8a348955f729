// What a peer needs to reach a shm iface: the machine (really: the kernel and
// namespaces) it lives on, its process, its segment and the FIFO geometry.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "transport/fifo.hpp"
#include "transport/host_id.hpp"

namespace tern::engine::transport::shm {

using transport::HostId;
using transport::local_host_id;

struct ShmAddress {
  HostId host{};
  pid_t pid = 0;
  FifoGeometry geometry;
  std::string segment_name;  // "/tern-..."
  // The owner's shared arena (capacity 0: none), which peers map through
  // /proc/<pid>/fd/<arena_fd>.
  int32_t arena_fd = -1;
  uint64_t arena_base = 0;
  uint64_t arena_capacity = 0;
};

[[nodiscard]] std::vector<std::byte> pack_address(const ShmAddress& address);
// False for anything that is not a well-formed shm address.
[[nodiscard]] bool unpack_address(std::span<const std::byte> bytes, ShmAddress& out);

// A name usable for shm_open and, after its slash, as an abstract socket name.
[[nodiscard]] bool valid_segment_name(const std::string& name) noexcept;

}  // namespace tern::engine::transport::shm
