// Buffers for served windows' batches and joint replies (protocol.hpp),
// kept for reuse by all windows of the process.
//
// Why not malloc and free each time: a window of operations allocates a
// batch or a joint reply of up to 36 KiB per message and frees them all
// at its flush. Under a launcher that leaves glibc's trim threshold at its
// default (128 KiB), the top of the heap then went back to the kernel at
// every flush and was faulted in again: across two emulated hosts,
// osu_get_bw at 16 KiB fell from 2.1 GB/s to 0.3 (engine/core/
// payload_cache.hpp met the same in the engine).
#pragma once

#include <cstddef>

#include "win/protocol.hpp"

namespace tern::mpi {

// Sizes from kPooledFrom to kPooledBytes come from the pool (each a block of
// kPooledBytes); other sizes from malloc.
inline constexpr std::size_t kPooledBytes = kBatchBytes;
inline constexpr std::size_t kPooledFrom = 4096;

// At least `bytes` bytes (bytes > 0); null when memory runs out.
[[nodiscard]] std::byte* temp_get(std::size_t bytes) noexcept;
// Gives back what temp_get(bytes) returned, with the same `bytes` (null: nothing).
void temp_release(void* buffer, std::size_t bytes) noexcept;

}  // namespace tern::mpi
