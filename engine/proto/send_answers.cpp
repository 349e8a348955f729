// What a receiver answers a sender about one of its sends, and cancelling
// sends.
//
// An acknowledgement (kAmSendAck) completes a send that waited for its
// receiver: a rendezvous once the receiver has the data, a synchronous
// send once a receive matched it.
//
// Cancel (MPI_Cancel of a send): a send that has not left is taken out of
// its endpoint's queue and ends Canceled at once. One that is out and
// waits for its receiver can still be cancelled while no receive has
// matched it: the sender asks the receiver (kAmSendCancel, behind
// everything of that send on the same ordered lane, so the whole message
// is there when the question arrives), and the receiver drops the message
// if it still sits unexpected and answers kAmSendCanceled, or answers
// kAmCancelRefused when a receive took it (whose acknowledgement then
// completes the send as usual). A send that needs nothing more from its
// receiver (eager, all out) completes as usual.
#include "core/unexpected.hpp"
#include "core/worker_impl.hpp"
#include "proto/wire_read.hpp"
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

// A receiver's answer about one of our sends: the peer it came from, and in
// `send` our send waiting on that peer that it names (null: none; the id
// came from the peer and is only a lookup key). Null when the message is
// dropped (malformed, or from a peer this worker does not know: reported);
// `result` is then what the handler returns.
Endpoint* read_answer(WorkerImpl& worker, const void* data, std::size_t length, const char* what,
                      RequestImpl*& send, bool& result) {
  send = nullptr;
  tag::SendAckHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) {
    result = worker.reject(nullptr, what, length);
    return nullptr;
  }
  Endpoint* acker = worker.find_endpoint(header.receiver_uuid);
  if (TERN_UNLIKELY(acker == nullptr)) {
    result = worker.reject_unknown(header.receiver_uuid, what, length);
    return nullptr;
  }
  RequestImpl** waiting = worker.acks_.find(header.sender_request);
  if (waiting != nullptr && (*waiting)->endpoint == acker) send = *waiting;
  return acker;
}

}  // namespace

bool on_send_ack(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  RequestImpl* r = nullptr;
  bool result = false;
  Endpoint* acker = read_answer(worker, data, length, "acknowledgement", r, result);
  if (acker == nullptr) return result;
  if (TERN_UNLIKELY(r == nullptr)) return worker.reject(acker, "acknowledgement for no send waiting on it", length);
  if (r->protocol == SendProtocol::Fragments && r->offset < r->length) {
    // Matched on its first fragment while later ones still wait in the send
    // queue: the buffer is still ours to read. It is a plain send from here
    // on, complete once its last fragment is out (send_progress).
    worker.acks_.remove(r->ack_id);
    r->ack_id = 0;
    r->flags &= ~kSendSync;
    r->cancel_requested = false;
    return true;
  }
  if (TERN_UNLIKELY(r->protocol == SendProtocol::AgentRts)) worker.tell_sender(r->peer_request, r->length);
  worker.complete(r, Status::Ok);
  return true;
}

bool on_send_cancel(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "send cancel";
  tag::SendCancelHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* sender = worker.find_endpoint(header.sender_uuid);
  if (TERN_UNLIKELY(sender == nullptr)) return worker.reject_unknown(header.sender_uuid, kWhat, length);
  // Only a send that waits for an answer has an id to cancel by.
  if (TERN_UNLIKELY(header.sender_request == 0)) return worker.reject(sender, kWhat, length);
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
  RequestImpl* r = nullptr;
  bool result = false;
  Endpoint* acker = read_answer(worker, data, length, "cancel confirmation", r, result);
  if (acker == nullptr) return result;
  if (TERN_UNLIKELY(r == nullptr || !r->cancel_requested)) {
    return worker.reject(acker, "cancel confirmation for no send being cancelled", length);
  }
  worker.complete(r, Status::Canceled);
  return true;
}

bool on_cancel_refused(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  RequestImpl* r = nullptr;
  bool result = false;
  Endpoint* acker = read_answer(worker, data, length, "cancel refusal", r, result);
  if (acker == nullptr) return result;
  // The acknowledgement of the receive that took it may have come first and
  // completed the send: then there is nothing left to do.
  if (r != nullptr) r->cancel_requested = false;
  return true;
}

}  // namespace proto
}  // namespace tern::engine
