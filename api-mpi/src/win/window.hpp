// MPI one-sided windows. A window is a private duplicate of its
// communicator, each rank's memory (base, size, displacement unit), the
// synchronization state of its epochs, and one of two ways to reach the
// targets:
//
//  - Direct: every rank on this host and the memory from MPI_Win_allocate or
//    MPI_Win_allocate_shared, which the engine maps into every peer, or
//    MPI_Win_create's memory made shareable in place (mapping.cpp). The
//    origin does all the work: puts and gets are copies, accumulates
//    element-wise CPU atomics (accumulate.cpp), locks an atomic word in the
//    target's control block. The target need not call MPI at all.
//  - Served: any other window (MPI_Win_create's memory where it cannot be
//    shared, dynamic windows, peers on other hosts). Operations travel as messages to the target's
//    agent (agent.cpp), a receive the target keeps posted on the window's
//    private context; the target's progress (any MPI call, or its progress
//    thread) applies them and answers gets, flushes and lock requests.
//
// Both keep MPI's unified memory model (MPI_WIN_UNIFIED).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "attr/attributes.hpp"
#include "datatype/derived.hpp"
#include "info/info.hpp"
#include "mpi.h"
#include "state.hpp"
#include "tern/engine/memory.hpp"

namespace tern::mpi {

// A rank's window control block, in memory its peers map (direct windows).
struct alignas(64) WinControl {
  // Passive-target lock: kExclusiveLock, or the number of shared holders.
  std::atomic<uint64_t> lock{0};
  // Held around every accumulate's arithmetic at this target (accumulate.cpp).
  std::atomic<uint32_t> accumulate{0};
};
inline constexpr uint64_t kExclusiveLock = uint64_t{1} << 63;
// Bytes before a direct window's data in its mapping: the control block,
// rounded so that the data stays page aligned.
inline constexpr std::size_t kControlBytes = 4096;

struct WinPeer {
  MPI_Aint size = 0;
  int disp_unit = 1;
  uint64_t base = 0;               // the peer's base as it sees it
  std::byte* mapped = nullptr;     // direct: the peer's base mapped here
  WinControl* control = nullptr;   // direct: the peer's control block mapped here
};

// A served window's target side (agent.cpp).
class Agent;

// Where one operation's reply (a get's data, an accumulate's old values)
// goes: `bytes` of a joint reply, copied to `into`, or unpacked there as
// `count` instances of `unpack_type` when it is set.
struct ReplyPart {
  void* into = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> unpack_type;
  std::size_t count = 0;
  bool alone = false;  // a reply of its own (kReplyAlone), not in the joint one
};

// Origin-side operations of served windows still running (origin.cpp).
struct PendingOp {
  engine::Request* request = nullptr;
  int target = 0;
  void* temp = nullptr;  // given back at completion (buffer_pool.hpp)
  std::size_t temp_bytes = 0;
  // A reply received into `temp`: the parts it is scattered to at completion.
  std::vector<ReplyPart> parts;
};

enum class LockState : uint8_t { None, Shared, Exclusive };

struct Window {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the creating communicator
  int rank = 0;
  int size = 0;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  bool direct = false;
  void* base = nullptr;
  MPI_Aint bytes = 0;
  int disp_unit = 1;
  std::vector<WinPeer> peers;
  WinControl* control = nullptr;  // this rank's (direct windows)
  engine::MemRegion* region = nullptr;           // memory this rank allocated
  engine::MemRegion* shared_in_place = nullptr;  // MPI_Win_create's memory made shareable (mapping.cpp)
  std::vector<engine::RemoteKey*> keys;          // peers' regions mapped here
  std::unique_ptr<Agent> agent;                  // served windows
  // Dynamic windows: the ranges attached here, as (base, size); the agent
  // reads them from progress, perhaps on the progress thread.
  std::vector<std::pair<uintptr_t, std::size_t>> attached;
  std::mutex attached_mutex;

