// Request life cycle: taken from the pool, completed by a protocol, given
// back by the user (before or after completion).
#include "core/worker_impl.hpp"

namespace tern::engine {

RequestImpl* WorkerImpl::new_request(RequestKind kind) noexcept {
  RequestImpl* request = requests_.get();
  if (request != nullptr) request->reset(this, kind);
  return request;
}

void WorkerImpl::complete(RequestImpl* request, Status status) noexcept {
  // The receiver acknowledges only once it is done with the offer, and a send
  // that fails before its RTS went out has no receiver: either way the slot
  // is free to go.
  if (TERN_UNLIKELY(request->offer_key != 0)) {
    request->endpoint->own_lane->withdraw_zcopy(request->offer_key);
    request->offer_key = 0;
  }
  if (TERN_UNLIKELY(request->metered_since_ns != 0)) {
    // A send posted behind it would have queued this one's time up (osu_bw
    // windows: 30-60x the ping-pong figure), which measures the window.
    if (status == Status::Ok && request->endpoint->sends_posted == request->posted_as) {
      request->endpoint->meter->record_rendezvous(request->length, ProtocolMeter::now_ns() - request->metered_since_ns);
    }
    request->metered_since_ns = 0;
  }
  if (request->ack_id != 0) {
    acks_.remove(request->ack_id);
    request->ack_id = 0;
  }
  if (TERN_UNLIKELY(request->forward != nullptr)) {
    // The inner request of a delayed submission: the caller holds `forward`.
    RequestImpl* handle = request->forward;
    handle->mutable_info() = request->info();
    handle->forwarded_from = nullptr;
    request->forward = nullptr;
    requests_.put(request);
    return complete(handle, status);
  }
  // Read before the status is published: from then on the caller may give
  // the request back (a delayed handle, without the lock) and it be reused.
  const bool has_callback = request->has_callback;
  const bool recycle = request->released || request->kind == RequestKind::Control;
  request->set_status(status);
  if (thread_safe_) ++unpublished_completions_;  // counted when the lock is let go
  if (TERN_UNLIKELY(has_callback)) return queue_callback(request, status);
  if (recycle) requests_.put(request);
}

void WorkerImpl::publish_completions() noexcept {
  completions_.fetch_add(unpublished_completions_, std::memory_order_seq_cst);
  unpublished_completions_ = 0;
  if (followers_.load(std::memory_order_seq_cst) != 0) {
    // Taking the mutex orders this notification after a follower's last
    // look at the counter, so it cannot be lost.
    { std::lock_guard<std::mutex> lock(sleep_mutex_); }
    sleep_cv_.notify_all();
  }
}

void WorkerImpl::release(RequestImpl* request) noexcept {
  if (request->done()) {
    requests_.put(request);
  } else {
    request->released = true;  // recycled when it completes
  }
}

Status WorkerImpl::cancel(RequestImpl* request) noexcept {
  // A delayed submission that went on as an inner request.
  if (request->delayed_handle && request->forwarded_from != nullptr) return cancel(request->forwarded_from);
  if (request->kind == RequestKind::Send && !request->done()) return cancel_send(request);
  if (request->kind != RequestKind::Recv || !request->expected.hook.linked()) return Status::Busy;
  // A sender that claimed it through the tag device is filling it now.
  if (!offload_.claim(&request->expected)) return Status::Busy;
  matcher_.remove_expected(&request->expected);
  complete(request, Status::Canceled);
  return Status::Ok;
}

}  // namespace tern::engine
