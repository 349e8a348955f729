// The OpenSHMEM library's state: the job, the symmetric regions (heap and the
// program's static data) of every PE as mapped here, and the synchronization
// words collectives and barriers use. Every public call starts here.
//
// A symmetric address is one inside this PE's heap or static data; the same
// object on PE p is at the same offset in p's region. On this node that
// region is mapped here (engine::RemoteKey), so a put is a memcpy and an
// atomic a CPU atomic; a PE on another host is reached through net.hpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "net.hpp"
#include "shared_copy.hpp"
#include "shmem.h"
#include "tern/engine/job.hpp"
#include "tern/engine/memory.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/config.hpp"

// Team and context handles (shmem.h keeps them opaque).
struct tern_shmem_team {
  std::vector<int> members;    // world PEs, in team order
  std::vector<int> index_of;   // world PE -> team index, -1 when not a member
  int my_index = -1;
  unsigned slot = 0;           // which synchronization words it uses (sync.hpp)
  shmem_team_config_t config{};
  long config_mask = 0;
  bool predefined = false;     // SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED: never destroyed
  std::atomic<int> contexts{0};
};

struct tern_shmem_ctx {
  long options = 0;
  shmem_team_t team = nullptr;
  bool predefined = false;
  std::atomic<bool> live{false};  // a slot of the context table in use (team.cpp)
};

namespace tern::shmem {

// Sync slots: one per live team, plus one for the active-set collectives.
inline constexpr unsigned kSlotWorld = 0;
inline constexpr unsigned kSlotShared = 1;
inline constexpr unsigned kSlotActiveSet = 2;
inline constexpr unsigned kSlotFirstTeam = 3;
inline constexpr unsigned kSlots = 64;
// Every PE's heap starts at an address aligned to the power of two at or
// above its length (State::heap_alignment), so that any alignment that fits
// the heap is an aligned offset, the same on every PE (shmem_align). Address
// space, not memory: the reservation's unused part is given back at once.
inline constexpr std::size_t kMinHeapAlignment = std::size_t{2} << 20;
inline constexpr std::size_t kMaxHeapAlignment = std::size_t{1} << 40;

// Where one PE's symmetric regions are mapped in this process (null when it
// cannot be reached from here).
struct PeerRegions {
  std::byte* heap = nullptr;
  std::byte* data = nullptr;
};

// The synchronization words at the start of every PE's heap: arrivals[slot][pe]
// counts the signals `pe` sent this PE on that slot. Counts only grow; the
// receiver keeps how many it consumed (State::consumed), so a word is never
// reset and no two uses of a slot can be confused.
// After them, published[slot]: one word a PE shows the members of a team
// between two barriers (team_exchange).
struct ControlBlock {
  std::atomic<uint64_t>* arrivals = nullptr;   // kSlots * n_pes words
  std::atomic<uint64_t>* published = nullptr;  // kSlots words
  SharedCopyMailbox* mailbox = nullptr;        // shared_copy.hpp, on its own line
};

struct State {
  std::unique_ptr<engine::Job> job;
  int my_pe = 0;
  int n_pes = 1;
  int thread_level = SHMEM_THREAD_SINGLE;
  runtime::WaitMode wait_mode = runtime::WaitMode::Adaptive;
  unsigned spin_count = 4096;  // pauses before an adaptive wait yields (TERN_SPIN_COUNT)

  // This PE's regions.
  engine::MemRegion* heap_region = nullptr;
  engine::MemRegion* data_region = nullptr;
  uintptr_t heap_base = 0;
  std::size_t heap_alignment = 0;  // of heap_base: a power of two
  std::size_t heap_size = 0;
  uintptr_t data_base = 0;
  std::size_t data_size = 0;
  // The part of the heap shmem_malloc hands out (after the control block).
  std::size_t user_heap_offset = 0;

  std::vector<PeerRegions> peers;             // by world PE
  // PEs reached over the network (net.hpp): by world PE, and which they are.
  std::unique_ptr<NetPeer[]> net;
  std::vector<int> net_pes;
  bool has_net = false;                       // any PE is reached over the network
  std::atomic<bool> net_written{false};       // a quiet has endpoints to flush
  engine::rma::Registration* heap_rma = nullptr;
  engine::rma::Registration* data_rma = nullptr;
  std::vector<engine::RemoteKey*> remote_keys;  // owned, for unmapping
  ControlBlock control;                       // this PE's, at heap offset 0
  std::size_t control_bytes = 0;
  std::size_t mailbox_offset = 0;             // in the control block
  std::vector<uint64_t> consumed;             // kSlots * n_pes, private
  std::mutex consumed_mutex;                  // SHMEM_THREAD_MULTIPLE collectives on one slot are the user's error,
                                              // different slots may run at once