  // --- Epochs
  bool fence_epoch = false;                   // between fences
  std::vector<int> access_group;              // MPI_Win_start .. complete (window ranks)
  std::vector<char> in_access_group;          // by window rank
  bool access_epoch = false;
  std::vector<int> exposure_group;            // MPI_Win_post .. wait
  std::vector<MPI_Request> exposure_requests; // the completes awaited
  bool exposure_epoch = false;
  std::vector<LockState> locks;               // by target
  std::vector<char> lock_checked;             // MPI_MODE_NOCHECK locks: nothing taken
  bool lock_all = false;
  bool lock_all_nocheck = false;

  // --- Served windows, origin side
  std::mutex origin_mutex;            // the lists below, under MPI_THREAD_MULTIPLE (OriginGuard)
  std::vector<PendingOp> pending;     // local completion outstanding
  std::vector<char> unflushed;        // by target: puts/accumulates not known applied
  // By target: whole requests not sent yet (protocol.hpp), in a buffer of
  // kBatchBytes that the send takes over (null until the first request),
  // and where their replies go, in the order the agent answers them.
  struct Batch {
    std::byte* data = nullptr;
    std::size_t size = 0;
    std::vector<ReplyPart> replies;
    std::size_t joint_bytes = 0;  // of the replies not alone
    std::size_t joint_count = 0;
    bool any_alone = false;
  };
  std::vector<Batch> batches;
  // By target: the largest reply that joins a joint one (protocol.hpp).
  std::vector<uint32_t> join_limit;

  std::string name;
  AttributeList attributes;  // MPI_Win_set_attr's
  InfoEntries info;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
};

// Holds a window's origin_mutex under MPI_THREAD_MULTIPLE only: otherwise
// one thread at a time calls MPI, and the agent, which may run on the
// progress thread, never touches the origin's lists. The several lock
// pairs of a served put and its flush were about 5% of its profile.
class OriginGuard {
 public:
  explicit OriginGuard(Window& win) : mutex_(g_state->multiple ? &win.origin_mutex : nullptr) {
    if (mutex_ != nullptr) mutex_->lock();
  }
  ~OriginGuard() {
    if (mutex_ != nullptr) mutex_->unlock();
  }
  OriginGuard(const OriginGuard&) = delete;
  OriginGuard& operator=(const OriginGuard&) = delete;

