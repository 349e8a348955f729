// Whole-buffer reads and writes on a pipe (a process and the child it
// started: the progress agent and its starter, tests): false when the other
// side is gone (end of file or error).
#pragma once

#include <unistd.h>

#include <cstddef>

namespace tern::runtime {

inline bool write_all(int fd, const void* data, std::size_t length) {
  const auto* bytes = static_cast<const char*>(data);
  while (length != 0) {
    const ssize_t n = write(fd, bytes, length);
    if (n <= 0) return false;
    bytes += n;
    length -= static_cast<std::size_t>(n);
  }
  return true;
}

inline bool read_all(int fd, void* data, std::size_t length) {
  auto* bytes = static_cast<char*>(data);
  while (length != 0) {
    const ssize_t n = read(fd, bytes, length);
    if (n <= 0) return false;
    bytes += n;
    length -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace tern::runtime
