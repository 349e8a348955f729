// The MPI library's state between MPI_Init and MPI_Finalize: the engine job,
// the communicator and request tables, the thread level. MPI's interface is
// process-global, so the state is one object reached through `g_state`;
// everything below it is ordinary objects.
#pragma once

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <thread>
#include <type_traits>
#include <vector>

#include "attr/attributes.hpp"
#include "datatype/derived.hpp"
#include "handle.hpp"
#include "mpi.h"
#include "tern/engine/job.hpp"
#include "tern/engine/worker.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/config.hpp"

namespace tern::mpi {

// --- Engine tag layout: context id (16 bits) | source rank (24) | MPI tag (24).
inline constexpr int kTagUb = (1 << 23) - 1;
inline constexpr unsigned kSourceShift = 24;
inline constexpr unsigned kContextShift = 48;
inline constexpr uint64_t kSourceBits = uint64_t{0xFFFFFF} << kSourceShift;
inline constexpr uint64_t kTagBits = 0xFFFFFF;
inline constexpr int kMaxCommSize = 1 << 24;
// Collective traffic of a communicator runs in its context with this bit set,
// so it never matches point-to-point receives.
inline constexpr uint16_t kCollectiveBit = 0x8000;

[[nodiscard]] constexpr uint64_t make_tag(uint16_t context, unsigned source, unsigned tag) noexcept {
  return (uint64_t{context} << kContextShift) | (uint64_t{source} << kSourceShift) | (tag & kTagBits);
}
[[nodiscard]] constexpr int tag_source(uint64_t tag) noexcept { return static_cast<int>((tag >> kSourceShift) & 0xFFFFFF); }
[[nodiscard]] constexpr int tag_mpi_tag(uint64_t tag) noexcept { return static_cast<int>(tag & kTagBits); }

// --- Communicators
// Where a communicator's ranks run, for the node-aware collectives
// (coll/node.cpp): made on a communicator's first such collective.
struct NodeLayout {
  // Several hosts, and several ranks on at least one: otherwise the flat
  // algorithms are as good.
  bool worth = false;
  std::vector<int> local;    // communicator ranks on this host, ascending; local[0] leads
  std::vector<int> leaders;  // each host's leader, ascending
  std::vector<int> leader_of;  // by communicator rank: the leader of its host
  int leader_index = -1;     // this rank's place in `leaders`, -1 if it leads none
};

// A Cartesian topology (comm/topology.cpp): ranks in row-major order of
// their coordinates.
struct CartTopology {
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1 per dimension
};

// A graph (MPI_Graph_create) or distributed graph (MPI_Dist_graph_create*)
// topology (comm/graph.cpp).
struct GraphTopology {
  bool distributed = false;
  // Graphs: the whole graph as given (index cumulative); empty for dist graphs.
  std::vector<int> index;
  std::vector<int> edges;
  // This rank's neighbours in the order the neighbourhood collectives use
  // (graphs: its adjacency list both ways), and dist graphs' edge weights.
  std::vector<int> sources;
  std::vector<int> destinations;
  bool weighted = false;
  std::vector<int> source_weights;
  std::vector<int> destination_weights;
};

class SharedSegment;  // coll/shared.hpp

struct Comm {
  uint16_t context = 0;
  int rank = 0;  // this process's rank in the communicator
  int size = 0;
  // Beside `size`, which point-to-point checks read through peer_count().
  bool inter = false;  // an intercommunicator (the block below)
  int remote_size = 0;
  std::vector<unsigned> job_ranks;  // communicator rank -> job rank
  // Connected on first use; atomics because MPI_THREAD_MULTIPLE threads may
  // fill them concurrently (under the state's lock).
  std::unique_ptr<std::atomic<engine::Endpoint*>[]> endpoints;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  uint32_t collective_sequence = 0;
  uint32_t persistent_collective_sequence = 0;  // MPI_*_init schedules (coll/schedule.cpp)
  bool predefined = false;
  std::shared_ptr<const NodeLayout> node_layout;  // null until first needed
  // Collectives through a segment the ranks share (coll/shared.hpp), once
  // looked at: Unknown until the first collective that could use it.
  enum class SharedState : uint8_t { Unknown, Creating, Ready, None };
  SharedState shared_state = SharedState::Unknown;
  std::shared_ptr<SharedSegment> shared;
  // The same for this host's ranks of a communicator over several hosts
  // (the node-aware phases of coll/node.cpp).
  SharedState node_shared_state = SharedState::Unknown;
  std::shared_ptr<SharedSegment> node_shared;
  std::string name;  // MPI_Comm_set_name
  std::vector<std::pair<std::string, std::string>> info;  // MPI_Comm_set_info's hints, as set
  // The tern_critical_tags hint's tags (comm/hints.cpp); null: none set,
  // TERN_CRITICAL_TAGS's (State::critical_tags) hold.
  std::shared_ptr<const runtime::TagSet> critical_tags;
  std::shared_ptr<const CartTopology> cart;  // MPI_Cart_create's; null: no topology
  std::shared_ptr<const GraphTopology> graph;  // MPI_Graph_create's or MPI_Dist_graph_create*'s; null: none
  AttributeList attributes;  // MPI_Comm_set_attr's (attr/comm_attributes.cpp)
  // Intercommunicators (comm/intercomm.cpp): rank, size and job_ranks stay
  // the local group's, which is what MPI_Comm_rank/size/group report, while
  // the ranks of point-to-point calls (and so `endpoints`) name the remote
  // group. The collectives work through two hidden communicators: `local`,
  // an intracommunicator of the local group, and `bridge`, this one again in
  // its collective context, for the traffic between the groups.
  std::vector<unsigned> remote_job_ranks;
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm bridge = MPI_COMM_NULL;
  [[nodiscard]] int peer_count() const noexcept { return inter ? remote_size : size; }
  [[nodiscard]] const std::vector<unsigned>& peer_job_ranks() const noexcept {
    return inter ? remote_job_ranks : job_ranks;
  }
};

inline constexpr int kMaxComms = 4096;
using CommHandle = GenerationalHandle<12>;
static_assert(kMaxComms - 1 == CommHandle::kSlotMask);

// --- Requests
enum class RequestKind : uint8_t { Free, Send, Recv, Collective };
class Schedule;  // coll/schedule.hpp
class PartitionedRequest;  // p2p/partitioned.hpp
struct GeneralizedRequest;  // request/generalized.hpp

struct RequestSlot {
  engine::Request* engine = nullptr;  // null: done at once (status filled)
  RequestKind kind = RequestKind::Free;
  MPI_Comm comm = MPI_COMM_NULL;
  std::size_t capacity = 0;  // receive buffer size in bytes
  int error = MPI_SUCCESS;   // for requests done at once
  MPI_Status status{};       // for receives done at once
  int next_free = 0;         // position (slot + 1) of the next free slot, 0: none
  uint32_t generation = 0;   // of the handle that names this slot now
  // Persistent requests (p2p/persistent.cpp): the arguments Start replays, and
  // whether an operation is running (inactive ones complete at once).
  bool persistent = false;
  bool active = false;
  bool buffered = false;  // MPI_Bsend_init: Start copies into the attached buffer
  unsigned flags = 0;     // engine send flags
  void* buffer = nullptr;
  std::size_t bytes = 0;
  int peer = 0;
  int tag = 0;
  // Non-contiguous derived types: the packed data (sends) or the buffer the
  // message lands in before unpacking (receives); temp null otherwise.
  PackedTransfer packed;
  // Persistent requests of a non-contiguous type: the type and element count
  // each MPI_Start packs with (sends) or unpacks with (receives); null otherwise.
  std::shared_ptr<const DerivedType> derived;
  std::size_t derived_count = 0;
  // MPI_Isendrecv: the send half (null once done at once), which the request
  // waits for beside the receive in `engine`, and its packed copy.
  engine::Request* companion = nullptr;
  void* companion_temp = nullptr;
  // Non-blocking and persistent collectives: their schedule; null otherwise.
  std::shared_ptr<Schedule> schedule;
  // MPI_Psend_init/MPI_Precv_init (persistent too): their epochs; null otherwise.
  std::shared_ptr<PartitionedRequest> partitioned;
  // MPI_Grequest_start: the callbacks and completion; null otherwise.
  std::shared_ptr<GeneralizedRequest> generalized;
};

// Handles for requests that need no slot: a send done at once and a receive
// from MPI_PROC_NULL.
inline constexpr MPI_Request kRequestSendDone = 0x7FFFFFF0;
inline constexpr MPI_Request kRequestProcNull = 0x7FFFFFF1;

// Slots in fixed chunks that never move, so a handle stays a stable index
// while other threads add chunks. A handle is the slot's position (its index
// plus one) with the slot's generation above it (handle.hpp).
class RequestPool {
 public:
  static constexpr int kChunkBits = 8;
  static constexpr int kChunkSize = 1 << kChunkBits;
  // Positions stay below the low bits of kRequestSendDone and
  // kRequestProcNull, so no slot's handle is ever one of them.
  static constexpr int kMaxChunks = 4095;
  using Handle = GenerationalHandle<20>;
  static_assert(kMaxChunks * kChunkSize < Handle::slot(kRequestSendDone));
  static_assert(kMaxChunks * kChunkSize < Handle::slot(kRequestProcNull));

