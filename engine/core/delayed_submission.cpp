// Delayed submission (delayed_submission.hpp): the calls that queue tag
// operations for the progress thread, and their dispatch under the lock.
#include "core/delayed_submission.hpp"

#include <sched.h>

#include "core/worker_impl.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

namespace {

// What the direct calls check before they touch the worker, checked here
// without the lock so that a bad argument still comes back from the call.
Status check_submission(const WorkerImpl& worker, const Submission& s) {
  const char* call = s.op == Submission::Op::Send ? "tag_send" : "tag_recv";
  if (s.op == Submission::Op::Send) {
    if (Status status = worker.check_endpoint(call, s.endpoint); status != Status::Ok) return status;
  }
  if (Status status = WorkerImpl::check_buffer(call, s.buffer, s.length); status != Status::Ok) return status;
  return WorkerImpl::check_length(call, s.length);
}

}  // namespace

Status WorkerImpl::submit(Submission s, Request*& request, TagRecvInfo* info) {
  request = nullptr;
  if (const Status status = check_submission(*this, s); status != Status::Ok) return status;
  DelayedSubmission& delayed = *delayed_;
  const bool with_callback = s.callback.function != nullptr;
  RequestImpl* handle = nullptr;
  if (!with_callback) {
    handle = delayed.take_request();
    if (handle != nullptr) {
      handle->reset(this, s.op == Submission::Op::Send ? RequestKind::Send : RequestKind::Recv);
      handle->delayed_handle = true;
      handle->forwarded_from = nullptr;
      handle->buffer = s.buffer;
      handle->length = s.length;
      handle->tag = s.tag;
      s.request = handle;
    }
  }
  if ((with_callback || handle != nullptr) && delayed.submit(s)) {
    // A thread asleep between events wakes for it (the fence pairs with
    // the one before the thread looks at the queue a last time).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (delayed.consumer_asleep.load(std::memory_order_relaxed)) (void)signal();
    request = handle;
    return Status::InProgress;
  }
  // The queue is full or the reserve empty: the lock, after what is queued.
  Guard guard(*this);
  if (handle != nullptr) requests_.put(handle);
  (void)dispatch_delayed_if_any();
  Request* started = nullptr;
  const Status status = start(s, started, info);
  if (!with_callback) {
    request = started;
    return status;
  }
  // The callback form's rule (callback.hpp): an immediate end is reported by the return.
  if (status != Status::InProgress) return status;
  return attach_callback(RequestImpl::from(started), s.callback);
}

unsigned WorkerImpl::dispatch_delayed() {
  DelayedSubmission& delayed = *delayed_;
  delayed.dispatching = true;
  unsigned dispatched = 0;
  // Everything claimed before now goes out, in order: a producer between its
  // claim and its store (preempted, on a busy machine) holds the line, and
  // what queued behind it (a caller's earlier operations, before the call
  // that took the lock) must not be overtaken by what follows the lock.
  const std::size_t through = delayed.claimed();
  Submission s;
  for (std::size_t idle = 0;;) {
    if (delayed.next(s)) {
      dispatch(s);
      ++dispatched;
      idle = 0;
      continue;
    }
    if (delayed.taken() >= through) break;
    if (++idle % 64 == 0) {
      sched_yield();
    } else {
      cpu_relax();
    }
  }
  if (delayed.reserve_low()) refill_reserve();
  delayed.dispatching = false;
  return dispatched;
}

void WorkerImpl::dispatch(const Submission& s) {
  Request* started = nullptr;
  TagRecvInfo info{s.tag, s.length};
  const Status status = start(s, started, &info);
  if (s.request == nullptr) {
    // The caller was told InProgress, so its callback runs whatever the end.
    if (status == Status::InProgress) {
      if (attach_callback(RequestImpl::from(started), s.callback) != Status::InProgress) {
        TERN_LOG(Error, "delayed submission: no memory for a completion callback; it will not run");
      }
    } else if (CallbackSlot* slot = new_callback_slot(s.callback, false)) {
      post_slot(slot, status, info);
    }
    return;
  }
  RequestImpl* handle = s.request;
  if (status != Status::InProgress) {
    if (s.op == Submission::Op::Recv) handle->mutable_info() = info;
    return complete(handle, status);
  }
  RequestImpl* inner = RequestImpl::from(started);
  if (inner->done()) {
    // It ended inside the call that started it, which still says
    // InProgress (the direct caller then finds it done): its completion
    // found no handle to forward to.
    handle->mutable_info() = inner->info();
    const Status ended = inner->status();
    requests_.put(inner);
    return complete(handle, ended);
  }
  inner->forward = handle;
  handle->forwarded_from = inner;
}

void WorkerImpl::refill_reserve() {
  for (std::size_t held = delayed_->reserve_size(); held < DelayedSubmission::kReserveTarget; ++held) {
    RequestImpl* request = requests_.get();
    if (request == nullptr) return;
    if (!delayed_->give_back(request)) {
      requests_.put(request);
      return;
    }
  }
}

void WorkerImpl::release_delayed(RequestImpl* request) noexcept {
  if (delayed_->give_back(request)) return;
  Guard guard(*this);
  requests_.put(request);
}

void WorkerImpl::wait_delayed(bool (*done)(void*), void* arg) {
  const bool spin_only = params_.config.wait_mode == runtime::WaitMode::Spin;
  const std::size_t spin_limit = params_.config.wait_mode == runtime::WaitMode::Block ? 0
                                 : params_.config.spin_count != 0                      ? params_.config.spin_count
                                                                                        : 20000;
  // Idle polls between two yields: the progress thread may share the core.
  constexpr std::size_t kPollsPerYield = 64;
  constexpr int kSleepCapMs = 1;
  for (std::size_t polls = 1;; ++polls) {
    if (done(arg)) return;
    if (spin_only || polls < spin_limit) {
      if (polls % kPollsPerYield == 0) {
        sched_yield();
      } else {
        cpu_relax();
      }
      continue;
    }
    polls = 0;
    const uint64_t since = progress_thread_->epoch();
    if (done(arg)) return;
    progress_thread_->wait_past(since, kSleepCapMs);
  }
}

}  // namespace tern::engine
