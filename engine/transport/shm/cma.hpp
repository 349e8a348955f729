// Cross-memory attach: copies between this process and a peer's memory with
// one system call each way (process_vm_readv / process_vm_writev).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace tern::engine::transport::shm {

// Copy `length` bytes from the peer's `remote` to `local` / from `local` to
// the peer's `remote`, retrying partial transfers. Return 0 or an errno.
[[nodiscard]] int cma_read(pid_t peer, void* local, uint64_t remote, std::size_t length) noexcept;
[[nodiscard]] int cma_write(pid_t peer, const void* local, uint64_t remote, std::size_t length) noexcept;

// Several copies with the same peer in one system call. A call costs about
// as much as copying 16-32 KiB before it moves a byte (measured 2 us for
// 4 KiB on a 2-core VM), so a stream of mid-size rendezvous messages spends
// less per message when each side moves the chunks of several in one call.
// Bounded so that a batch stays in the L2 cache of the copying core: four
// 64 KiB pieces cost 2.8 us each against 4.6 alone, eight 128 KiB pieces
// more than one alone.
inline constexpr std::size_t kCmaBatchPieces = 8;
inline constexpr std::size_t kCmaBatchBytes = std::size_t{256} << 10;

struct CmaPiece {
  std::byte* local = nullptr;
  uint64_t remote = 0;
  std::size_t length = 0;
  int error = 0;  // set by the copy: 0 or an errno
};

// Moves every piece, with one system call while the kernel moves all it is
// given; a piece it stopped in, and those after it, are retried one by one,
// so that each failure lands in its own piece.
void cma_read_pieces(pid_t peer, std::span<CmaPiece> pieces) noexcept;
void cma_write_pieces(pid_t peer, std::span<CmaPiece> pieces) noexcept;

// Reads the 8-byte word at the peer's `address` and compares it with
// `expected`: 0 when CMA works with this peer, else why not (an errno;
// EPROTO when the word differs).
[[nodiscard]] int cma_probe(pid_t peer, uint64_t address, uint64_t expected) noexcept;

}  // namespace tern::engine::transport::shm
