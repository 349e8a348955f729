// Large puts and gets shared with the PE on the other side, when it is
// waiting inside the library: the caller copies one half, the peer the
// other, each into or out of its own core's cache.
//
// A PE's control block holds one mailbox. A caller claims it, describes the
// second half (regions and offsets, which every PE resolves in its own
// mapping), posts it and copies the first half. A PE spinning in a wait
// (Backoff) takes a posted half, copies it and marks it done. If no one has
// taken the half by the time the caller is through with its own, the caller
// takes it back and copies it too: a peer that is computing, sleeping or
// not in the library costs the caller two atomic operations.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tern::shmem {

// From here on sharing pays. osu_oshm_put on the 2-core VM, alternating
// runs, alone against shared: 128 KiB 1.17 -> 1.06 us, 256 KiB 2.30 ->
// 1.62, 512 KiB 9.57 -> 2.79, 1 MiB 16.5 -> 9.1; but 64 KiB 0.59 -> 0.68,
// where the three cache-line handshakes cost more than half the copy.
inline constexpr std::size_t kSharedCopyMinBytes = std::size_t{128} << 10;

struct alignas(64) SharedCopyMailbox {
  std::atomic<uint32_t> state{0};
  uint32_t source_pe = 0;
  uint32_t dest_pe = 0;
  uint8_t source_region = 0;  // a Region (state.hpp)
  uint8_t dest_region = 0;
  uint64_t source_offset = 0;
  uint64_t dest_offset = 0;
  uint64_t bytes = 0;
};

// Copies `bytes` from `from` to `to` (this process's addresses: one of them
// is `peer`'s memory mapped here), with `peer`'s help if it takes it.
// `dest` and `source` are the caller's symmetric addresses of the two
// buffers; `put` says which of them lies on `peer`. False, with nothing
// copied, when sharing does not apply: a buffer that is not symmetric, the
// mailbox busy, or waits that do not spin. The caller has checked that
// `bytes` is at least kSharedCopyMinBytes.
[[nodiscard]] bool copy_shared(int peer, std::byte* to, const std::byte* from, std::size_t bytes, const void* dest,
                               const void* source, bool put) noexcept;

// Takes and copies a posted half, if there is one. True if it copied.
bool serve_shared_copy() noexcept;

}  // namespace tern::shmem
