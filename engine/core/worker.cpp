// The public Worker: argument checks and locking around WorkerImpl.
#include "tern/engine/worker.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "core/worker_impl.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

namespace {

// Until `request` is done: with the progress thread's queue, without the lock.
void await_done(WorkerImpl& impl, Request* request) {
  if (RequestImpl::from(request)->delayed_handle) {
    return impl.wait_delayed([](void* r) { return static_cast<Request*>(r)->done(); }, request);
  }
  impl.wait_until([request] { return request->done(); });
}

// Whether a polling progress thread can count on a core of its own: it is
// bound to CPUs no rank is (ternrun's TERN_PROGRESS_CPUS), or the process
// may run on two CPUs for each process of the job on this host. Without one
// every hand-off to the thread waits for a time slice (osu_latency_mt -t 1:1
// on the 2-core VM: 0.13 us waiting in the caller's own progress, 8 us
// through the thread).
// CPUs this process may run on (0 when it cannot tell).
int cpus_allowed() {
  cpu_set_t allowed;
  return sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
}

bool progress_thread_has_a_core(const WorkerParams& params) {
  if (!params.config.progress_cpus.empty()) return true;
  return static_cast<unsigned>(cpus_allowed()) >= 2 * (params.local_peers + 1);
}

// The cores this process's waiting threads can count on: its mask's CPUs
// shared among the job's processes on this host, at least one.
int cores_for_waiters(const WorkerParams& params) {
  return std::max(1, cpus_allowed() / static_cast<int>(params.local_peers + 1));
}

// Delayed submission by TERN_DELAYED_SUBMISSION (config.cpp says when auto
// turns it on).
bool wants_delayed_submission(const WorkerParams& params) {
  switch (params.config.delayed_submission) {
    case runtime::Switch::On: return params.progress != runtime::ProgressMode::Caller;
    case runtime::Switch::Off: return false;
    case runtime::Switch::Auto: break;
  }
  return params.progress == runtime::ProgressMode::Thread && params.thread_safe && progress_thread_has_a_core(params);
}

}  // namespace

// A polling progress thread takes the lock back within nanoseconds of
// letting it go, while a thread asleep on the mutex needs a wakeup (on a VM
// an interrupt to a halted CPU: microseconds) and then often finds it taken
// again: MPI_Irecv + MPI_Isend + MPI_Waitall beside a polling thread cost
// their caller 0.9-1.0 us, 0.5 since (bench/call_overhead.c; 0.17 without
// the thread). Announced, the caller goes first; it
// spins while the holder runs on another core, and sleeps otherwise.
void WorkerImpl::lock_contended() {
  lock_contenders_.fetch_add(1, std::memory_order_relaxed);
  bool held = false;
  for (unsigned spins = spin_for_lock_ ? kLockSpins : 0; spins != 0 && !held; --spins) {
    cpu_relax();
    held = mutex_.try_lock();
  }
  if (!held) mutex_.lock();
  lock_contenders_.fetch_sub(1, std::memory_order_relaxed);
}

Worker::Worker(std::unique_ptr<WorkerImpl> impl) : impl_(std::move(impl)) {}
// The progress thread goes first: it may be inside progress() or asleep on
// the wakeup fd, both of which use what the rest of the worker owns.
Worker::~Worker() { impl_->progress_thread_.reset(); }

Status Worker::create(const WorkerParams& params, std::unique_ptr<Worker>& out) {
  std::unique_ptr<WorkerImpl> impl;
  if (Status s = WorkerImpl::create(params, impl); s != Status::Ok) return s;
  impl->cores_for_waiters_ = cores_for_waiters(params);
  impl->spin_for_lock_ = impl->cores_for_waiters_ > 1 ||
                         (params.progress != runtime::ProgressMode::Caller && progress_thread_has_a_core(params));
  if (params.progress != runtime::ProgressMode::Caller) {
    // The thread and the program share the worker from here on. Set before
    // the thread exists, so that both see the lock taken from the start.
    impl->thread_safe_ = true;
    if (wants_delayed_submission(params)) {
      impl->delayed_ = std::make_unique<DelayedSubmission>();
      WorkerImpl::Guard guard(*impl);
      impl->refill_reserve();
    }
    if (Status s = ProgressThread::start(*impl, params.progress, impl->progress_thread_); s != Status::Ok) return s;
    TERN_LOG(Debug, "worker: progress thread started (%s)", runtime::to_string(params.progress));
  }
  out.reset(new Worker(std::move(impl)));
  return Status::Ok;
}

