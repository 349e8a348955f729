// How direct windows (window.hpp) reach their peers' memory: every rank's
// control block and window memory mapped into every other, from the keys
// the ranks exchange at creation; and, for MPI_Win_create, the caller's
// memory made shareable in place first.
//
// MPI_Win_create's memory is the program's own (the heap, static data), not
// memory the engine made. Each rank swaps the pages of its window for
// shared pages with the same contents at the same addresses
// (engine::kMemShareExisting), so that origins on this host copy into them
// and take locks in a control block as in an MPI_Win_allocate window,
// instead of sending every operation to the target. The swap copies the
// pages and then replaces them: a write into them in between would be lost.
// So it is done only where nothing else can write them:
//  - the window covers whole pages (its base and size page aligned), so no
//    byte of other data shares its pages: the allocator's bookkeeping and
//    the program's other variables stay in private pages whatever threads
//    of libraries (PMIx's) do meanwhile;
//  - no other thread of the program writes the window meanwhile
//    (MPI_THREAD_SINGLE and no progress thread, or TERN_WIN_SHARE=on, the
//    program's promise);
//  - no receive into it is open that a peer may still fill;
//  - the pages are private writable memory off the stack (the engine checks).
// At MPI_Win_free, under the same conditions, the pages become private
// again (a forked child then copies them as it would have). Memory from
// MPI_Alloc_mem needs none of this: it is in the engine's shared arena,
// which the peers map already, at any alignment and thread level. Where any
// rank cannot share (most often: heap memory that does not cover whole
// pages), the window is served by its targets. MPI_Win_get_info says which
// (tern_access: direct or served).
#include <unistd.h>

#include <cstring>

#include "tern/runtime/log.hpp"
#include "win/window.hpp"

namespace tern::mpi {
namespace {

std::size_t page_size() noexcept {
  static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// The data part of a rank's blob (map_peers) that says "my window is in my
// shared arena, which you map already": one byte, where a key has many.
constexpr std::byte kInArena{0xa5};

// Whether this rank's window is whole pages that nothing but this call can
// write now.
bool pages_are_ours(const Window& win) {
  if (g_state->win_share == runtime::Switch::Off || g_state->progress_thread) return false;
  if (g_state->win_share == runtime::Switch::Auto && g_state->thread_level != MPI_THREAD_SINGLE) return false;
  if (win.bytes == 0) return true;
  const std::size_t page = page_size();
  const auto bytes = static_cast<std::size_t>(win.bytes);
  if (reinterpret_cast<uintptr_t>(win.base) % page != 0 || bytes % page != 0) return false;
  return !g_state->worker->receiving_into(win.base, bytes);
}

// Memory from MPI_Alloc_mem (the engine's shared arena): the peers map it
// already, whatever its alignment, and nothing is swapped.
bool in_arena(const Window& win) {
  return win.bytes > 0 && g_state->win_share != runtime::Switch::Off &&
         g_state->worker->mem_mapped_by_peers(win.base, static_cast<std::size_t>(win.bytes));
}

}  // namespace

bool map_peers(Window& win, std::span<const std::byte> control_key, std::span<const std::byte> data_key,
               std::size_t data_offset) {
  // One blob per rank: the control key's length, the control key, then the
  // data key (if any). An empty blob: the rank has nothing to map.
  std::vector<std::byte> mine;
  if (!control_key.empty()) {
    const auto length = static_cast<uint32_t>(control_key.size());
    mine.resize(sizeof(length) + control_key.size() + data_key.size());
    std::memcpy(mine.data(), &length, sizeof(length));
    std::memcpy(mine.data() + sizeof(length), control_key.data(), control_key.size());
    if (!data_key.empty()) std::memcpy(mine.data() + sizeof(length) + control_key.size(), data_key.data(), data_key.size());
  }
  const int blob_length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(win.size));
  if (PMPI_Allgather(&blob_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, win.comm) != MPI_SUCCESS) return false;
  std::vector<int> displs(lengths.size());
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    displs[r] = total;
    total += lengths[r];
  }
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  if (PMPI_Allgatherv(mine.data(), blob_length, MPI_BYTE, all.data(), lengths.data(), displs.data(), MPI_BYTE,
                      win.comm) != MPI_SUCCESS) {
    return false;
  }
  int mapped = 1;
  for (std::size_t r = 0; r < lengths.size() && mapped != 0; ++r) {
    const std::byte* blob = all.data() + displs[r];
    const auto size = static_cast<std::size_t>(lengths[r]);
    uint32_t control_length = 0;
    if (size >= sizeof(control_length)) std::memcpy(&control_length, blob, sizeof(control_length));
    engine::RemoteKey* control = nullptr;
    if (control_length == 0 || control_length > size - sizeof(control_length) ||
        engine::RemoteKey::unpack({blob + sizeof(control_length), control_length}, control) != Status::Ok) {
      mapped = 0;
      break;
    }
    win.keys.push_back(control);
    WinPeer& peer = win.peers[r];
    peer.control = reinterpret_cast<WinControl*>(control->local_base());
    const std::size_t data_length = size - sizeof(control_length) - control_length;
    if (data_offset != kDataApart) {
      peer.mapped = control->local_base() + data_offset;
      continue;
    }
    peer.mapped = nullptr;
    if (data_length == 0) {
      if (peer.size != 0) mapped = 0;  // memory the rank did not share
      continue;
    }
    if (data_length == 1 && blob[sizeof(control_length) + control_length] == kInArena) {
      // In the rank's shared arena: ours as it is, a peer's as we map it.
      const auto bytes = static_cast<std::size_t>(peer.size);
      peer.mapped = static_cast<int>(r) == win.rank
                        ? static_cast<std::byte*>(win.base)
                        : static_cast<std::byte*>(g_state->worker->map_peer_memory(
                              comm_endpoint(*find_comm(win.comm), static_cast<int>(r)), peer.base, bytes));
      if (peer.mapped == nullptr) mapped = 0;
      continue;
    }
    engine::RemoteKey* data = nullptr;
    if (engine::RemoteKey::unpack({blob + sizeof(control_length) + control_length, data_length}, data) != Status::Ok) {
      mapped = 0;
      break;
    }
    win.keys.push_back(data);
    // The rank's window, as it sees it, inside the pages it shared.
    peer.mapped = static_cast<std::byte*>(data->ptr(peer.base, static_cast<std::size_t>(peer.size)));
    if (peer.mapped == nullptr) mapped = 0;
  }
  int everywhere = 0;
  if (PMPI_Allreduce(&mapped, &everywhere, 1, MPI_INT, MPI_MIN, win.comm) != MPI_SUCCESS) return false;
  return everywhere != 0;
}

