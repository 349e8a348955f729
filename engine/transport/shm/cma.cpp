#include "cma.hpp"

#include <sys/uio.h>

#include <cerrno>

namespace tern::engine::transport::shm {
namespace {

template <typename Syscall>
int cma_copy(Syscall call, pid_t peer, void* local, uint64_t remote, std::size_t length) noexcept {
  auto* cursor = static_cast<char*>(local);
  while (length != 0) {
    iovec local_iov{cursor, length};
    iovec remote_iov{reinterpret_cast<void*>(remote), length};
    const ssize_t moved = call(peer, &local_iov, 1, &remote_iov, 1, 0);
    if (moved < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    // The kernel stops early at an unmapped page; no progress means it
    // would stop there again.
    if (moved == 0) return EFAULT;
    cursor += moved;
    remote += static_cast<uint64_t>(moved);
    length -= static_cast<std::size_t>(moved);
  }
  return 0;
}

template <typename Syscall>
void cma_copy_pieces(Syscall call, pid_t peer, std::span<CmaPiece> pieces) noexcept {
  if (pieces.empty()) return;
  for (CmaPiece& piece : pieces) piece.error = 0;
  iovec local_iov[kCmaBatchPieces];
  iovec remote_iov[kCmaBatchPieces];
  std::size_t batched = 0;
  std::size_t total = 0;
  if (pieces.size() > 1 && pieces.size() <= kCmaBatchPieces) {
    for (const CmaPiece& piece : pieces) {
      local_iov[batched] = {piece.local, piece.length};
      remote_iov[batched] = {reinterpret_cast<void*>(piece.remote), piece.length};
      total += piece.length;
      ++batched;
    }
  }
  std::size_t moved = 0;
  if (batched != 0) {
    const ssize_t result = call(peer, local_iov, batched, remote_iov, batched, 0);
    if (result > 0) moved = static_cast<std::size_t>(result);
    if (moved == total) return;
  }
  // Whatever the batch left, piece by piece from where it stopped.
  for (CmaPiece& piece : pieces) {
    if (moved >= piece.length) {
      moved -= piece.length;
      continue;
    }
    piece.error = cma_copy(call, peer, piece.local + moved, piece.remote + moved, piece.length - moved);
    moved = 0;
  }
}

}  // namespace

void cma_read_pieces(pid_t peer, std::span<CmaPiece> pieces) noexcept {
  cma_copy_pieces(&process_vm_readv, peer, pieces);
}

void cma_write_pieces(pid_t peer, std::span<CmaPiece> pieces) noexcept {
  cma_copy_pieces(&process_vm_writev, peer, pieces);
}

int cma_read(pid_t peer, void* local, uint64_t remote, std::size_t length) noexcept {
  return cma_copy(&process_vm_readv, peer, local, remote, length);
}

int cma_write(pid_t peer, const void* local, uint64_t remote, std::size_t length) noexcept {
  // process_vm_writev only reads the local iovec's memory.
  return cma_copy(&process_vm_writev, peer, const_cast<void*>(local), remote, length);
}

int cma_probe(pid_t peer, uint64_t address, uint64_t expected) noexcept {
  uint64_t word = 0;
  if (int error = cma_read(peer, &word, address, sizeof(word)); error != 0) return error;
  return word == expected ? 0 : EPROTO;
}

}  // namespace tern::engine::transport::shm
