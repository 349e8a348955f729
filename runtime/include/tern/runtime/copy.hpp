// Large copies between two addresses of this process (a peer's memory
// mapped here included).
#pragma once

#include <cstddef>
#include <cstring>

#include "tern/runtime/compiler.hpp"

namespace tern::runtime {

// glibc's memcpy copies with `rep movsb` up to a size it derives from the
// cache (the L2 size on AMD), and with a vector loop above it. On the AMD
// EPYC VM this was measured on, the vector loop is 15-20% slower for 1 MiB
// (21.6-21.9 us against 18.1-18.8 one process, 21.5-24.7 against 17.5-19.2
// for an OpenSHMEM put into a peer's heap), so a large copy goes as pieces
// that each stay below that switch. Short pieces also made a 512 KiB put
// run at its fast speed more often (one `rep movsb` that long ran at 10-15
// us instead of 6 in 5 alternating runs of 11, 64 KiB pieces in 1 of 11),
// but cut a 256 KiB put into four made it slower in 3 runs of 6 (2.7-3.5 us
// against 2.3), so copies up to kCopyWhole go in one call. Where glibc keeps
// `rep movsb` longer (Intel: up to most of the L3), the pieces cost one call
// per 64 KiB.
//
// Successive large copies on a thread take their pieces in opposite orders.
// Source and destination of a 512 KiB copy fill the 1 MiB L2; copied over
// and over in one order, each line is evicted just before it is used again.
// Turning round starts with the pieces still cached. A PE copying into its
// peer's heap, one order against alternating: 512 KiB 5.5-6.6 -> 5.0-5.8
// us, 1 MiB 17.9-18.9 -> 15.1-15.4 us.
inline constexpr std::size_t kCopyWhole = std::size_t{256} << 10;
inline constexpr std::size_t kCopyPiece = std::size_t{64} << 10;

inline void copy_bytes(void* dest, const void* source, std::size_t bytes) noexcept {
  if (TERN_LIKELY(bytes <= kCopyWhole)) {
    if (bytes != 0) std::memcpy(dest, source, bytes);
    return;
  }
  auto* to = static_cast<std::byte*>(dest);
  const auto* from = static_cast<const std::byte*>(source);
  static thread_local bool downwards __attribute__((tls_model("initial-exec"))) = false;
  downwards = !downwards;
  if (downwards) {
    std::size_t end = bytes;
    while (end != 0) {
      const std::size_t piece = end < kCopyPiece ? end : kCopyPiece;
      end -= piece;
      std::memcpy(to + end, from + end, piece);
    }
    return;
  }
  for (std::size_t offset = 0; offset < bytes; offset += kCopyPiece) {
    const std::size_t piece = bytes - offset < kCopyPiece ? bytes - offset : kCopyPiece;
    std::memcpy(to + offset, from + offset, piece);
  }
}

}  // namespace tern::runtime
