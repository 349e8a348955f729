// Receive side of the eager protocols: posting receives, probing, and the
// handlers that match arriving messages against posted receives or keep them
// as unexpected.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/address.hpp"
#include "core/worker_impl.hpp"
#include "proto/wire_read.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

using proto::read_header;

// Copies what fits; the status says whether the message was cut.
void deliver_whole(WorkerImpl& worker, RequestImpl* r, uint64_t tag, const void* data, std::size_t length) {
  const std::size_t copied = std::min(length, r->length);
  if (copied != 0) std::memcpy(r->buffer, data, copied);
  r->mutable_info() = {tag, length};
  worker.complete(r, length > r->length ? Status::Truncated : Status::Ok);
}

Message* new_unexpected(WorkerImpl& worker, uint64_t tag, std::size_t length) {
  Message* m = worker.unexpected_.get();
  if (m == nullptr) return nullptr;
  m->entry.tag = tag;
  m->kind = UnexpectedKind::Eager;
  m->in_matcher = false;
  m->sender = nullptr;
  m->sender_request = 0;
  m->remote_address = 0;
  m->offer_key = 0;
  m->length = length;
  m->arrived = 0;
  if (length <= sizeof(m->inline_data)) {
    m->data = m->inline_data;
  } else {
    m->data = worker.payloads_.get(length);
    if (m->data == nullptr) {
      worker.unexpected_.put(m);
      return nullptr;
    }
  }
  return m;
}

// Keeps an arrived message nobody has asked for yet: its first
// `payload_length` bytes of `total_length`, and who waits for an ack. Null
// (the message is dropped, and the log says so) when memory runs out.
Message* keep_unexpected(WorkerImpl& worker, uint64_t tag, std::size_t total_length, const std::byte* payload,
                         std::size_t payload_length, Endpoint* sender, uint64_t sender_request) {
  Message* m = new_unexpected(worker, tag, total_length);
  if (m == nullptr) {
    TERN_LOG(Error, "eager: no memory for an unexpected message of %zu bytes; dropped", total_length);
    return nullptr;
  }
  if (payload_length != 0) std::memcpy(m->data, payload, payload_length);
  m->arrived = payload_length;
  m->sender = sender;
  m->sender_request = sender_request;
  m->in_matcher = true;
  worker.matcher_.add_unexpected(&m->entry);
  return m;
}

// The endpoint of the peer a message says it came from, or null when the
// message is to be dropped: nobody this worker knows (rejected), or a peer
// already disconnected (quietly: that was reported when it happened).
Endpoint* sender_endpoint(WorkerImpl& worker, uint64_t uuid, const char* what, std::size_t length) {
  Endpoint* ep = worker.find_endpoint(uuid);
  if (TERN_UNLIKELY(ep == nullptr)) {
    (void)worker.reject_unknown(uuid, what, length);
    return nullptr;
  }
  return TERN_LIKELY(ep->failure == Status::Ok) ? ep : nullptr;
}

// Gives up on the message now arriving from `sender` in fragments: a
// matched receive ends with an error, an unexpected message is dropped.
void abandon_incoming(WorkerImpl& worker, Endpoint* sender) {
  if (RequestImpl* r = sender->rx_request) {
    sender->rx_request = nullptr;
    worker.complete(r, Status::IoError);
  }
  if (Message* m = sender->rx_unexpected) {
    sender->rx_unexpected = nullptr;
    if (m->in_matcher) {
      worker.matcher_.remove_unexpected(&m->entry);
      free_unexpected(worker, m);
    }
  }
}

}  // namespace

void free_unexpected(WorkerImpl& worker, Message* m) {
  if (m->data != m->inline_data) worker.payloads_.put(m->data, m->length);
  m->data = nullptr;
  worker.unexpected_.put(m);
}

// --- posting, probing

Status WorkerImpl::tag_recv_nb(void* buffer, std::size_t length, uint64_t tag, uint64_t mask, Request*& request,
                               TagRecvInfo* info) {
  request = nullptr;
  if (Status s = check_buffer("tag_recv", buffer, length); TERN_UNLIKELY(s != Status::Ok)) return s;
  if (Status s = check_length("tag_recv", length); TERN_UNLIKELY(s != Status::Ok)) return s;
  if (matcher_.unexpected_count() != 0) {
    if (tag::UnexpectedEntry* entry = matcher_.find_unexpected(tag, mask, true)) {
      Message* m = container_of(entry, &Message::entry);
      m->in_matcher = false;
      return tag_msg_recv_nb(buffer, length, m, request, info);
    }
  }
  RequestImpl* r = new_request(RequestKind::Recv);
  if (r == nullptr) return Status::NoMemory;
  r->buffer = buffer;
  r->length = length;
  r->expected.tag = tag;
  r->expected.mask = mask;
  matcher_.post(&r->expected);
  offload_.posted(&r->expected, buffer, length);
  request = r;
  return Status::InProgress;
}

