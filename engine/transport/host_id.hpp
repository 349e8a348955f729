// Which machine a process runs on, as far as sharing memory goes: the same
// id means the same kernel (boot id), host name and namespaces, so /dev/shm
// names, pids and abstract socket names mean the same to both processes.
// Network-namespace "hosts" of one machine get different ids.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace tern::engine::transport {

using HostId = std::array<uint8_t, 24>;

// This process's host id (computed once).
[[nodiscard]] const HostId& local_host_id();

// This process's host name, for messages ("?" when the system will not say).
[[nodiscard]] std::string local_host_name();

}  // namespace tern::engine::transport
