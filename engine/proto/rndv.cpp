// Rendezvous: the sender announces (RTS) its buffer; the receiver, once
// matched, copies the data straight out of the sender's memory (zero-copy
// get: CMA on a node, memcpy for self) and acknowledges, which completes the
// send. Where the lane takes offers, the sender offers its buffer first and
// copies part of the data itself while the receiver gets the rest.
#include <algorithm>
#include <cstring>

#include "core/worker_impl.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

void on_get_done(transport::Completion* completion) {
  RequestImpl* r = RequestImpl::from_completion(completion);
  WorkerImpl& worker = *r->worker;
  const Status status = completion->status != Status::Ok ? completion->status : r->final_status;
  if (completion->status != Status::Ok) {
    TERN_LOG(Error, "rendezvous: get of %zu bytes failed: %s", r->info().length, to_string(completion->status));
  }
  worker.send_ack(r->endpoint, r->peer_request);
  worker.complete(r, status);
}

}  // namespace

void WorkerImpl::start_get(RequestImpl* r, Endpoint* sender, transport::RemoteMemory remote, std::size_t length,
                           uint64_t sender_request) {
  r->endpoint = sender;
  r->peer_request = sender_request;
  const std::size_t copied = std::min(length, r->length);
  r->final_status = length > r->length ? Status::Truncated : Status::Ok;
  r->completion.callback = &on_get_done;
  r->completion.count = 1;
  r->completion.status = Status::Ok;
  if (copied == 0) {
    on_get_done(&r->completion);
    return;
  }
  Status status = sender->lane->get_zcopy(r->buffer, copied, remote, &r->completion);
  if (status == Status::InProgress) return;
  r->completion.status = status;
  on_get_done(&r->completion);
}

namespace proto {

bool on_rndv_rts(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "rendezvous request";
  if (length < sizeof(tag::RtsHeader)) return worker.reject(nullptr, kWhat, length);
  tag::RtsHeader header;
  std::memcpy(&header, data, sizeof(header));  // once: the bytes may lie in memory the peer writes
  Endpoint* sender = worker.find_endpoint(header.sender_uuid);
  if (sender == nullptr) return worker.reject_unknown(header.sender_uuid, kWhat, length);
  if (sender->failure != Status::Ok) return true;  // disconnected: said so then
  // A rendezvous always waits for its acknowledgement, and its buffer is
  // somewhere. The get itself copies at most the receive buffer, and the
  // lane checks the address and the offer key against what it may reach.
  if (header.length > kMaxMessageLength || header.sender_request == 0 || (header.address == 0 && header.length != 0)) {
    return worker.reject(sender, kWhat, length);
  }
  if (tag::ExpectedEntry* entry = worker.match_posted(header.tag)) {
    RequestImpl* r = RequestImpl::from_expected(entry);
    r->mutable_info() = {header.tag, header.length};
    worker.start_get(r, sender, {header.address, header.offer_key}, header.length, header.sender_request);
    return true;
  }
  Message* m = worker.unexpected_.get();
  if (m == nullptr) {
    TERN_LOG(Error, "rendezvous: no memory for an unexpected message; dropped");
    return true;
  }
  m->entry.tag = header.tag;
  m->kind = UnexpectedKind::Rendezvous;
  m->sender = sender;
  m->sender_request = header.sender_request;
  m->remote_address = header.address;
  m->offer_key = header.offer_key;
  m->length = header.length;
  m->arrived = 0;
  m->data = m->inline_data;  // unused; keeps free_unexpected from freeing
  m->in_matcher = true;
  worker.matcher_.add_unexpected(&m->entry);
  return true;
}

}  // namespace proto
}  // namespace tern::engine