Status WorkerImpl::tag_probe(uint64_t tag, uint64_t mask, TagRecvInfo& info, Message** message) {
  if (matcher_.unexpected_count() == 0) return Status::NotFound;
  tag::UnexpectedEntry* entry = matcher_.find_unexpected(tag, mask, message != nullptr);
  if (entry == nullptr) return Status::NotFound;
  Message* m = container_of(entry, &Message::entry);
  info = {m->entry.tag, m->length};
  if (message != nullptr) {
    m->in_matcher = false;
    *message = m;
    // A probe that removes the message matches it: a synchronous eager send
    // may complete now.
    if (m->kind == UnexpectedKind::Eager && m->sender_request != 0) {
      send_ack(m->sender, m->sender_request);
      m->sender_request = 0;
    }
  }
  return Status::Ok;
}

Status WorkerImpl::tag_msg_recv_nb(void* buffer, std::size_t length, Message* m, Request*& request,
                                   TagRecvInfo* info) {
  request = nullptr;
  if (TERN_UNLIKELY(m == nullptr || m->in_matcher)) {
    TERN_LOG(Error, "tag_msg_recv: invalid message handle %p", static_cast<void*>(m));
    return Status::InvalidParam;
  }
  if (Status s = check_buffer("tag_msg_recv", buffer, length); TERN_UNLIKELY(s != Status::Ok)) return s;
  const TagRecvInfo found{m->entry.tag, m->length};
  if (TERN_UNLIKELY(m->sender != nullptr && m->sender->failure != Status::Ok && m->arrived < m->length)) {
    // The rest of it was to come from a peer that has been disconnected.
    const Status failure = m->sender->failure;
    free_unexpected(*this, m);
    return failure;
  }
  if (m->kind == UnexpectedKind::Eager) {
    if (m->sender_request != 0) {
      send_ack(m->sender, m->sender_request);
      m->sender_request = 0;
    }
    const std::size_t copied = std::min(m->arrived, length);
    if (copied != 0) std::memcpy(buffer, m->data, copied);
    if (m->arrived == m->length) {
      free_unexpected(*this, m);
      if (info != nullptr) *info = found;
      return found.length > length ? Status::Truncated : Status::Ok;
    }
    // Fragments are still arriving: they go straight to the user's buffer now.
    RequestImpl* r = new_request(RequestKind::Recv);
    if (r == nullptr) return Status::NoMemory;
    r->buffer = buffer;
    r->length = length;
    r->offset = m->arrived;
    r->mutable_info() = found;
    m->sender->rx_unexpected = nullptr;
    m->sender->rx_request = r;
    free_unexpected(*this, m);
    request = r;
    return Status::InProgress;
  }
  // Rendezvous: fetch the data from the sender; a ticket: from the
  // sender's progress agent, once it has said where (proto/agent_recv.cpp).
  RequestImpl* r = new_request(RequestKind::Recv);
  if (r == nullptr) return Status::NoMemory;
  r->buffer = buffer;
  r->length = length;
  Endpoint* sender = m->sender;
  const transport::RemoteMemory remote{m->remote_address, m->offer_key};
  const uint64_t sender_request = m->sender_request;
  const bool ticket = m->kind == UnexpectedKind::Ticket;
  free_unexpected(*this, m);
  r->mutable_info() = found;
  if (ticket) {
    bind_ticket(r, sender->peer_uuid, remote.address, found.length);
  } else {
    start_get(r, sender, remote, found.length, sender_request);
  }
  if (r->done()) {
    Status status = r->status();
    if (info != nullptr) *info = found;
    requests_.put(r);
    return status;
  }
  request = r;
  return Status::InProgress;
}

// --- handlers
//
// Each checks every field it uses against the message's length and the
// protocol's state before it uses it, and rejects (WorkerImpl::reject) what
// does not fit: such a message is dropped and counted against its sender.

