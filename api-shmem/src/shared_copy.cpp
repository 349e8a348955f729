// Puts and gets shared with a waiting peer (shared_copy.hpp).
#include "shared_copy.hpp"

#include "state.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/copy.hpp"
#include "tern/runtime/log.hpp"

namespace tern::shmem {
namespace {

// The mailbox's states. A caller moves it Idle -> Filling -> Posted, and
// back to Idle either by taking its half back (from Posted) or after the
// peer has moved it Posted -> Taken -> Done (or Declined: the peer cannot
// reach one of the two buffers, and the caller copies the half itself).
enum : uint32_t { kIdle = 0, kFilling, kPosted, kTaken, kDone, kDeclined };

// The same place on `pe`, mapped here; null if it cannot be reached or the
// range would leave the region (regions are the same size on every PE).
std::byte* resolve(const State& s, uint32_t pe, uint8_t region_byte, uint64_t offset, uint64_t bytes) noexcept {
  const auto region = static_cast<Region>(region_byte);
  if (pe >= static_cast<uint32_t>(s.n_pes) || (region != Region::Heap && region != Region::Data)) return nullptr;
  const std::size_t size = region == Region::Heap ? s.heap_size : s.data_size;
  if (offset > size || bytes > size - offset) return nullptr;
  std::byte* base = region_base(s.peers[pe], region);
  return base != nullptr ? base + offset : nullptr;
}

}  // namespace

bool copy_shared(int peer, std::byte* to, const std::byte* from, std::size_t bytes, const void* dest,
                 const void* source, bool put) noexcept {
  State& s = *g_state;
  // Oversubscribed, a waiting peer gives its core away instead of spinning,
  // and the two halves would run one after the other anyway.
  if (peer == s.my_pe || s.wait_mode == runtime::WaitMode::Block) return false;
  const SymmetricPlace from_place = locate(s, source, bytes);
  const SymmetricPlace to_place = locate(s, dest, bytes);
  if (from_place.region == Region::None || to_place.region == Region::None) return false;
  SharedCopyMailbox& box = *control_of(peer).mailbox;
  uint32_t expected = kIdle;
  if (box.state.load(std::memory_order_relaxed) != kIdle ||
      !box.state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire, std::memory_order_relaxed)) {
    return false;
  }
  // Page-aligned halves keep both copies on whole pages.
  const std::size_t split = (bytes / 2) & ~std::size_t{4095};
  box.source_pe = static_cast<uint32_t>(put ? s.my_pe : peer);
  box.dest_pe = static_cast<uint32_t>(put ? peer : s.my_pe);
  box.source_region = static_cast<uint8_t>(from_place.region);
  box.dest_region = static_cast<uint8_t>(to_place.region);
  box.source_offset = from_place.offset + split;
  box.dest_offset = to_place.offset + split;
  box.bytes = bytes - split;
  box.state.store(kPosted, std::memory_order_release);

  runtime::copy_bytes(to, from, split);

  expected = kPosted;
  if (!box.state.compare_exchange_strong(expected, kIdle, std::memory_order_acq_rel, std::memory_order_acquire)) {
    uint32_t now;
    while ((now = box.state.load(std::memory_order_acquire)) == kTaken) cpu_relax();
    box.state.store(kIdle, std::memory_order_release);
    if (now == kDone) return true;
  }
  runtime::copy_bytes(to + split, from + split, bytes - split);
  return true;
}

bool serve_shared_copy() noexcept {
  State* s = g_state;
  if (s == nullptr || s->control.mailbox == nullptr) return false;
  SharedCopyMailbox& box = *s->control.mailbox;
  if (TERN_LIKELY(box.state.load(std::memory_order_relaxed) != kPosted)) return false;
  uint32_t expected = kPosted;
  if (!box.state.compare_exchange_strong(expected, kTaken, std::memory_order_acquire, std::memory_order_relaxed)) {
    return false;
  }
  const std::byte* from = resolve(*s, box.source_pe, box.source_region, box.source_offset, box.bytes);
  std::byte* to = resolve(*s, box.dest_pe, box.dest_region, box.dest_offset, box.bytes);
  if (from == nullptr || to == nullptr) {
    box.state.store(kDeclined, std::memory_order_release);
    return false;
  }
  runtime::copy_bytes(to, from, box.bytes);
  const uint32_t source_pe = box.source_pe, dest_pe = box.dest_pe;
  const uint64_t bytes = box.bytes;
  box.state.store(kDone, std::memory_order_release);  // the caller may reuse the mailbox from here
  TERN_LOG(Trace, "shmem: copied the second half (%llu bytes) of a transfer from PE %u to PE %u",
           static_cast<unsigned long long>(bytes), source_pe, dest_pe);
  return true;
}

}  // namespace tern::shmem
