// Completion callbacks (callback.hpp): the calls that take one, and how the
// worker queues and runs them.
#include "core/worker_impl.hpp"
#include "tern/engine/notifier.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

bool check_callback(const char* call, const Callback& callback) {
  if (TERN_LIKELY(callback.function != nullptr)) return true;
  TERN_LOG(Error, "%s: the callback has no function", call);
  return false;
}

CallbackSlot* WorkerImpl::new_callback_slot(const Callback& callback, bool internal) noexcept {
  CallbackSlot* slot = callbacks_.new_slot(callback);
  if (slot == nullptr) {
    TERN_LOG(Error, "callback: no memory to queue a completion callback");
    return nullptr;
  }
  slot->internal = internal;
  return slot;
}

void WorkerImpl::attach_slot(RequestImpl* request, CallbackSlot* slot) noexcept {
  request->user_data = slot;
  request->has_callback = true;
  if (request->done()) queue_callback(request, request->status());
}

Status WorkerImpl::attach_callback(RequestImpl* request, const Callback& callback) noexcept {
  CallbackSlot* slot = new_callback_slot(callback, false);
  if (slot == nullptr) {
    release(request);
    return Status::NoMemory;
  }
  attach_slot(request, slot);
  return Status::InProgress;
}

void WorkerImpl::queue_callback(RequestImpl* request, Status status) noexcept {
  auto* slot = static_cast<CallbackSlot*>(request->user_data);
  // A send reports what it sent; a receive, what it matched.
  const TagRecvInfo info =
      request->kind == RequestKind::Send ? TagRecvInfo{request->tag, request->length} : request->info();
  requests_.put(request);
  post_slot(slot, status, info);
}

void WorkerImpl::post_slot(CallbackSlot* slot, Status status, const TagRecvInfo& info) noexcept {
  slot->status = status;
  slot->info = info;
  callbacks_.push(slot);
  // Ended outside the progress thread (a cancel, a send failing as it is
  // posted): the thread may be asleep on the wakeup fd.
  if (progress_thread_ && !progress_thread_->is_current()) (void)signal();
}

void WorkerImpl::deliver(const Callback& callback, Status status, const TagRecvInfo& info) {
  if (Notifier* notifier = callback.notifier != nullptr ? callback.notifier : notifier_) {
    notifier->post(callback, status, info);
  } else {
    callback.function(callback.user_data, status, info);
  }
}

unsigned WorkerImpl::run_callbacks() {
  unsigned ran = 0;
  CallbackSlot* slot = callbacks_.take_all();
  while (slot != nullptr) {
    CallbackSlot* next = slot->next_free;
    const Callback callback = slot->callback;
    const Status status = slot->status;
    const TagRecvInfo info = slot->info;
    const bool internal = slot->internal;
    // Free before the call, so that a callback posting the next operation
    // finds the slot it just gave up.
    callbacks_.recycle(slot);
    if (internal) {
      callback.function(callback.user_data, status, info);
    } else {
      deliver(callback, status, info);
    }
    ++ran;
    slot = next;
  }
  return ran;
}

namespace {

// Starts an operation by `start(request)` and, when it did not finish at
// once, hands its request to the worker with the callback.
template <typename Start>
Status start_with_callback(WorkerImpl& worker, const char* call, const Callback& callback, Start&& start) {
  if (!check_callback(call, callback)) return Status::InvalidParam;
  WorkerImpl::Guard guard(worker);
  Request* request = nullptr;
  const Status status = start(request);
  if (status != Status::InProgress) return status;
  return worker.attach_callback(RequestImpl::from(request), callback);
}

// With delayed submission the callback always runs: the call returns before
// anyone knows how the operation ends.
Status submit_with_callback(WorkerImpl& worker, const char* call, Submission submission, TagRecvInfo* info) {
  if (!check_callback(call, submission.callback)) return Status::InvalidParam;
  Request* unused = nullptr;
  return worker.submit(submission, unused, info);
}

}  // namespace

Status Worker::tag_send_nb(Endpoint* endpoint, const void* buffer, std::size_t length, uint64_t tag,
                           const Callback& callback, unsigned flags) {
  if (impl_->delays_calls_here()) {
    return submit_with_callback(*impl_, "tag_send_nb",
                                {.op = Submission::Op::Send,
                                 .flags = flags,
                                 .endpoint = endpoint,
                                 .buffer = const_cast<void*>(buffer),
                                 .length = length,
                                 .tag = tag,
                                 .callback = callback},
                                nullptr);
  }
  return start_with_callback(*impl_, "tag_send_nb", callback, [&](Request*& request) {
    return impl_->tag_send_nb(endpoint, buffer, length, tag, request, flags);
  });
}

Status Worker::tag_recv_nb(void* buffer, std::size_t length, uint64_t tag, uint64_t mask, const Callback& callback,
                           TagRecvInfo* info) {
  if (impl_->delays_calls_here()) {
    return submit_with_callback(
        *impl_, "tag_recv_nb",
        {.op = Submission::Op::Recv, .buffer = buffer, .length = length, .tag = tag, .mask = mask, .callback = callback},
        info);
  }
  return start_with_callback(*impl_, "tag_recv_nb", callback, [&](Request*& request) {
    return impl_->tag_recv_nb(buffer, length, tag, mask, request, info);
  });
}

Status Worker::tag_msg_recv_nb(void* buffer, std::size_t length, Message* message, const Callback& callback,
                               TagRecvInfo* info) {
  return start_with_callback(*impl_, "tag_msg_recv_nb", callback, [&](Request*& request) {
    return impl_->tag_msg_recv_nb(buffer, length, message, request, info);
  });
}

Status Worker::set_callback(Request* request, const Callback& callback) {
  if (request == nullptr) {
    TERN_LOG(Error, "set_callback: null request");
    return Status::InvalidParam;
  }
  if (!check_callback("set_callback", callback)) return Status::InvalidParam;
  WorkerImpl::Guard guard(*impl_);
  const Status status = impl_->attach_callback(RequestImpl::from(request), callback);
  return status == Status::InProgress ? Status::Ok : status;
}

void Worker::set_notifier(Notifier* notifier) {
  WorkerImpl::Guard guard(*impl_);
  impl_->notifier_ = notifier;
}

}  // namespace tern::engine
