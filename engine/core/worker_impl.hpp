// The worker's implementation: transports, endpoints, request pools, the tag
// matcher and the protocols. Its member functions are spread over core/
// (setup, requests, wakeup) and proto/ (send and receive protocols).
#pragma once

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/endpoint.hpp"
#include "core/agent_tickets.hpp"
#include "core/callback_queue.hpp"
#include "core/cpu_hop.hpp"
#include "core/delayed_submission.hpp"
#include "core/failed_lane.hpp"
#include "core/held_cache.hpp"
#include "core/multi_transfer.hpp"
#include "core/payload_cache.hpp"
#include "core/progress_thread.hpp"
#include "core/request_impl.hpp"
#include "core/unexpected.hpp"
#include "tag/matcher.hpp"
#include "tag/offload.hpp"
#include "tag/wire.hpp"
#include "tern/engine/worker.hpp"
#include "tern/runtime/log.hpp"
#include "tern/runtime/object_pool.hpp"
#include "tern/runtime/recursive_lock.hpp"
#include "transport/iface.hpp"
#include "transport/slot_table.hpp"

namespace tern::engine {

class WorkerImpl {
 public:
  [[nodiscard]] static Status create(const WorkerParams& params, std::unique_ptr<WorkerImpl>& out);
  ~WorkerImpl();

  // Takes the worker's lock when it was created thread-safe.
  class Guard {
   public:
    // With delayed submission, whoever takes the lock dispatches what the
    // program's threads queued first: a probe, a cancel or a direct call
    // then sees every operation queued before it.
    explicit Guard(WorkerImpl& worker) : worker_(worker.thread_safe_ ? &worker : nullptr) {
      if (worker_ != nullptr) {
        if (!worker_->mutex_.try_lock()) worker_->lock_contended();
        worker_->flush_delayed();
      }
    }
    ~Guard() {
      if (worker_ != nullptr) worker_->unlock();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    WorkerImpl* worker_;  // null: the worker takes no lock
  };
  // Guard's way in when the lock is held: announce this thread, so that a
  // polling progress thread steps back once it lets go, and spin a while
  // before sleeping on the mutex (core/worker.cpp).
  void lock_contended();
  [[nodiscard]] bool lock_wanted() const noexcept { return lock_contenders_.load(std::memory_order_relaxed) != 0; }

  // Takes the lock only if no other thread holds it (a worker that is not
  // thread-safe needs none: held). Waiting threads use it, so that they do
  // not queue up behind the thread that progresses the worker for them all.
  class TryGuard {
   public:
    explicit TryGuard(WorkerImpl& worker) : worker_(worker.thread_safe_ ? &worker : nullptr) {
      if (worker_ == nullptr) return;
      if (!worker_->mutex_.try_lock()) {
        worker_ = nullptr;
        held_ = false;
        return;
      }
      worker_->flush_delayed();
    }
    ~TryGuard() {
      if (worker_ != nullptr) worker_->unlock();
    }
    TryGuard(const TryGuard&) = delete;
    TryGuard& operator=(const TryGuard&) = delete;
    [[nodiscard]] bool held() const noexcept { return held_; }

   private:
    WorkerImpl* worker_;  // null: no lock taken
    bool held_ = true;
  };
  // Lets the lock go, after telling waiters of the completions made under it.
  void unlock() noexcept {
    if (unpublished_completions_ != 0) publish_completions();
    mutex_.unlock();
  }

  // --- setup (core/worker_setup.cpp)
  [[nodiscard]] std::span<const std::byte> address() const noexcept { return address_; }
  [[nodiscard]] Status connect(std::span<const std::byte> peer_address, Endpoint*& endpoint);
  [[nodiscard]] Endpoint* find_endpoint(uint64_t uuid) const noexcept;
  [[nodiscard]] bool owns(const Endpoint* endpoint) const noexcept {
    return endpoint != nullptr && endpoint->worker == this;
  }
  [[nodiscard]] std::vector<std::string> transport_names() const;
  // Why connect() finds no transport to the worker whose address this is.
  [[nodiscard]] std::string explain_unreachable(std::span<const std::byte> peer_address) const;