std::span<const std::byte> Worker::address() const noexcept { return impl_->address(); }

Status Worker::connect(std::span<const std::byte> peer_address, Endpoint*& endpoint) {
  WorkerImpl::Guard guard(*impl_);
  return impl_->connect(peer_address, endpoint);
}

// The hot calls skip the guard's frame when the worker takes no lock, so
// that they end in a jump to WorkerImpl (a small message's send or receive
// crosses one of these each way).
unsigned Worker::progress() {
  if (TERN_LIKELY(!impl_->thread_safe_)) return impl_->progress();
  WorkerImpl::Guard guard(*impl_);
  return impl_->progress();
}

Status Worker::tag_send_nb(Endpoint* endpoint, const void* buffer, std::size_t length, uint64_t tag,
                           Request*& request, unsigned flags) {
  if (TERN_LIKELY(!impl_->thread_safe_)) return impl_->tag_send_nb(endpoint, buffer, length, tag, request, flags);
  if (impl_->delays_calls_here()) {
    return impl_->submit({.op = Submission::Op::Send,
                          .flags = flags,
                          .endpoint = endpoint,
                          .buffer = const_cast<void*>(buffer),
                          .length = length,
                          .tag = tag,
                          .callback = {}},
                         request, nullptr);
  }
  WorkerImpl::Guard guard(*impl_);
  return impl_->tag_send_nb(endpoint, buffer, length, tag, request, flags);
}

Status Worker::tag_recv_nb(void* buffer, std::size_t length, uint64_t tag, uint64_t mask, Request*& request,
                           TagRecvInfo* info) {
  if (TERN_LIKELY(!impl_->thread_safe_)) return impl_->tag_recv_nb(buffer, length, tag, mask, request, info);
  if (impl_->delays_calls_here()) {
    return impl_->submit(
        {.op = Submission::Op::Recv, .buffer = buffer, .length = length, .tag = tag, .mask = mask, .callback = {}},
        request, info);
  }
  WorkerImpl::Guard guard(*impl_);
  return impl_->tag_recv_nb(buffer, length, tag, mask, request, info);
}

Status Worker::tag_probe(uint64_t tag, uint64_t mask, TagRecvInfo& info, Message** message) {
  WorkerImpl::Guard guard(*impl_);
  return impl_->tag_probe(tag, mask, info, message);
}

Status Worker::tag_msg_recv_nb(void* buffer, std::size_t length, Message* message, Request*& request,
                               TagRecvInfo* info) {
  WorkerImpl::Guard guard(*impl_);
  return impl_->tag_msg_recv_nb(buffer, length, message, request, info);
}

Status Worker::tag_send(Endpoint* endpoint, const void* buffer, std::size_t length, uint64_t tag, unsigned flags) {
  Request* request = nullptr;
  Status status = tag_send_nb(endpoint, buffer, length, tag, request, flags);
  if (status != Status::InProgress) return status;
  return wait(request);
}

Status Worker::tag_recv(void* buffer, std::size_t length, uint64_t tag, uint64_t mask, TagRecvInfo* info) {
  Request* request = nullptr;
  Status status = tag_recv_nb(buffer, length, tag, mask, request, info);
  if (status != Status::InProgress) return status;
  await_done(*impl_, request);
  if (info != nullptr) *info = request->info();
  status = request->status();
  release(request);
  return status;
}

Status Worker::test(Request* request) {
  if (request == nullptr) return Status::InvalidParam;
  // The progress thread progresses; the caller only looks.
  if (RequestImpl::from(request)->delayed_handle) return request->status();
  WorkerImpl::Guard guard(*impl_);
  if (!request->done()) impl_->progress();
  return request->status();
}