  // A free slot and its handle; MPI_REQUEST_NULL when out of memory or slots.
  // Inline while no lock is needed and a free slot waits: every
  // non-blocking receive takes one.
  MPI_Request get(RequestSlot*& slot) {
    if (TERN_UNLIKELY(locked)) return get_shared(slot);
    if (TERN_UNLIKELY(free_head_ == 0)) return get_slow(slot);
    const int position = free_head_;
    free_head_ = slot_at(position)->next_free;
    return take(position, slot);
  }
  void put(MPI_Request handle) {
    if (TERN_UNLIKELY(locked)) return put_shared(handle);
    link_free(retire(handle));
  }
  [[nodiscard]] RequestSlot* find(MPI_Request handle) const noexcept {
    const int index = Handle::slot(handle) - 1;
    if (index < 0) return nullptr;
    const int chunk = index >> kChunkBits;
    if (chunk >= chunk_count_.load(std::memory_order_acquire)) return nullptr;
    RequestSlot* slot = &chunks_[chunk][index & (kChunkSize - 1)];
    if (slot->kind == RequestKind::Free || !Handle::names(handle, index + 1, slot->generation)) return nullptr;
    return slot;
  }
  // Calls `visit` on each slot in use (MPI_Comm_disconnect waits for a
  // communicator's pending requests).
  template <typename Visit>
  void for_each_used(Visit&& visit) {
    const int chunks = chunk_count_.load(std::memory_order_acquire);
    for (int chunk = 0; chunk < chunks; ++chunk) {
      for (int i = 0; i < kChunkSize; ++i) {
        if (chunks_[chunk][i].kind != RequestKind::Free) visit(chunks_[chunk][i]);
      }
    }
  }
  // MPI_THREAD_MULTIPLE: slots go through each thread's own few
  // (request/request.cpp), and the free list takes `mutex`.
  bool locked = false;
  std::mutex mutex;

