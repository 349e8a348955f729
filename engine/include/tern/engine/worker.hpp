// The engine's entry point: a Worker owns transports, endpoints, requests and
// the tag matcher. Calls on one worker come from one thread at a time unless
// the worker was created thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tern/engine/callback.hpp"
#include "tern/engine/multi.hpp"
#include "tern/engine/request.hpp"
#include "tern/runtime/config.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine {

class Endpoint;    // a connection to one peer worker
struct Message;    // an unexpected message taken out of the matcher by tag_probe
class WorkerImpl;
namespace rma {
struct Access;  // the RMA calls (rma.hpp) reach the worker's internals through it
}

inline constexpr uint64_t kTagMaskAll = ~uint64_t{0};
// Longer messages are refused with MessageTooLong (lengths that came from a
// negative int land here too).
inline constexpr std::size_t kMaxMessageLength = std::size_t{1} << 46;
// Frames in one multi-buffer transfer (tag_send_multi).
inline constexpr std::size_t kMaxMultiFrames = std::size_t{1} << 20;

enum SendFlags : unsigned {
  kSendSync = 1u << 0,  // complete only once the receiver has matched the message
  // Smart progression (../shared/seeds/003): a send to a peer on this host
  // that would wait for its receiver (rendezvous sizes) is held instead: the
  // data is copied into memory the peer maps (at most
  // Config::agent_memory bytes held at once), the call completes (Ok), and
  // the receiver copies it out when a receive matches; the copy goes back
  // to the arena once the receiver has it. A receive the peer's tag device
  // holds is filled at once instead, as for any send. Ignored with
  // kSendSync, to peers on other hosts, below the rendezvous sizes and when
  // the held memory is full: the send then goes the ordinary way.
  kSendHeld = 1u << 1,
};

// Told when the worker disconnects a peer: it sent malformed messages
// repeatedly, broke the protocol on a connection, or its shared queue was
// found corrupted. From then on every operation on `endpoint` fails (sends,
// acknowledgements awaited from it, rendezvous and RMA with it); receives
// the worker cannot tie to the peer are left to the caller.
using PeerFailureHandler = void (*)(void* arg, Endpoint* endpoint, Status reason);
// Names a peer for messages ("rank 3 (host h2)") by the id its worker
// address carries; empty when the namer does not know it.
using PeerNamer = std::string (*)(void* arg, uint64_t peer_id);

struct WorkerParams {
  // Names this job's shared resources (shm segments, wakeup sockets). Empty:
  // TERN_JOB_ID from the environment, else one made from the process id.
  std::string job_id;
  // Local processes that will connect to this worker. The shared-memory
  // segment is unlinked once that many have attached (0: when the worker ends).
  unsigned local_peers = 0;
  // Every process that will connect is on this host (a one-node job): tcp,
  // which serves other hosts, is then not opened when shm is, so that no
  // listener waits and no poll of it lengthens the wait loops.
  bool on_host_only = false;
  // Serialize every call with a lock, for MPI_THREAD_MULTIPLE-style use.
  bool thread_safe = false;
  // Who progresses the worker (TERN_PROGRESS by default). With a progress
  // thread the worker is thread-safe whatever `thread_safe` says, since the
  // thread and the caller share it; the thread ends with the worker.
  runtime::ProgressMode progress = runtime::global_config().progress;
  // Thresholds and switches; by default the process's TERN_* configuration.
  runtime::Config config = runtime::global_config();
};

class Worker {
 public:
  [[nodiscard]] static Status create(const WorkerParams& params, std::unique_ptr<Worker>& out);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // The packed address peers pass to connect().
  [[nodiscard]] std::span<const std::byte> address() const noexcept;
  // An endpoint to the worker whose packed address this is (the same
  // endpoint if called twice). Unreachable when no transport reaches it,
  // InvalidParam when the address is malformed.
  [[nodiscard]] Status connect(std::span<const std::byte> peer_address, Endpoint*& endpoint);

