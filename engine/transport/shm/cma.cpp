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

}  // namespace

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