bool share_created_memory(Window& win) {
  const bool arena = in_arena(win);
  // A rank without memory has nothing to swap: it only maps the others.
  const bool nothing = win.bytes == 0 && g_state->win_share != runtime::Switch::Off;
  int mine = nothing || arena || pages_are_ours(win) ? 1 : 0;
  int everyone = 0;
  if (PMPI_Allreduce(&mine, &everyone, 1, MPI_INT, MPI_MIN, win.comm) != MPI_SUCCESS || everyone == 0) return false;
  engine::MemMapParams control;
  control.length = kControlBytes;
  bool made = engine::MemRegion::map(control, win.region) == Status::Ok;
  if (arena) {
    // Nothing to swap: the blob says where the memory is.
  } else if (made && win.bytes > 0 && pages_are_ours(win)) {
    // pages_are_ours asked again just before the swap: the collectives
    // above progressed the engine, which may have posted a receive into the
    // window since.
    engine::MemMapParams pages;
    pages.address = win.base;
    pages.length = static_cast<std::size_t>(win.bytes);
    pages.flags = engine::kMemShareExisting;
    made = engine::MemRegion::map(pages, win.shared_in_place) == Status::Ok;
  } else if (win.bytes > 0) {
    made = false;
  }
  std::span<const std::byte> control_key;
  std::span<const std::byte> data_key;
  if (made) {
    win.control = reinterpret_cast<WinControl*>(win.region->base());
    control_key = win.region->packed_key();
    if (win.shared_in_place != nullptr) data_key = win.shared_in_place->packed_key();
    if (arena) data_key = {&kInArena, 1};
  }
  if (map_peers(win, control_key, data_key, kDataApart)) return true;
  TERN_LOG(Debug, "mpi: an MPI_Win_create window's memory could not be shared on every rank: its targets serve it");
  for (engine::RemoteKey* key : win.keys) engine::RemoteKey::destroy(key);
  win.keys.clear();
  win.control = nullptr;
  if (win.region != nullptr) engine::MemRegion::unmap(win.region);
  win.region = nullptr;
  release_shared_memory(win);
  return false;
}

void release_shared_memory(Window& win) {
  if (win.shared_in_place == nullptr) return;
  if (pages_are_ours(win)) {
    engine::MemRegion::unshare(win.shared_in_place);
  } else {
    engine::MemRegion::unmap(win.shared_in_place);
  }
  win.shared_in_place = nullptr;
}

}  // namespace tern::mpi