  unsigned progress() {
    unsigned events = 0;
    if (TERN_UNLIKELY(delayed_ != nullptr)) events += dispatch_delayed_if_any();
    for (transport::Iface* iface : iface_list_) events += iface->progress();
    if (TERN_UNLIKELY(!callbacks_.empty())) events += run_callbacks();
    // Only when there were any, to keep a store out of the empty polls that
    // wait loops spin on (osu_bw 1 KiB on the 2-core VM, medians of 8
    // alternating runs against c80f6d1, which had no count: a store on
    // every poll 2.7 against 3.0 GB/s, one only after events 2.9 against 2.8).
    if (events != 0) progress_events_ += events;
    return events;
  }
  // Events progress() has handled so far (messages in, completions).
  [[nodiscard]] uint64_t progress_events() const noexcept { return progress_events_; }

  // --- requests (core/requests.cpp)
  [[nodiscard]] RequestImpl* new_request(RequestKind kind) noexcept;
  void complete(RequestImpl* request, Status status) noexcept;
  void release(RequestImpl* request) noexcept;
  [[nodiscard]] Status cancel(RequestImpl* request) noexcept;
  // The send half of cancel (proto/send_cancel.cpp).
  [[nodiscard]] Status cancel_send(RequestImpl* request) noexcept;
  // --- completion callbacks (core/callbacks.cpp)
  // The worker takes over `request`: the callback runs once it ends (at the
  // next progress if it has). NoMemory (the request is released) when no
  // slot can be had.
  [[nodiscard]] Status attach_callback(RequestImpl* request, const Callback& callback) noexcept;
  // The same in two steps, for operations that must not fail once started:
  // a slot taken beforehand (null, logged, when out of memory), then
  // attached. An internal slot runs in progress even with a notifier.
  [[nodiscard]] CallbackSlot* new_callback_slot(const Callback& callback, bool internal) noexcept;
  void attach_slot(RequestImpl* request, CallbackSlot* slot) noexcept;
  void recycle_slot(CallbackSlot* slot) noexcept { callbacks_.recycle(slot); }
  // complete() of a request with a callback: queues the callback, frees the request.
  void queue_callback(RequestImpl* request, Status status) noexcept;
  // Queues a taken slot's callback with what it reports.
  void post_slot(CallbackSlot* slot, Status status, const TagRecvInfo& info) noexcept;
  // Runs a user's callback now, or hands it to its notifier.
  void deliver(const Callback& callback, Status status, const TagRecvInfo& info);
  // Runs the callbacks queued so far; returns how many ran.
  unsigned run_callbacks();
  // Progresses (and, by the wait mode, sleeps) until `done()` holds. In a
  // thread-safe worker `done()` must be safe without the lock (a request's
  // done()): while another thread holds it, the wait only looks.
  template <typename Done>
  void wait_until(Done&& done);

  // --- delayed submission (core/delayed_submission.cpp)
  // Whether a tag call made on this thread goes through the queue: delayed
  // submission is on, and the caller is not the progress thread itself (a
  // callback posting its next operation goes the direct way).
  [[nodiscard]] bool delays_calls_here() const noexcept {
    return delayed_ != nullptr && progress_thread_ != nullptr && !progress_thread_->is_current();
  }
  // Queues a send or receive for the lock holder and returns InProgress with
  // a request (`submission.request` null) or for the callback. Argument
  // errors come back at once; with the queue full or the reserve empty the
  // call is made under the lock instead, after what was queued before it.
  [[nodiscard]] Status submit(Submission submission, Request*& request, TagRecvInfo* info);
  // Under the lock: dispatches what the program's threads queued, in order
  // (returns how many), unless a dispatch is running already further up.
  unsigned dispatch_delayed_if_any() {
    if (!delayed_->pending() || delayed_->dispatching) return 0;
    return dispatch_delayed();
  }
  unsigned dispatch_delayed();
  // Tops the reserve of requests up (DelayedSubmission::kReserveTarget).
  void refill_reserve();
  void flush_delayed() {
    if (TERN_UNLIKELY(delayed_ != nullptr)) (void)dispatch_delayed_if_any();
  }
  // Gives a done delayed handle back without the lock.
  void release_delayed(RequestImpl* request) noexcept;
  // A wait of the program's own that leaves progress to the thread: spins on
  // `done`, then sleeps until the thread handles events (at most 1 ms).
  void wait_delayed(bool (*done)(void*), void* arg);