  RequestPool();
  ~RequestPool();
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;
  // Returns positions a thread kept (its exit, or this pool's end).
  void return_positions(const int* positions, int count);

 private:
  MPI_Request get_slow(RequestSlot*& slot);
  MPI_Request get_shared(RequestSlot*& slot);
  void put_shared(MPI_Request handle);
  // Moves up to `count` free positions into `out` (under `mutex`),
  // growing the pool when none is free; returns how many.
  int take_positions(int* out, int count);
  RequestSlot* slot_at(int position) noexcept {
    return &chunks_[(position - 1) >> kChunkBits][(position - 1) & (kChunkSize - 1)];
  }
  // Takes the free slot at `position`, off the free list already.
  MPI_Request take(int position, RequestSlot*& slot) noexcept {
    slot = slot_at(position);
    slot->engine = nullptr;
    slot->error = MPI_SUCCESS;
    slot->capacity = 0;
    slot->persistent = false;
    slot->active = false;
    slot->buffered = false;
    slot->companion = nullptr;
    slot->companion_temp = nullptr;
    slot->kind = RequestKind::Send;  // taken; the caller sets the real kind
    return Handle::make(position, slot->generation);
  }
  // Ends the slot's request: its handle names nothing from here on.
  // Returns its position, for the free list or a thread's own.
  int retire(MPI_Request handle) noexcept {
    const int position = Handle::slot(handle);
    RequestSlot* slot = slot_at(position);
    slot->generation = Handle::next(slot->generation);
    slot->kind = RequestKind::Free;
    slot->engine = nullptr;
    if (TERN_UNLIKELY(slot->derived != nullptr)) slot->derived.reset();
    if (TERN_UNLIKELY(slot->schedule != nullptr)) slot->schedule.reset();
    if (TERN_UNLIKELY(slot->partitioned != nullptr)) slot->partitioned.reset();
    if (TERN_UNLIKELY(slot->generalized != nullptr)) slot->generalized.reset();
    slot->derived_count = 0;
    return position;
  }
  void link_free(int position) noexcept {
    slot_at(position)->next_free = free_head_;
    free_head_ = position;
  }