 private:
  std::mutex* mutex_;
};

// The window `handle` names, or null.
[[nodiscard]] Window* find_window(MPI_Win handle);
// Raises `error_class` from `function` on `win`'s handler (null: the world's).
int raise_win(const Window* win, int error_class, const char* function, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
// MPI runs and `handle` names a window.
int find_window_checked(const char* function, MPI_Win handle, Window*& win);
// The private communicator's state.
[[nodiscard]] inline Comm& window_comm(const Window& win) { return *find_comm(win.comm); }

// Whether an operation to `target` may run now (an access epoch covers it).
[[nodiscard]] inline bool in_access_epoch(const Window& win, int target) {
  return win.fence_epoch || win.lock_all || win.locks[static_cast<std::size_t>(target)] != LockState::None ||
         (win.access_epoch && win.in_access_group[static_cast<std::size_t>(target)] != 0);
}
[[nodiscard]] inline bool in_passive_epoch(const Window& win, int target) {
  return win.lock_all || win.locks[static_cast<std::size_t>(target)] != LockState::None;
}

// --- Accumulate arithmetic (accumulate.cpp)
// Whether `op` may be an accumulate's operation (predefined, REPLACE,
// NO_OP; no user operations), and on elements of `basic`.
[[nodiscard]] bool accumulate_op_valid(MPI_Op op, MPI_Datatype basic) noexcept;
// target[i] = in[i] op target[i] for `count` elements of `basic`; the old
// values go to `old` when it is not null. Not atomic by itself: direct
// windows hold the target's AccumulateGuard around it, agents apply one
// request at a time.
void accumulate_elements(MPI_Op op, MPI_Datatype basic, const std::byte* in, std::byte* target, std::size_t count,
                         std::byte* old) noexcept;
// Compare-and-swap of one element of `size` bytes; the old value to `old`.
void compare_and_swap_element(std::size_t size, const std::byte* desired, const std::byte* compare,
                              std::byte* target, std::byte* old) noexcept;
// Walks `count` instances of `type` at `target`: for each run of basic
// elements, accumulate_elements with the next packed inputs (and old values).
void accumulate_layout(MPI_Op op, MPI_Datatype basic, const DerivedType& type, std::size_t count,
                       const std::byte* packed_in, std::byte* target, std::byte* packed_old) noexcept;
// A direct window target's accumulate lock (WinControl::accumulate), held
// for the arithmetic of one operation.
class AccumulateGuard {
 public:
  explicit AccumulateGuard(std::atomic<uint32_t>& lock);
  ~AccumulateGuard() { lock_.store(0, std::memory_order_release); }
  AccumulateGuard(const AccumulateGuard&) = delete;
  AccumulateGuard& operator=(const AccumulateGuard&) = delete;

 private:
  std::atomic<uint32_t>& lock_;
};

// --- Synchronization pieces shared by the calls (sync.cpp)
// Every operation this rank issued to `target` (all targets: -1) complete
// at the target.
[[nodiscard]] int complete_at_targets(Window& win, int target);

// --- Served windows, origin side (origin.cpp)
// The types are raw pointers (predefined ones need no reference count);
// the holds keep derived ones alive for the call and for what completes
// later. No default member values: issue() sets every field, and zeroing
// the whole struct first cost a third of a one-byte MPI_Put.
struct RmaCall {
  int kind;  // protocol.hpp's RmaKind
  const void* origin;
  std::size_t origin_count;
  const DerivedType* origin_type;
  std::shared_ptr<const DerivedType> origin_hold;
  void* result;
  std::size_t result_count;
  const DerivedType* result_type;
  std::shared_ptr<const DerivedType> result_hold;
  const void* compare;
  int target;
  uint64_t target_address;  // the peer's address (dynamic: as given)
  std::size_t target_count;
  const DerivedType* target_type;
  std::shared_ptr<const DerivedType> target_hold;
  MPI_Datatype basic;  // accumulates: the element type
  MPI_Op op;
  std::size_t bytes;  // data bytes the target side touches
};
// Sends a call to the target's agent; the MPI error class.
[[nodiscard]] int served_issue(Window& win, const RmaCall& call);
// Waits for this rank's operations to `target` (-1: all) to complete locally.
[[nodiscard]] int served_wait_local(Window& win, int target);
// Asks `targets` to confirm that every earlier operation is applied, and
// waits for their answers; `kind`: flush, or unlock (which also releases).
[[nodiscard]] int served_flush(Window& win, const std::vector<int>& targets, int kind);
// Takes the lock of `target`'s agent (waits until it is granted).
[[nodiscard]] int served_lock(Window& win, const std::vector<int>& targets, bool exclusive);

// --- Direct windows (direct.cpp)
[[nodiscard]] int direct_issue(Window& win, const RmaCall& call);
// Passive-target lock word of `target`.
void direct_lock(Window& win, int target, bool exclusive);
void direct_unlock(Window& win, int target, bool exclusive);

// Maps every rank's keys into this process (mapping.cpp): each rank's
// control block, at the start of its `control_key` region, and its window
// memory, at `data_offset` in that region or, with kDataApart, at its base
// inside the region of its `data_key` (empty for a rank without memory).
// Collective; false on every rank when one of them could not map every
// peer (a rank with nothing to map passes an empty control key).
inline constexpr std::size_t kDataApart = SIZE_MAX;
[[nodiscard]] bool map_peers(Window& win, std::span<const std::byte> control_key, std::span<const std::byte> data_key,
                             std::size_t data_offset);
// MPI_Win_create's memory on one host (mapping.cpp). Collective over the
// window's communicator: makes each rank's window pages shareable in place
// where every rank may, and maps them and a control block of each rank here
// (win.peers, win.control, win.keys). False on every rank (nothing kept)
// when one of them cannot.
[[nodiscard]] bool share_created_memory(Window& win);
// At MPI_Win_free: this rank's window pages private again where that is
// safe (else they stay shared, unreached), and the handle released.
void release_shared_memory(Window& win);

}  // namespace tern::mpi