  // --- argument checks of the tag calls (logged as `call`), shared by the
  // direct calls and delayed submission, which makes them without the lock.
  [[nodiscard]] Status check_endpoint(const char* call, const Endpoint* ep) const {
    if (TERN_LIKELY(owns(ep))) return Status::Ok;
    TERN_LOG(Error, "%s: unknown endpoint %p", call, static_cast<const void*>(ep));
    return Status::InvalidParam;
  }
  [[nodiscard]] static Status check_buffer(const char* call, const void* buffer, std::size_t length) {
    if (TERN_LIKELY(buffer != nullptr || length == 0)) return Status::Ok;
    TERN_LOG(Error, "%s: null buffer with length %zu", call, length);
    return Status::InvalidParam;
  }
  [[nodiscard]] static Status check_length(const char* call, std::size_t length) {
    if (TERN_LIKELY(length <= kMaxMessageLength)) return Status::Ok;
    TERN_LOG(Error, "%s: length %zu exceeds the maximum message length %zu", call, length, kMaxMessageLength);
    return Status::MessageTooLong;
  }
  // The direct call a submission stands for (tag_send_nb or tag_recv_nb).
  [[nodiscard]] Status start(const Submission& submission, Request*& request, TagRecvInfo* info) {
    return submission.op == Submission::Op::Send
               ? tag_send_nb(submission.endpoint, submission.buffer, submission.length, submission.tag, request,
                             submission.flags)
               : tag_recv_nb(submission.buffer, submission.length, submission.tag, submission.mask, request, info);
  }

  // --- held sends (proto/held_send.cpp, Worker's kSendHeld): Ok when
  // taken (the caller's send is complete), NotFound when the ordinary way
  // must carry it, or the error the held copy's send failed with.
  [[nodiscard]] Status send_held(Endpoint* ep, const void* buffer, std::size_t length, uint64_t tag);
  // Held copies still waiting for their receivers. Changed under the lock;
  // atomic for Worker::finish_held_sends, whose wait reads it without.
  std::atomic<std::size_t> held_bytes_{0};
  HeldCache held_cache_;
  // Held sends to other hosts go through this host's progress agent
  // (proto/agent_send.cpp; Worker::set_agent): the endpoint to it, this
  // process's index among the agent's senders, the last ticket given.
  [[nodiscard]] Status send_through_agent(Endpoint* ep, const void* buffer, std::size_t length, uint64_t tag);
  // send_progress of a ticket (Ok once out) or an agent's announcement
  // (InProgress: it waits for the receiver's ack).
  [[nodiscard]] Status send_agent_message(RequestImpl* r);
  // A held message reached its receiver (an announcement acknowledged) or
  // the receiver's agent: its sender hears (kAmAgentDone), when connected.
  void tell_sender(uint64_t sender_uuid, std::size_t length);
  Endpoint* agent_ = nullptr;
  uint64_t agent_sender_index_ = 0;
  Worker::AgentDirectory agent_directory_ = nullptr;
  void* agent_directory_arg_ = nullptr;
  std::unordered_map<uint64_t, std::vector<std::byte>> peer_agents_;  // the directory's answers, by peer
  uint64_t last_ticket_ = 0;
  // Every peer's packed address, by uuid: the agent is told where to take
  // a held message.
  std::unordered_map<uint64_t, std::vector<std::byte>> peer_addresses_;

