// Reading the headers of arriving active messages.
#pragma once

#include <cstddef>
#include <cstring>

#include "tern/runtime/compiler.hpp"

namespace tern::engine::proto {

// The header of a message of `length` bytes, copied out once: the bytes
// may lie in memory the peer can still write. False when the message is
// too short to hold one.
template <typename Header>
[[nodiscard]] bool read_header(const void* data, std::size_t length, Header& header) {
  if (TERN_UNLIKELY(length < sizeof(Header))) return false;
  std::memcpy(&header, data, sizeof(header));
  return true;
}

}  // namespace tern::engine::proto