  std::unique_ptr<RequestSlot[]> chunks_[kMaxChunks];
  std::atomic<int> chunk_count_{0};
  int free_head_ = 0;  // position of the first free slot, 0: none
};

struct State {
  std::unique_ptr<engine::Job> job;
  engine::Worker* worker = nullptr;
  int thread_level = MPI_THREAD_SINGLE;
  bool multiple = false;
  // Point-to-point calls queue for the progress thread (Worker::delays_submissions).
  bool delayed = false;
  std::thread::id main_thread;
  runtime::WaitMode wait_mode = runtime::WaitMode::Adaptive;
  std::size_t spin_count = 20000;
  runtime::Switch coll_shm = runtime::Switch::Auto;  // TERN_COLL_SHM (coll/shared.hpp)
  runtime::Switch win_share = runtime::Switch::Auto;  // TERN_WIN_SHARE (win/window.hpp)
  bool progress_thread = false;  // the worker has one (TERN_PROGRESS)
  // TERN_CRITICAL_TAGS, for communicators without a tern_critical_tags
  // hint; null when it names no tag.
  const runtime::TagSet* critical_tags = nullptr;
  double wtime_base = 0;

  std::unique_ptr<Comm> comms[kMaxComms];  // by CommHandle slot; slot 0 is MPI_COMM_NULL
  uint32_t comm_generations[kMaxComms] = {};  // of each slot's handle (CommHandle)
  uint16_t next_context = 2;               // 0: world, 1: self
  RequestPool requests;
  std::recursive_mutex mutex;  // tables and endpoint set-up under MPI_THREAD_MULTIPLE
};

extern State* g_state;
extern std::atomic<bool> g_finalized;

// Locks the state under MPI_THREAD_MULTIPLE, nothing otherwise.
class StateGuard {
 public:
  explicit StateGuard(State& state) : mutex_(state.multiple ? &state.mutex : nullptr) {
    if (mutex_ != nullptr) mutex_->lock();
  }
  ~StateGuard() {
    if (mutex_ != nullptr) mutex_->unlock();
  }
  StateGuard(const StateGuard&) = delete;
  StateGuard& operator=(const StateGuard&) = delete;