  // --- send protocols (proto/tag_send.cpp)
  [[nodiscard]] Status tag_send_nb(Endpoint* ep, const void* buffer, std::size_t length, uint64_t tag,
                                   Request*& request, unsigned flags);
  // Pushes what it can of a send: Ok (all out, nothing to wait for),
  // InProgress (all out, waiting for an ack), WouldBlock, or an error.
  [[nodiscard]] Status send_progress(RequestImpl* request);
  // Queues `request` behind the endpoint's waiting sends.
  void enqueue_send(Endpoint* ep, RequestImpl* request);
  // An internal message (ack, hello): sent now, or queued if the lane is full.
  void send_control(Endpoint* ep, uint8_t am_id, uint64_t word0, uint64_t word1);
  // The lane has room again: drains the endpoint's send queue.
  static Status on_lane_ready(transport::PendingEntry* entry);
  [[nodiscard]] Status drain_send_queue(Endpoint* ep);
  // A send step ended with `status` (see send_progress): completes or waits.
  void finish_send_step(RequestImpl* request, Status status);

  // --- receive protocols (proto/tag_recv.cpp, proto/rndv.cpp)
  [[nodiscard]] Status tag_recv_nb(void* buffer, std::size_t length, uint64_t tag, uint64_t mask,
                                   Request*& request, TagRecvInfo* info);
  [[nodiscard]] Status tag_probe(uint64_t tag, uint64_t mask, TagRecvInfo& info, Message** message);
  [[nodiscard]] Status tag_msg_recv_nb(void* buffer, std::size_t length, Message* message, Request*& request,
                                       TagRecvInfo* info);
  void start_get(RequestImpl* request, Endpoint* sender, transport::RemoteMemory remote, std::size_t length,
                 uint64_t sender_request);
  // A receive matched a held message's ticket (proto/agent_recv.cpp): its
  // data is fetched from the agent now, or once the agent announces it.
  void bind_ticket(RequestImpl* request, uint64_t sender_uuid, uint64_t ticket, std::size_t length);
  AgentTickets tickets_;
  // The earliest posted receive an arriving message tagged `tag` matches,
  // taken out of matching (and back from the tag device, where a sender may
  // have claimed it first: the next one then); null when none matches.
  [[nodiscard]] tag::ExpectedEntry* match_posted(uint64_t tag) {
    for (;;) {
      tag::ExpectedEntry* entry = matcher_.match_expected(tag);
      if (entry == nullptr || TERN_LIKELY(offload_.claim(entry))) return entry;
    }
  }
  // Told to the tag device (transport/tag_device.hpp): blocking waits
  // mark their start and end.
  // Counts the threads waiting (each wait says when it starts and ends,
  // under the worker's lock): the tag device hears "waiting" while any
  // thread waits, and waits see whether they are alone (wait_inl.hpp).
  void set_waiting(bool waiting) noexcept {
    const int before = waiting_threads_.load(std::memory_order_relaxed);
    const int now = waiting ? before + 1 : (before > 0 ? before - 1 : 0);
    waiting_threads_.store(now, std::memory_order_relaxed);
    if ((before == 0) == (now == 0)) return;
    if (transport::TagDevice* device = offload_.device()) device->set_owner_waiting(now != 0);
  }
  [[nodiscard]] int waiting_threads() const noexcept { return waiting_threads_.load(std::memory_order_relaxed); }
  // Whether more threads wait than the worker has cores: the CPUs of the
  // process's mask shared by the processes of the job on this host (with one
  // such core or less, two waiting threads are a crowd).
  [[nodiscard]] bool crowded() const noexcept { return waiting_threads() > cores_for_waiters_; }
  // In a crowd a wait that has polled idle this many times yields its core
  // rather than spin on (a few hundred nanoseconds): the thread its request
  // depends on may need that core.
  static constexpr std::size_t kCrowdedSpins = 32;
  int cores_for_waiters_ = 1;
  // A sender filled a receive of the tag device (proto/offload.cpp).
  static void on_tag_completion(void* arg, const transport::TagDeviceCompletion& completion);