  // Runs every transport once; returns the number of events handled.
  unsigned progress();
  // How this worker is progressed (WorkerParams::progress). With a progress
  // thread, requests complete while the caller is away, so a caller that
  // looks at Request::done() from outside the worker's calls should use
  // test() instead, which reads it under the worker's lock.
  [[nodiscard]] runtime::ProgressMode progress_mode() const noexcept;
  // Delayed submission (TERN_DELAYED_SUBMISSION, ../shared/seeds/004): with
  // a progress thread, tag_send_nb and tag_recv_nb (both forms) called from
  // any other thread take no lock. They check their arguments (errors come
  // back at once, as always), queue the operation for the progress thread,
  // and return InProgress: never Ok, since whether it ends at once is known
  // only once dispatched. The callback forms' callback then runs whatever
  // the end, even an immediate one. test(), wait() and release() of such a
  // request take no lock either. Every call that does take the lock (probe,
  // cancel, multi-buffer, RMA, progress) dispatches what is queued first, so
  // each thread's operations reach matching in the order it made them. When
  // the queue (1024 entries) is full, a call goes the locked way instead.
  [[nodiscard]] bool delays_submissions() const noexcept;
  // Blocks until done(arg) holds: with delayed submission without the lock,
  // leaving progress to the thread (spin, then sleep until it handles
  // events); otherwise as wait() waits. For front ends' waits on conditions
  // of their own (several requests). done(arg) is not called again once it
  // returned true, so it may act when it holds (take a message, a lock).
  void wait_until(bool (*done)(void*), void* arg);

  // --- Tag API. Non-blocking calls return Ok when the operation finished at
  // once (`request` is null), InProgress with a request to test/wait and
  // release, or an error (nothing was started).
  [[nodiscard]] Status tag_send_nb(Endpoint* endpoint, const void* buffer, std::size_t length, uint64_t tag,
                                   Request*& request, unsigned flags = 0);
  // Receives the earliest message whose tag equals `tag` on the bits set in `mask`.
  [[nodiscard]] Status tag_recv_nb(void* buffer, std::size_t length, uint64_t tag, uint64_t mask,
                                   Request*& request, TagRecvInfo* info = nullptr);
  // Ok and `info` when a matching message has arrived (its first part, for long
  // messages), NotFound otherwise. With `message` non-null the message is
  // removed from matching and handed over for tag_msg_recv_nb.
  [[nodiscard]] Status tag_probe(uint64_t tag, uint64_t mask, TagRecvInfo& info, Message** message = nullptr);
  [[nodiscard]] Status tag_msg_recv_nb(void* buffer, std::size_t length, Message* message, Request*& request,
                                       TagRecvInfo* info = nullptr);

  // The same with a completion callback instead of a request (callback.hpp
  // says when it runs: only after InProgress). The worker keeps the request;
  // such operations cannot be canceled. `info` is filled on an immediate Ok.
  [[nodiscard]] Status tag_send_nb(Endpoint* endpoint, const void* buffer, std::size_t length, uint64_t tag,
                                   const Callback& callback, unsigned flags = 0);
  [[nodiscard]] Status tag_recv_nb(void* buffer, std::size_t length, uint64_t tag, uint64_t mask,
                                   const Callback& callback, TagRecvInfo* info = nullptr);
  [[nodiscard]] Status tag_msg_recv_nb(void* buffer, std::size_t length, Message* message, const Callback& callback,
                                       TagRecvInfo* info = nullptr);
  // Hands a request the caller holds (any kind: tag, RMA) to the worker:
  // `callback` runs once from progress when it ends, or at the next progress
  // if it has ended already, and the worker releases it. InvalidParam for a
  // null request or function (the request stays the caller's then).
  [[nodiscard]] Status set_callback(Request* request, const Callback& callback);
  // Routes the callbacks that name no notifier of their own to `notifier`
  // (null: run them in progress again), for callbacks ending from now on.
  // The notifier must outlive the worker or the next set_notifier.
  void set_notifier(Notifier* notifier);

  // Multi-buffer transfers (multi.hpp says how they travel, match and
  // complete). Sends `frames` as one transfer tagged `tag`; the frames'
  // buffers must stay unchanged until the callback runs. InvalidParam for a
  // bad endpoint or frame, Unsupported for device memory, MessageTooLong
  // beyond kMaxMultiFrames frames or kMaxMessageLength bytes in a frame.
  [[nodiscard]] Status tag_send_multi(Endpoint* endpoint, std::span<const SendFrame> frames, uint64_t tag,
                                      const Callback& callback);
  // Receives the earliest transfer whose tag matches (tag, mask): each frame
  // into memory from `allocator`, listed in `frames` (cleared first; it must
  // outlive the receive) by the time the callback runs with the sender's tag
  // and the transfer's total length in bytes.
  [[nodiscard]] Status tag_recv_multi(uint64_t tag, uint64_t mask, const FrameAllocator& allocator,
                                      std::vector<RecvFrame>& frames, const Callback& callback);