  std::mutex heap_mutex;  // the allocator and team creation
};

// Null before shmem_init and after shmem_finalize.
extern State* g_state;

// --- Errors: a message naming the call and the argument, then the job ends
// through the launcher with a non-zero status (what a segfault would have
// been, made readable).
[[noreturn]] void fail(const char* function, const char* format, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] void not_initialized(const char* function);
[[noreturn]] void bad_pe(const char* function, int pe);
[[noreturn]] void not_symmetric(const char* function, const void* address, std::size_t bytes);
[[noreturn]] void unreachable_pe(const char* function, int pe);

inline State& state(const char* function) {
  if (TERN_UNLIKELY(g_state == nullptr)) not_initialized(function);
  return *g_state;
}

// Where a symmetric range lies: in which region, at which offset (the same
// on every PE).
enum class Region : uint8_t { None, Heap, Data };
struct SymmetricPlace {
  Region region = Region::None;
  uintptr_t offset = 0;
};

inline SymmetricPlace locate(const State& s, const void* address, std::size_t bytes) noexcept {
  const auto where = reinterpret_cast<uintptr_t>(address);
  uintptr_t offset = where - s.heap_base;
  if (TERN_LIKELY(offset < s.heap_size && bytes <= s.heap_size - offset)) return {Region::Heap, offset};
  offset = where - s.data_base;
  if (offset < s.data_size && bytes <= s.data_size - offset) return {Region::Data, offset};
  return {};
}

// The base of `peer`'s copy of `region`, mapped here (null if unreachable).
inline std::byte* region_base(const PeerRegions& peer, Region region) noexcept {
  return region == Region::Heap ? peer.heap : peer.data;
}

// This PE's address `address` (of `bytes` bytes) as seen on `pe`, mapped
// here; null where `pe` is reached over the network (the caller then goes
// through net.hpp), and for zero bytes at an address that is not symmetric
// (a zero-length transfer may pass any pointer).
inline std::byte* mapped_or_net(const char* function, const void* address, std::size_t bytes, int pe) {
  State& s = state(function);
  if (TERN_UNLIKELY(static_cast<unsigned>(pe) >= static_cast<unsigned>(s.n_pes))) bad_pe(function, pe);
  const SymmetricPlace place = locate(s, address, bytes);
  if (TERN_UNLIKELY(place.region == Region::None)) {
    if (bytes == 0) return nullptr;
    not_symmetric(function, address, bytes);
  }
  std::byte* base = region_base(s.peers[static_cast<std::size_t>(pe)], place.region);
  if (TERN_UNLIKELY(base == nullptr)) {
    if (!s.has_net || s.net[static_cast<std::size_t>(pe)].endpoint == nullptr) unreachable_pe(function, pe);
    return nullptr;
  }
  return base + place.offset;
}

// As remote(), but null instead of an error when not symmetric or not reachable.
[[nodiscard]] std::byte* try_remote(const void* address, std::size_t bytes, int pe) noexcept;

// Whether `address` .. + bytes is symmetric (heap or static data).
[[nodiscard]] bool is_symmetric(const void* address, std::size_t bytes) noexcept;

// --- Waiting: spin, then yield, then short sleeps, as TERN_WAIT_MODE says
// (block when oversubscribed, which ternrun --oversubscribe sets).
class Backoff {
 public:
  void pause() noexcept;

 private:
  unsigned rounds_ = 0;
};

template <typename Ready>
inline void wait_until(Ready&& ready) {
  if (ready()) return;
  Backoff backoff;
  while (!ready()) backoff.pause();
}

// --- Synchronization over a set of world PEs (sync.cpp).
// Tells `pe` one more arrival on `slot`.
void signal_pe(unsigned slot, int pe) noexcept;
// Waits for (and consumes) one arrival from `pe` on `slot`.
void wait_pe(unsigned slot, int pe) noexcept;
// Barrier among `members` (world PEs; this PE is members[my_index]):
// completes this PE's stores first (quiet), dissemination rounds after.
void barrier(unsigned slot, const int* members, int count, int my_index) noexcept;
inline void team_barrier(const tern_shmem_team& team) noexcept {
  barrier(team.slot, team.members.data(), static_cast<int>(team.members.size()), team.my_index);
}
// Every member's `mine`, in team order (a barrier-bracketed allgather of one
// word through the control blocks).
void team_exchange(const tern_shmem_team& team, uint64_t mine, std::vector<uint64_t>& all) noexcept;
// The published word of `pe` on `slot` (over the network for a PE not mapped here).
[[nodiscard]] uint64_t published_word(int pe, unsigned slot) noexcept;
// The control block of `pe` as mapped here.
[[nodiscard]] ControlBlock control_of(int pe) noexcept;

// Makes this PE's earlier stores and atomics visible before what follows
// (and, for PEs on other hosts, applied there).
inline void quiet() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (TERN_UNLIKELY(g_state != nullptr && g_state->net_written.load(std::memory_order_relaxed))) net_quiet_slow();
}

// Lets the worker serve peers on other hosts (tests that do not wait).
inline void poll_net() noexcept {
  if (TERN_UNLIKELY(g_state != nullptr && g_state->has_net)) (void)net_progress();
}

// --- Predefined teams and contexts (team.cpp) and their checks.
extern tern_shmem_team g_team_world;
extern tern_shmem_team g_team_shared;
extern tern_shmem_ctx g_ctx_default;
void setup_predefined_teams(State& s);
void release_teams() noexcept;
// The team behind a handle, or fail() naming the call.
tern_shmem_team& checked_team(const char* function, shmem_team_t team);
// Checks a context handle (fails naming the call when invalid).
void check_ctx(const char* function, shmem_ctx_t ctx);
// The world PE that PE `pe` of the context's team is (a context made from a
// team numbers PEs as the team does); checks the context and the PE.
int ctx_world_pe(const char* function, shmem_ctx_t ctx, int pe);

// --- Symmetric heap (heap.cpp).
void heap_setup(State& s);
// Allocation used by shmem_malloc and friends; not collective by itself.
[[nodiscard]] void* heap_allocate(State& s, std::size_t alignment, std::size_t size) noexcept;
void heap_free(State& s, void* pointer) noexcept;
[[nodiscard]] std::size_t heap_block_size(State& s, void* pointer) noexcept;

}  // namespace tern::shmem