  // --- peers that break the protocol (core/peers.cpp)
  // Drops a malformed message: logs it, naming the peer that sent it (or
  // claims to have; null: the message does not say), and disconnects a peer
  // that does so repeatedly. Returns false, for the handler to return.
  bool reject(Endpoint* sender, const char* what, std::size_t length);
  // The same for a message naming a peer this worker does not know.
  bool reject_unknown(uint64_t claimed_uuid, const char* what, std::size_t length);
  // Fails the endpoint's lane for good and every operation that waits on the peer.
  void fail_peer(Endpoint* ep, const char* why);
  // A transport gave up on `lane` (or, with it null, on receiving through `iface`).
  static void on_transport_failure(void* arg, transport::Iface* iface, transport::Ep* lane, const char* why);
  // How messages name the peer: its job's name for it, else its host.
  [[nodiscard]] std::string peer_label(Endpoint* ep) const;
  [[nodiscard]] std::string label_of(uint64_t uuid) const;
  // Acknowledges the send `ack_id` of the peer behind `ep`.
  void send_ack(Endpoint* ep, uint64_t ack_id) { send_control(ep, tag::kAmSendAck, ack_id, uuid_); }

  PeerFailureHandler peer_failure_handler_ = nullptr;
  void* peer_failure_arg_ = nullptr;
  PeerNamer peer_namer_ = nullptr;
  void* peer_namer_arg_ = nullptr;
  uint64_t rejected_messages_ = 0;
  uint64_t rejected_unknown_ = 0;  // of those, naming no peer this worker knows
  // An unexpected message is kept whole in memory: one announced larger
  // than the node's memory cannot be, whoever sent it.
  std::size_t max_unexpected_bytes_ = SIZE_MAX;
  FailedLane failed_lane_;

  // --- wakeup (core/wakeup.cpp)
  [[nodiscard]] int efd() const noexcept { return epoll_fd_; }
  [[nodiscard]] Status arm();
  [[nodiscard]] Status wait_event(int timeout_ms);
  // The sleep of wait_event, for a caller that armed already.
  [[nodiscard]] Status sleep_armed(int timeout_ms);
  [[nodiscard]] Status signal();
  void wait_mem(const uint64_t* address, uint64_t old_value);

  // Protocol state, shared by the files above.
  WorkerParams params_;
  uint64_t uuid_ = 0;
  bool thread_safe_ = false;
  runtime::RecursiveLock mutex_;
  // Threads in lock_contended(): a polling progress thread leaves the lock
  // to them instead of taking it back at once.
  std::atomic<unsigned> lock_contenders_{0};
  // Whether lock_contended() spins before it sleeps: the holder can run on
  // another core (waiters have a core each, or the progress thread has one).
  bool spin_for_lock_ = false;
  // About 100 us of spinning: longer than a poll of progress, shorter than
  // a large zero copy, for which sleeping costs little.
  static constexpr unsigned kLockSpins = 2048;
  std::vector<std::unique_ptr<transport::Iface>> ifaces_;  // best first
  std::vector<transport::Iface*> iface_list_;  // the ones progress() polls
  std::vector<std::byte> address_;
  std::unordered_map<uint64_t, std::unique_ptr<Endpoint>> endpoints_;
  tag::Matcher matcher_;
  runtime::ObjectPool<RequestImpl> requests_{256};
  runtime::ObjectPool<Message> unexpected_{64};
  PayloadCache payloads_;  // unexpected eager bytes beyond a Message's inline data
  int epoll_fd_ = -1;
  int signal_fd_ = -1;  // eventfd for signal()
  std::size_t blocked_endpoints_ = 0;  // endpoints whose sends wait for lane resources
  CpuHop cpu_hop_;  // single-threaded workers only
  // Sends that complete on the receiver's acknowledgement, by the id the
  // send gave (its generation and index here): an ack from a peer is looked
  // up, never taken as a pointer, and a stale or forged id finds nothing.
  transport::SlotTable<RequestImpl*> acks_;