Status Worker::wait(Request* request) {
  if (request == nullptr) return Status::InvalidParam;
  await_done(*impl_, request);
  Status status = request->status();
  release(request);
  return status;
}

Status Worker::cancel(Request* request) {
  if (request == nullptr) return Status::InvalidParam;
  WorkerImpl::Guard guard(*impl_);
  return impl_->cancel(RequestImpl::from(request));
}

void Worker::release(Request* request) {
  if (request == nullptr) return;
  if (TERN_LIKELY(!impl_->thread_safe_)) return impl_->release(RequestImpl::from(request));
  if (RequestImpl::from(request)->delayed_handle && request->done()) {
    return impl_->release_delayed(RequestImpl::from(request));
  }
  WorkerImpl::Guard guard(*impl_);
  impl_->release(RequestImpl::from(request));
}

void Worker::release(std::span<Request* const> requests) {
  if (TERN_LIKELY(!impl_->thread_safe_)) {
    for (Request* request : requests) {
      if (request != nullptr) impl_->release(RequestImpl::from(request));
    }
    return;
  }
  WorkerImpl::Guard guard(*impl_);
  for (Request* request : requests) {
    if (request == nullptr) continue;
    if (RequestImpl::from(request)->delayed_handle && request->done()) {
      impl_->release_delayed(RequestImpl::from(request));
    } else {
      impl_->release(RequestImpl::from(request));
    }
  }
}

bool Worker::delays_submissions() const noexcept { return impl_->delayed_ != nullptr; }

void Worker::wait_until(bool (*done)(void*), void* arg) {
  if (impl_->delays_calls_here()) return impl_->wait_delayed(done, arg);
  impl_->wait_until([done, arg] { return done(arg); });
}

runtime::ProgressMode Worker::progress_mode() const noexcept {
  return impl_->progress_thread_ ? impl_->progress_thread_->mode() : runtime::ProgressMode::Caller;
}

int Worker::efd() const noexcept { return impl_->efd(); }

// With a progress thread the caller's wakeup calls follow the thread (see
// ProgressThread::note_armed): it handles the events a caller would sleep
// for, often before the caller could see them on the fd.
constexpr int kWaitEventWithThreadMs = 10;

Status Worker::arm() {
  WorkerImpl::Guard guard(*impl_);
  if (impl_->progress_thread_) impl_->progress_thread_->note_armed();
  return impl_->arm();
}

Status Worker::wait_event() {
  if (impl_->progress_thread_) {
    impl_->progress_thread_->wait_for_progress(kWaitEventWithThreadMs);
    return Status::Ok;
  }
  return impl_->wait_event(-1);
}

Status Worker::signal() {
  const Status status = impl_->signal();
  if (impl_->progress_thread_) impl_->progress_thread_->advance();
  return status;
}

void Worker::wait_mem(const uint64_t* address, uint64_t old_value) { impl_->wait_mem(address, old_value); }

void* Worker::mem_alloc(std::size_t size) {
  WorkerImpl::Guard guard(*impl_);
  for (auto& iface : impl_->ifaces_) {
    if (void* memory = iface->mem_alloc(size)) return memory;
  }
  return std::aligned_alloc(64, align_up(size == 0 ? 1 : size, 64));
}

void Worker::mem_free(void* pointer) {
  if (pointer == nullptr) return;
  WorkerImpl::Guard guard(*impl_);
  for (auto& iface : impl_->ifaces_) {
    if (iface->mem_free(pointer)) return;
  }
  std::free(pointer);
}

bool Worker::mem_mapped_by_peers(const void* pointer, std::size_t length) {
  WorkerImpl::Guard guard(*impl_);
  for (auto& iface : impl_->ifaces_) {
    if (iface->mem_owns(pointer, length)) return true;
  }
  return false;
}

void* Worker::map_peer_memory(Endpoint* endpoint, uint64_t address, std::size_t length) {
  WorkerImpl::Guard guard(*impl_);
  if (!impl_->owns(endpoint) || endpoint->lane == nullptr || length == 0) return nullptr;
  return endpoint->lane->map_remote(address, length);
}

std::vector<std::string> Worker::transport_names() const { return impl_->transport_names(); }