 private:
  std::recursive_mutex* mutex_;
};

[[nodiscard]] inline Comm* find_comm(MPI_Comm handle) noexcept {
  const int slot = CommHandle::slot(handle);
  if (!CommHandle::names(handle, slot, g_state->comm_generations[slot])) return nullptr;
  return g_state->comms[slot].get();
}

// The endpoint to communicator rank `rank`, connected on first use. Null on
// failure (the job's log says why).
engine::Endpoint* comm_connect(Comm& comm, int rank);
[[nodiscard]] inline engine::Endpoint* comm_endpoint(Comm& comm, int rank) {
  engine::Endpoint* endpoint = comm.endpoints[rank].load(std::memory_order_acquire);
  return TERN_LIKELY(endpoint != nullptr) ? endpoint : comm_connect(comm, rank);
}

// --- Datatypes and operations (datatype/datatype.cpp)
enum class BaseKind : uint8_t { Signed, Unsigned, Float, Bool, Opaque };
struct TypeInfo {
  const char* name;
  uint32_t size;
  BaseKind kind;
};
// The predefined types, indexed by handle (entry 0: MPI_DATATYPE_NULL).
inline constexpr int kTypeCount = MPI_C_LONG_DOUBLE_COMPLEX + 1;
extern const TypeInfo kTypes[kTypeCount];
// Null for an invalid or null handle (derived types: describe_type). Inline:
// every point-to-point call asks.
[[nodiscard]] inline const TypeInfo* find_type(MPI_Datatype type) noexcept {
  if (type <= 0 || type >= kTypeCount) return nullptr;
  return &kTypes[type];
}
// inout[i] = in[i] op inout[i] for `count` elements. MPI_ERR_OP when `op` is
// not defined on the type.
[[nodiscard]] int apply_op(MPI_Op op, MPI_Datatype type, const void* in, void* inout, std::size_t count) noexcept;
[[nodiscard]] bool valid_op(MPI_Op op) noexcept;

// --- Errors (errors/errors.cpp)
// MPI error class for an engine status.
[[nodiscard]] int error_class_of_failure(Status status) noexcept;
[[nodiscard]] inline int error_class_of(Status status) noexcept {
  return TERN_LIKELY(status == Status::Ok) ? MPI_SUCCESS : error_class_of_failure(status);
}
// Raises `error_class` from `function` on `comm` (null: MPI_COMM_WORLD's
// handler): with MPI_ERRORS_ARE_FATAL/ABORT prints "function: detail on rank
// R" and aborts the job; otherwise returns `error_class`.
int raise(const Comm* comm, int error_class, const char* function, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
// For calls before MPI_Init or after MPI_Finalize.
int not_initialized(const char* function);
// The first checks of most communicator calls: MPI runs and `handle`
// names a communicator (errors raised, MPI_ERR_COMM on the world's handler).
inline int find_comm_checked(const char* function, MPI_Comm handle, Comm*& comm) {
  if (g_state == nullptr) return not_initialized(function);
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  return MPI_SUCCESS;
}
// For the calls the standard defines on intracommunicators only
// (topologies, windows, prefix reductions): MPI_ERR_COMM on the others.
inline int check_intracomm(const Comm& comm, const char* function) {
  if (TERN_LIKELY(!comm.inter)) return MPI_SUCCESS;
  return raise(&comm, MPI_ERR_COMM, function, "not defined on an intercommunicator");
}
// For arguments this slice does not handle: always says so on stderr.
int unsupported(const Comm* comm, const char* function, const char* what);

// --- Waiting: the engine's own policy (Worker::wait_until: progress, spin a
// while, yield the core a few times, then sleep on the wakeup fd; the
// progress thread's queue under delayed submission; the crowd rules under
// MPI_THREAD_MULTIPLE) for conditions the engine cannot see (several
// requests, a schedule, a probe). A policy of its own here slept at once in
// the blocking wait mode, where the engine yields first: a receive waited
// for by MPI_Wait took 30 us against MPI_Recv's 0.6 on 2 cores. `done` is
// not called again once it held, so it may act then (a matched probe takes
// the message, a window lock the lock word).
template <typename Done>
void progress_until(Done&& done) {
  if (done()) return;
  using Condition = std::remove_reference_t<Done>;
  g_state->worker->wait_until([](void* condition) { return (*static_cast<Condition*>(condition))(); },
                              const_cast<void*>(static_cast<const void*>(&done)));
}

// The progress a test call (MPI_Test...) makes before it looks again. None
// with delayed submission: the progress thread progresses, and a test only
// looks, without the worker's lock.
inline void progress_for_test() {
  if (!g_state->delayed) (void)g_state->worker->progress();
}

// Whether an engine request is done: a lock-free read, also under
// MPI_THREAD_MULTIPLE or with a progress thread (the engine publishes a
// request's status last). Reading it through the worker's lock, with a
// progress per request not done, made every wait over 64 requests take the
// lock and progress 64 times per round (osu_mr_mt -t 1:1 at 0.58 of
// MPICH's rate).
[[nodiscard]] inline bool engine_done(engine::Request* request) { return request->done(); }

// Fills `status` (may be MPI_STATUS_IGNORE) for a receive that ended with
// `result` into a buffer of `capacity` bytes; returns the MPI error class.
inline int fill_recv_status(MPI_Status* status, const engine::TagRecvInfo& info, std::size_t capacity,
                            Status result) {
  const int error = error_class_of(result);
  if (status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = tag_source(info.sender_tag);
    status->MPI_TAG = tag_mpi_tag(info.sender_tag);
    status->MPI_ERROR = error;
    status->tern_cancelled = result == Status::Canceled;
    status->tern_bytes = static_cast<MPI_Count>(result == Status::Canceled ? 0 : std::min(info.length, capacity));
  }
  return error;
}

// The status of a request with nothing to report (a send, MPI_REQUEST_NULL).
inline void empty_status(MPI_Status* status, int source = MPI_ANY_SOURCE) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->tern_cancelled = 0;
  status->tern_bytes = 0;
}

// --- Internal point-to-point for collectives (coll/ uses p2p/).
// Blocking send/receive in `comm`'s collective context.
[[nodiscard]] Status coll_send(Comm& comm, const void* buffer, std::size_t bytes, int dest, unsigned tag);
[[nodiscard]] Status coll_recv(Comm& comm, void* buffer, std::size_t bytes, int source, unsigned tag);
[[nodiscard]] Status coll_sendrecv(Comm& comm, const void* send_buffer, std::size_t send_bytes, int dest,
                                   void* recv_buffer, std::size_t recv_bytes, int source, unsigned tag);
// The context collectives use: the communicator's with kCollectiveBit set.
inline uint16_t collective_context(const Comm& comm) noexcept {
  return static_cast<uint16_t>(comm.context | kCollectiveBit);
}
// The tag base of the next collective on `comm`: (sequence, round) in the
// 24-bit tag field, so traffic of consecutive collectives cannot cross.
// Blocking and non-blocking collectives share this sequence; persistent
// ones (coll/schedule.cpp) take theirs with the sequence's top bit set.
inline unsigned next_tag_base(Comm& comm) noexcept { return (comm.collective_sequence++ & 0x7FFFu) << 8; }
// A barrier over `comm` on the engine (MPI_Barrier and MPI_Finalize).
[[nodiscard]] Status coll_barrier(Comm& comm);
// Node-aware forms (coll/node.cpp): `comm`'s layout, and barrier, broadcast
// and allreduce (commutative operations) through one leader per host.
[[nodiscard]] const NodeLayout& node_layout(Comm& comm);
[[nodiscard]] Status node_barrier(Comm& comm, const NodeLayout& layout);
[[nodiscard]] Status node_bcast(Comm& comm, const NodeLayout& layout, void* buffer, std::size_t bytes, int root);
[[nodiscard]] Status node_allreduce(Comm& comm, const NodeLayout& layout, void* buffer, std::size_t count,
                                    const TypeInfo& type, MPI_Datatype type_handle, MPI_Op op);
// Binomial broadcast of `bytes` from `root`.
[[nodiscard]] Status coll_bcast(Comm& comm, void* buffer, std::size_t bytes, int root);
// Reduction of `accumulator` (this rank's part on entry) to `root`, where it
// ends holding the result: binomial, or in rank order (_ordered) for
// operations that do not commute.
[[nodiscard]] Status coll_reduce(Comm& comm, void* accumulator, std::size_t count, const TypeInfo& type,
                                 MPI_Datatype type_handle, MPI_Op op, int root);
[[nodiscard]] Status coll_reduce_ordered(Comm& comm, void* accumulator, std::size_t count, const TypeInfo& type,
                                         MPI_Datatype type_handle, MPI_Op op, int root);
// True when a reduction of `bytes` on `comm` only reads the accumulator of
// every rank but the root (the shared segment carries it), so that a
// non-root may pass its send buffer. Called by every rank alike (the first
// call may map the segment).
[[nodiscard]] bool coll_reduce_reads_non_roots(Comm& comm, std::size_t bytes);
// From this size on, Allreduce (commutative op, power-of-two ranks) splits
// the vector: a reduce-scatter by recursive halving, then an allgather by
// recursive doubling, so each rank moves and reduces about 2x the vector
// instead of log2(p) whole copies (blocking and non-blocking alike).
inline constexpr std::size_t kLargeAllreduceBytes = 64 * 1024;
// In-place allreduce of `count` elements (MPI_Allreduce, context agreement).
[[nodiscard]] Status coll_allreduce(Comm& comm, void* buffer, std::size_t count, const TypeInfo& type,
                                    MPI_Datatype type_handle, MPI_Op op);

}  // namespace tern::mpi