namespace proto {

bool on_hello(void* arg, const void* data, std::size_t length) {
  auto* worker = static_cast<WorkerImpl*>(arg);
  Endpoint* ep = nullptr;
  const Status status = worker->connect({static_cast<const std::byte*>(data), length}, ep);
  if (status == Status::InvalidParam) return worker->reject(nullptr, "hello", length);
  if (status != Status::Ok) TERN_LOG(Error, "hello: cannot connect back to a peer: %s", to_string(status));
  return true;
}

bool on_eager(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  uint64_t tag;
  if (TERN_UNLIKELY(!read_header(data, length, tag))) return worker.reject(nullptr, "eager message", length);
  const auto* payload = static_cast<const std::byte*>(data) + sizeof(tag);
  const std::size_t payload_length = length - sizeof(tag);
  if (tag::ExpectedEntry* entry = worker.match_posted(tag)) {
    deliver_whole(worker, RequestImpl::from_expected(entry), tag, payload, payload_length);
    return true;
  }
  (void)keep_unexpected(worker, tag, payload_length, payload, payload_length, nullptr, 0);
  return true;
}

bool on_eager_sync(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "synchronous eager message";
  tag::EagerSyncHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* sender = sender_endpoint(worker, header.sender_uuid, kWhat, length);
  if (sender == nullptr) return worker.find_endpoint(header.sender_uuid) != nullptr;
  // A synchronous send always waits for its acknowledgement.
  if (TERN_UNLIKELY(header.sender_request == 0)) return worker.reject(sender, kWhat, length);
  const auto* payload = static_cast<const std::byte*>(data) + sizeof(header);
  const std::size_t payload_length = length - sizeof(header);
  if (tag::ExpectedEntry* entry = worker.match_posted(header.tag)) {
    worker.send_ack(sender, header.sender_request);
    deliver_whole(worker, RequestImpl::from_expected(entry), header.tag, payload, payload_length);
    return true;
  }
  (void)keep_unexpected(worker, header.tag, payload_length, payload, payload_length, sender, header.sender_request);
  return true;
}

bool on_eager_first(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "first fragment";
  tag::EagerFirstHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* sender = sender_endpoint(worker, header.sender_uuid, kWhat, length);
  if (sender == nullptr) return worker.find_endpoint(header.sender_uuid) != nullptr;
  const auto* payload = static_cast<const std::byte*>(data) + sizeof(header);
  const std::size_t payload_length = length - sizeof(header);
  // The total announced bounds every copy below and after; fragments of one
  // sender never interleave.
  if (TERN_UNLIKELY(header.total_length < payload_length || header.total_length > kMaxMessageLength ||
                    sender->rx_request != nullptr || sender->rx_unexpected != nullptr)) {
    abandon_incoming(worker, sender);
    return worker.reject(sender, kWhat, length);
  }
  const auto total = static_cast<std::size_t>(header.total_length);
  if (tag::ExpectedEntry* entry = worker.match_posted(header.tag)) {
    RequestImpl* r = RequestImpl::from_expected(entry);
    if (header.sender_request != 0) worker.send_ack(sender, header.sender_request);
    const std::size_t copied = std::min(payload_length, r->length);
    if (copied != 0) std::memcpy(r->buffer, payload, copied);
    r->offset = payload_length;
    r->mutable_info() = {header.tag, total};
    if (payload_length == total) {
      worker.complete(r, total > r->length ? Status::Truncated : Status::Ok);
    } else {
      sender->rx_request = r;
    }
    return true;
  }
  if (TERN_UNLIKELY(total > worker.max_unexpected_bytes_)) {
    TERN_LOG(Error, "eager: an unexpected message of %zu bytes from %s exceeds this node's memory; dropped", total,
             worker.peer_label(sender).c_str());
    return true;
  }
  // Later fragments from this sender land in it until it is whole.
  Message* m = keep_unexpected(worker, header.tag, total, payload, payload_length, sender, header.sender_request);
  if (m != nullptr && payload_length != total) sender->rx_unexpected = m;
  return true;
}

bool on_eager_middle(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "fragment";
  tag::FragmentHeader header;
  if (TERN_UNLIKELY(!read_header(data, length, header))) return worker.reject(nullptr, kWhat, length);
  Endpoint* sender = sender_endpoint(worker, header.sender_uuid, kWhat, length);
  if (sender == nullptr) return worker.find_endpoint(header.sender_uuid) != nullptr;
  const auto* payload = static_cast<const std::byte*>(data) + sizeof(header);
  const std::size_t payload_length = length - sizeof(header);
  if (RequestImpl* r = sender->rx_request) {
    // No more than the first fragment announced.
    if (TERN_UNLIKELY(payload_length > r->info().length - r->offset)) {
      abandon_incoming(worker, sender);
      return worker.reject(sender, kWhat, length);
    }
    if (r->offset < r->length) {
      const std::size_t copied = std::min(payload_length, r->length - r->offset);
      std::memcpy(static_cast<char*>(r->buffer) + r->offset, payload, copied);
    }
    r->offset += payload_length;
    if (r->offset == r->info().length) {
      sender->rx_request = nullptr;
      worker.complete(r, r->info().length > r->length ? Status::Truncated : Status::Ok);
    }
    return true;
  }
  if (Message* m = sender->rx_unexpected) {
    if (TERN_UNLIKELY(payload_length > m->length - m->arrived)) {
      abandon_incoming(worker, sender);
      return worker.reject(sender, kWhat, length);
    }
    std::memcpy(m->data + m->arrived, payload, payload_length);
    m->arrived += payload_length;
    if (m->arrived == m->length) sender->rx_unexpected = nullptr;
    return true;
  }
  return worker.reject(sender, "fragment with no message in progress", length);
}

}  // namespace proto
}  // namespace tern::engine
