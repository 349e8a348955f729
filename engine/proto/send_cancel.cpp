// Cancelling a send (MPI_Cancel of a send). A send that has not left is
// taken out of its endpoint's queue and ends Canceled at once. One that is
// out and waits for its receiver (a rendezvous RTS, a synchronous send) can
// still be cancelled while no receive has matched it: the sender asks the
// receiver (kAmSendCancel, behind everything of that send on the same
// ordered lane, so the whole message is there when the question arrives),
// and the receiver drops the message if it still sits unexpected and
// answers kAmSendCanceled, or answers kAmCancelRefused when a receive took
// it (whose acknowledgement then completes the send as usual). A send that
// needs nothing more from its receiver (eager, all out) completes as usual.
#include <cstring>

#include "core/unexpected.hpp"
#include "core/worker_impl.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine {

Status WorkerImpl::cancel_send(RequestImpl* r) noexcept {
  Endpoint* ep = r->endpoint;
  if (r->queue_hook.linked() && r->offset == 0) {
    // Nothing of it has left: no receiver knows of it.
    ep->send_queue.remove(r);
    complete(r, Status::Canceled);
    return Status::Ok;
  }
  if (r->ack_id == 0) return Status::Busy;
  if (r->cancel_requested) return Status::InProgress;
  r->cancel_requested = true;
  // Fragments still queued: asked once the last one is out (finish_send_step).
  if (!r->queue_hook.linked()) send_control(ep, tag::kAmSendCancel, r->ack_id, uuid_);
  return Status::InProgress;
}

namespace proto {
namespace {

template <typename Header>
bool read_header(const void* data, std::size_t length, Header& header) {
  if (TERN_UNLIKELY(length < sizeof(Header))) return false;
  std::memcpy(&header, data, sizeof(header));
  return true;
}

// The send `sender_request` of the peer behind `acker`, waiting for it: the
// id came from that peer and must name one of ours that it owes an answer.
RequestImpl* send_waiting_on(WorkerImpl& worker, Endpoint* acker, uint64_t sender_request) {
  RequestImpl** waiting = worker.acks_.find(sender_request);
  return waiting != nullptr && (*waiting)->endpoint == acker ? *waiting : nullptr;
}

}  // namespace

bool on_send_cancel(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "send cancel";
  tag::SendCancelHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* sender = worker.find_endpoint(header.sender_uuid);
  if (TERN_UNLIKELY(sender == nullptr)) return worker.reject_unknown(header.sender_uuid, kWhat, length);
  // Unexpected still, whole (the question came behind its last fragment),
  // and not taken by a matched probe: then nobody has it, and it can go.
  tag::UnexpectedEntry* entry = worker.matcher_.find_arrived([&](const tag::UnexpectedEntry& candidate) {
    const Message* m = container_of(const_cast<tag::UnexpectedEntry*>(&candidate), &Message::entry);
    return m->sender == sender && m->sender_request == header.sender_request && m->in_matcher &&
           (m->kind == UnexpectedKind::Rendezvous || m->arrived == m->length) && sender->rx_unexpected != m;
  });
  if (entry != nullptr) {
    Message* m = container_of(entry, &Message::entry);
    worker.matcher_.remove_unexpected(entry);
    free_unexpected(worker, m);
  }
  worker.send_control(sender, entry != nullptr ? tag::kAmSendCanceled : tag::kAmCancelRefused,
                      header.sender_request, worker.uuid_);
  return true;
}

bool on_send_canceled(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "cancel confirmation";
  tag::SendAckHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* acker = worker.find_endpoint(header.receiver_uuid);
  if (TERN_UNLIKELY(acker == nullptr)) return worker.reject_unknown(header.receiver_uuid, kWhat, length);
  RequestImpl* r = send_waiting_on(worker, acker, header.sender_request);
  if (TERN_UNLIKELY(r == nullptr || !r->cancel_requested)) {
    return worker.reject(acker, "cancel confirmation for no send being cancelled", length);
  }
  worker.complete(r, Status::Canceled);
  return true;
}

bool on_cancel_refused(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "cancel refusal";
  tag::SendAckHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* acker = worker.find_endpoint(header.receiver_uuid);
  if (TERN_UNLIKELY(acker == nullptr)) return worker.reject_unknown(header.receiver_uuid, kWhat, length);
  // The acknowledgement of the receive that took it may have come first and
  // completed the send: then there is nothing left to do.
  if (RequestImpl* r = send_waiting_on(worker, acker, header.sender_request)) r->cancel_requested = false;
  return true;
}

}  // namespace proto
}  // namespace tern::engine