  // Blocking forms: progress until done.
  [[nodiscard]] Status tag_send(Endpoint* endpoint, const void* buffer, std::size_t length, uint64_t tag,
                                unsigned flags = 0);
  [[nodiscard]] Status tag_recv(void* buffer, std::size_t length, uint64_t tag, uint64_t mask,
                                TagRecvInfo* info = nullptr);

  // Progresses once if needed; InProgress while running, then the final
  // status. The request stays valid: release it once done.
  [[nodiscard]] Status test(Request* request);
  // Progresses until the request is done, releases it, and returns its final
  // status (read request->info() before, if needed, by test() instead).
  [[nodiscard]] Status wait(Request* request);
  // Cancels a receive not yet matched (it ends Canceled); Busy when a
  // message matched it already. For a send: Ok when it had not left (it
  // ends Canceled); InProgress when it is out and waits for its receiver (a
  // rendezvous or synchronous send): the receiver is asked, and the send
  // ends Canceled if no receive had matched it, else as usual; Busy when it
  // needs nothing more from the receiver (it completes as usual).
  [[nodiscard]] Status cancel(Request* request);
  // Gives a done request back to the worker.
  void release(Request* request);
  // The same for several at once: a thread-safe worker takes its lock once.
  void release(std::span<Request* const> requests);

  // --- Progress agent (smart progression; the Job sets these up in jobs
  // over several hosts). Held sends (kSendHeld) to peers that do not map
  // this worker's arena go through `agent`, this host's progress agent,
  // which carries them to their receivers while both sides compute;
  // `sender_index` is this process's number among the agent's senders
  // (unique on the host, below 2^16). `directory` (optional) gives the
  // packed address of the agent on a peer's host (false: none known), so
  // that a held message goes on to that agent, which keeps it on the
  // receiver's host until the receive comes.
  using AgentDirectory = bool (*)(void* arg, uint64_t peer_id, std::vector<std::byte>& agent_address);
  void set_agent(Endpoint* agent, unsigned sender_index, AgentDirectory directory = nullptr,
                 void* directory_arg = nullptr);
  // The agent's side: announces `data` (`length` bytes, which must stay
  // unchanged until the callback runs) to `receiver` as the message that
  // `sender_uuid` sent under `ticket`; the receiver fetches it once that
  // ticket matched one of its receives. The callback runs once the
  // receiver has it (the sender is told too). InProgress, or an error with
  // nothing started.
  [[nodiscard]] Status agent_forward(Endpoint* receiver, const void* data, std::size_t length,
                                     uint64_t sender_uuid, uint64_t ticket, const Callback& callback);
  // The agent's side, for a message it passed to another agent: tells its
  // sender that the message has left this host (its held bytes go down).
  void agent_done(uint64_t sender_uuid, std::size_t length);
  // Progresses until every held send of this worker has reached its
  // receiver (a program ending, MPI_Finalize: the receivers must have
  // posted their receives).
  void finish_held_sends();

  // --- Wakeup (see ../shared/seeds/002): a file descriptor for poll/epoll
  // that becomes readable on new events after arm() returned Ok.
  [[nodiscard]] int efd() const noexcept;
  // Ok when armed; Busy while events are pending (progress until 0, then retry).
  [[nodiscard]] Status arm();
  // Sleeps until an event arrives (arms first; returns at once if Busy).
  // With a progress thread, which takes the events itself: until the
  // thread has handled events since arm() (or signal()), at most 10 ms.
  [[nodiscard]] Status wait_event();
  // Wakes a thread sleeping in wait_event() or on efd(). Safe from any thread.
  [[nodiscard]] Status signal();
  // Sleeps until the aligned 8-byte word at `address` differs from
  // `old_value` or an event arrives. For memory that peers store to directly;
  // the word is read with atomic loads.
  void wait_mem(const uint64_t* address, uint64_t old_value);