void Worker::release_shared_names() noexcept {
  for (auto& iface : impl_->ifaces_) iface->release_shared_names();
}

const char* Worker::transport_of(const Endpoint* endpoint) const noexcept {
  return impl_->owns(endpoint) ? endpoint->iface->attr().name : "";
}

std::string Worker::describe(const Endpoint* endpoint) const {
  if (!impl_->owns(endpoint)) return {};
  const std::string route = endpoint->own_lane->route();
  return route.empty() ? std::string(endpoint->iface->attr().name)
                       : std::string(endpoint->iface->attr().name) + " " + route;
}

std::string Worker::peer_host(const Endpoint* endpoint) const {
  return impl_->owns(endpoint) ? endpoint->peer_host : std::string();
}

void Worker::set_peer_name(Endpoint* endpoint, std::string name) {
  WorkerImpl::Guard guard(*impl_);
  if (impl_->owns(endpoint)) endpoint->peer_name = std::move(name);
}

std::string Worker::peer_name(Endpoint* endpoint) {
  WorkerImpl::Guard guard(*impl_);
  return impl_->owns(endpoint) ? impl_->peer_label(endpoint) : std::string();
}

void Worker::set_peer_namer(PeerNamer namer, void* arg) {
  WorkerImpl::Guard guard(*impl_);
  impl_->peer_namer_ = namer;
  impl_->peer_namer_arg_ = arg;
}

void Worker::on_peer_failure(PeerFailureHandler handler, void* arg) {
  WorkerImpl::Guard guard(*impl_);
  impl_->peer_failure_handler_ = handler;
  impl_->peer_failure_arg_ = arg;
}

Status Worker::peer_status(const Endpoint* endpoint) const noexcept {
  return impl_->owns(endpoint) ? endpoint->failure : Status::InvalidParam;
}

uint64_t Worker::rejected_messages() const noexcept { return impl_->rejected_messages_; }

bool Worker::receiving_into(const void* address, std::size_t length) {
  WorkerImpl::Guard guard(*impl_);
  if (impl_->multi_transfers_.live() != 0) return true;
  const auto first = reinterpret_cast<uintptr_t>(address);
  bool found = false;
  impl_->requests_.for_each_object([&](RequestImpl& request) {
    if (found || request.pooled || request.status() != Status::InProgress) return;
    if (request.kind == RequestKind::Rma) {
      found = true;
      return;
    }
    if (request.kind != RequestKind::Recv || request.length == 0) return;
    const auto buffer = reinterpret_cast<uintptr_t>(request.buffer);
    found = buffer < first + length && first < buffer + request.length;
  });
  return found;
}

Worker::Statistics Worker::statistics() {
  WorkerImpl::Guard guard(*impl_);
  Statistics statistics;
  statistics.posted_receives = impl_->matcher_.expected_count();
  statistics.unexpected_messages = impl_->matcher_.unexpected_count();
  statistics.rejected_messages = impl_->rejected_messages_;
  for (const auto& [id, endpoint] : impl_->endpoints_) {
    const std::string_view transport = endpoint->iface->attr().name;
    if (transport == "self") statistics.sends_self += endpoint->sends_posted;
    else if (transport == "shm") statistics.sends_shm += endpoint->sends_posted;
    else if (transport == "tcp") statistics.sends_tcp += endpoint->sends_posted;
    else if (transport == "verbs") statistics.sends_verbs += endpoint->sends_posted;
  }
  return statistics;
}

uint64_t Worker::peer_id(const Endpoint* endpoint) const noexcept {
  return impl_->owns(endpoint) ? endpoint->peer_uuid : 0;
}

std::string Worker::explain_unreachable(std::span<const std::byte> peer_address) const {
  return impl_->explain_unreachable(peer_address);
}

std::size_t Worker::rndv_threshold(const Endpoint* endpoint, bool mapped_memory) const noexcept {
  if (!impl_->owns(endpoint)) return 0;
  return mapped_memory ? std::min(endpoint->rndv_threshold, endpoint->rndv_threshold_mapped) : endpoint->rndv_threshold;
}

}  // namespace tern::engine
