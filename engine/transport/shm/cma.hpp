// Cross-memory attach: copies between this process and a peer's memory with
// one system call each way (process_vm_readv / process_vm_writev).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace tern::engine::transport::shm {

// Copy `length` bytes from the peer's `remote` to `local` / from `local` to
// the peer's `remote`, retrying partial transfers. Return 0 or an errno.
[[nodiscard]] int cma_read(pid_t peer, void* local, uint64_t remote, std::size_t length) noexcept;
[[nodiscard]] int cma_write(pid_t peer, const void* local, uint64_t remote, std::size_t length) noexcept;

// Reads the 8-byte word at the peer's `address` and compares it with
// `expected`: 0 when CMA works with this peer, else why not (an errno;
// EPROTO when the word differs).
[[nodiscard]] int cma_probe(pid_t peer, uint64_t address, uint64_t expected) noexcept;

}  // namespace tern::engine::transport::shm