  // Sleeping in a thread-safe worker: one thread at a time (the leader)
  // sleeps on the wakeup fd; the others (followers) wait on a condition
  // variable for a completion or for the leader's place. Several threads in
  // epoll_wait on one fd would steal each other's wakeups when they re-arm.
  void sleep_thread_safe(uint64_t completions_seen, int timeout_ms);
  std::mutex sleep_mutex_;
  std::condition_variable sleep_cv_;
  bool leader_asleep_ = false;           // guarded by sleep_mutex_
  std::atomic<uint64_t> completions_{0};  // counted only when thread-safe
  // Completions made under the lock and not yet counted in completions_:
  // counted once when the lock is let go (one atomic per hold, not one per
  // request; a window of 64 receives completes in one progress).
  uint64_t unpublished_completions_ = 0;
  // Counts them and wakes the threads asleep as followers (core/requests.cpp).
  void publish_completions() noexcept;
  // completions_ as it will be once the lock holder lets go: under the lock.
  [[nodiscard]] uint64_t completions_under_lock() const noexcept {
    return completions_.load(std::memory_order_relaxed) + unpublished_completions_;
  }
  std::atomic<int> waiting_threads_{0};   // in a wait now (set_waiting); read without the lock
  std::atomic<unsigned> followers_{0};
  // Last, so that adding it moved no other member.
  uint64_t progress_events_ = 0;
  // Tag-matching offload (tag/offload.hpp): what the tag device holds, and
  // the size from which sends look for a receive there (SIZE_MAX: never).
  tag::Offload offload_;
  // Sends from the first size look for a receive on the peer's tag device;
  // below the second only for one they fill with a plain copy.
  std::size_t offload_send_threshold_ = SIZE_MAX;
  std::size_t offload_unmapped_threshold_ = SIZE_MAX;
  // Runs while TERN_PROGRESS asks for one (core/progress_thread.hpp); the
  // public Worker starts it once the worker is whole and stops it before
  // anything of the worker goes.
  std::unique_ptr<ProgressThread> progress_thread_;
  CallbackQueue callbacks_;
  Notifier* notifier_ = nullptr;  // Worker::set_notifier
  MultiTransfers multi_transfers_;  // proto/multi_*.cpp
  // Set when tag calls are queued for the progress thread (TERN_DELAYED_SUBMISSION).
  std::unique_ptr<DelayedSubmission> delayed_;

 private:
  WorkerImpl() = default;
  void register_am_handlers(transport::Iface& iface);
  [[nodiscard]] Status open_ifaces();
  [[nodiscard]] Status open_wakeup();
  void attach_tag_device();
  void dispatch(const Submission& submission);
};

// False (logged, naming `call`) when the callback has no function.
bool check_callback(const char* call, const Callback& callback);

// Returns an unexpected message (and its heap data) to the pool.
void free_unexpected(WorkerImpl& worker, Message* message);

// Receive-side handlers of the tag protocols (proto/*.cpp), registered on
// every iface with the worker as `arg`.
namespace proto {
bool on_hello(void* arg, const void* data, std::size_t length);
bool on_eager(void* arg, const void* data, std::size_t length);
bool on_eager_sync(void* arg, const void* data, std::size_t length);
bool on_eager_first(void* arg, const void* data, std::size_t length);
bool on_eager_middle(void* arg, const void* data, std::size_t length);
bool on_rndv_rts(void* arg, const void* data, std::size_t length);
bool on_send_ack(void* arg, const void* data, std::size_t length);
bool on_send_cancel(void* arg, const void* data, std::size_t length);
bool on_send_canceled(void* arg, const void* data, std::size_t length);
bool on_cancel_refused(void* arg, const void* data, std::size_t length);
bool on_agent_ticket(void* arg, const void* data, std::size_t length);
bool on_agent_rts(void* arg, const void* data, std::size_t length);
bool on_agent_done(void* arg, const void* data, std::size_t length);
}  // namespace proto

}  // namespace tern::engine

#include "core/wait_inl.hpp"