  // --- Memory. Buffers from mem_alloc are mapped by peers on this node, so
  // a rendezvous from or into them is one memcpy instead of a kernel copy.
  // Falls back to ordinary memory when no transport offers any; aligned to
  // at least 64 bytes. Null only when out of memory.
  [[nodiscard]] void* mem_alloc(std::size_t size);
  // Frees what mem_alloc returned (null is ignored).
  void mem_free(void* pointer);
  // Whether [pointer, pointer + length) lies in memory from mem_alloc that
  // peers on this node map (a transport's shared arena).
  [[nodiscard]] bool mem_mapped_by_peers(const void* pointer, std::size_t length);
  // Where the peer behind `endpoint` has its [address, address + length)
  // mapped in this process, if it does (memory from its mem_alloc, reached
  // over shared memory); null otherwise. Valid while the endpoint lives.
  [[nodiscard]] void* map_peer_memory(Endpoint* endpoint, uint64_t address, std::size_t length);

  // Unlinks the names of this worker's shared resources now (for a process
  // about to end without destroying the worker: abort, fatal errors).
  void release_shared_names() noexcept;

  // Names of the transports this worker opened, best first (for tern_info and tests).
  [[nodiscard]] std::vector<std::string> transport_names() const;
  // The transport chosen for an endpoint ("self", "shm", "tcp").
  [[nodiscard]] const char* transport_of(const Endpoint* endpoint) const noexcept;
  // The same with its route where there is more to say ("tcp on eth0").
  [[nodiscard]] std::string describe(const Endpoint* endpoint) const;
  // The host name the endpoint's peer published in its address.
  [[nodiscard]] std::string peer_host(const Endpoint* endpoint) const;
  // Why connect() found no transport to the worker whose address this is
  // ("no common transport (here: self,shm; there: self,shm; shm is on-host only; ...)").
  [[nodiscard]] std::string explain_unreachable(std::span<const std::byte> peer_address) const;
  // --- Peers that misbehave. Every message is checked before use; a bad
  // one is dropped with an error naming its sender (by set_peer_name or the
  // namer, else its host), and a peer that keeps sending them, or breaks the
  // protocol of a connection, is disconnected and the handler told.
  void set_peer_name(Endpoint* endpoint, std::string name);
  [[nodiscard]] std::string peer_name(Endpoint* endpoint);
  void set_peer_namer(PeerNamer namer, void* arg);
  void on_peer_failure(PeerFailureHandler handler, void* arg);
  // Not Ok once the endpoint's peer was disconnected (the reason its calls fail with).
  [[nodiscard]] Status peer_status(const Endpoint* endpoint) const noexcept;
  // The id the peer's worker address carries (what a PeerNamer is given); 0
  // for an endpoint of another worker.
  [[nodiscard]] uint64_t peer_id(const Endpoint* endpoint) const noexcept;
  // Messages dropped as malformed so far (by the protocols; the transports
  // count their own).
  [[nodiscard]] uint64_t rejected_messages() const noexcept;
  // Whether a peer may write into [address, address + length) for this
  // worker: a receive into it is posted or being filled, or an RMA
  // operation or a multi-buffer transfer (wherever its frames are) is under
  // way. False means sharing the range in place (kMemShareExisting) loses
  // no peer's write. A walk over every request: not for hot paths.
  [[nodiscard]] bool receiving_into(const void* address, std::size_t length);
  // What the worker counts anyway, for tools (MPI_T performance variables):
  // a snapshot under the worker's lock. Tag sends are counted when posted,
  // by the transport of their endpoint.
  struct Statistics {
    std::size_t posted_receives = 0;      // in the matcher, not matched yet
    std::size_t unexpected_messages = 0;  // arrived, matched by no receive yet
    uint64_t rejected_messages = 0;
    uint64_t sends_self = 0;
    uint64_t sends_shm = 0;
    uint64_t sends_tcp = 0;
    uint64_t sends_verbs = 0;
  };
  [[nodiscard]] Statistics statistics();

  // Messages from this size on go by rendezvous (SIZE_MAX: never); with
  // `mapped_memory`, for buffers from mem_alloc.
  [[nodiscard]] std::size_t rndv_threshold(const Endpoint* endpoint, bool mapped_memory = false) const noexcept;

 private:
  friend struct rma::Access;
  explicit Worker(std::unique_ptr<WorkerImpl> impl);
  std::unique_ptr<WorkerImpl> impl_;
};

}  // namespace tern::engine
