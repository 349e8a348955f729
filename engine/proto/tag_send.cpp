// Send protocols: short, synchronous single message, eager fragments and
// rendezvous; and the per-endpoint queue that keeps sends in posting order
// while the lane has no room.
#include <algorithm>
#include <cstring>

#include "core/worker_impl.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

struct PackArgs {
  RequestImpl* request;
  std::size_t payload = 0;  // out: user bytes packed
};

template <typename Header>
std::size_t pack_with_header(void* dest, std::size_t capacity, const Header& header, const void* data,
                             std::size_t available, std::size_t& payload) {
  std::memcpy(dest, &header, sizeof(header));
  payload = std::min(available, capacity - sizeof(header));
  if (payload != 0) std::memcpy(static_cast<char*>(dest) + sizeof(header), data, payload);
  return sizeof(header) + payload;
}

std::size_t pack_sync(void* dest, std::size_t capacity, void* arg) {
  auto* args = static_cast<PackArgs*>(arg);
  RequestImpl* r = args->request;
  tag::EagerSyncHeader header{r->tag, r->worker->uuid_, r->ack_id};
  return pack_with_header(dest, capacity, header, r->buffer, r->length, args->payload);
}

std::size_t pack_first(void* dest, std::size_t capacity, void* arg) {
  auto* args = static_cast<PackArgs*>(arg);
  RequestImpl* r = args->request;
  tag::EagerFirstHeader header{r->tag, r->worker->uuid_, r->length, r->ack_id};
  return pack_with_header(dest, capacity, header, r->buffer, r->length, args->payload);
}

std::size_t pack_middle(void* dest, std::size_t capacity, void* arg) {
  auto* args = static_cast<PackArgs*>(arg);
  RequestImpl* r = args->request;
  tag::FragmentHeader header{r->worker->uuid_};
  return pack_with_header(dest, capacity, header, static_cast<const char*>(r->buffer) + r->offset,
                          r->length - r->offset, args->payload);
}

std::size_t pack_rts(void* dest, std::size_t capacity, void* arg) {
  auto* r = static_cast<RequestImpl*>(arg);
  tag::RtsHeader header{r->tag, r->worker->uuid_, r->ack_id, reinterpret_cast<uint64_t>(r->buffer), r->length,
                        r->offer_key};
  if (capacity < sizeof(header)) return 0;
  std::memcpy(dest, &header, sizeof(header));
  return sizeof(header);
}

std::size_t pack_hello(void* dest, std::size_t capacity, void* arg) {
  auto address = static_cast<WorkerImpl*>(arg)->address();
  if (address.size() > capacity) return 0;
  std::memcpy(dest, address.data(), address.size());
  return address.size();
}

// Sends an internal message now; WouldBlock when the lane is full.
Status send_control_now(WorkerImpl& worker, Endpoint* ep, uint8_t am_id, uint64_t word0, uint64_t word1) {
  if (am_id == tag::kAmHello) {
    ssize_t packed = ep->lane->am_bcopy(am_id, &pack_hello, &worker);
    return packed < 0 ? static_cast<Status>(packed) : Status::Ok;
  }
  return ep->lane->am_short(am_id, word0, &word1, sizeof(word1));
}

Status bcopy_status(ssize_t packed) { return packed < 0 ? static_cast<Status>(packed) : Status::Ok; }

}  // namespace

Status WorkerImpl::tag_send_nb(Endpoint* ep, const void* buffer, std::size_t length, uint64_t tag,
                               Request*& request, unsigned flags) {
  request = nullptr;
  if (Status s = check_endpoint("tag_send", ep); TERN_UNLIKELY(s != Status::Ok)) return s;
  if (Status s = check_buffer("tag_send", buffer, length); TERN_UNLIKELY(s != Status::Ok)) return s;
  ++ep->sends_posted;
  // A receive the peer's tag device holds takes the message at once (verbs:
  // the peer's HCA matches it there, or it arrives as an eager message).
  if (TERN_UNLIKELY(length >= offload_send_threshold_) && ep->send_queue.empty() && length <= kMaxMessageLength &&
      ((flags & kSendSync) == 0 || ep->lane->tag_offload_matches_at_send())) {
    const Status status = ep->lane->tag_offload_send(tag, uuid_, buffer, length, offload_unmapped_threshold_);
    if (status != Status::NotFound) return status;
  }
  if (TERN_UNLIKELY((flags & kSendHeld) != 0)) {
    flags &= ~unsigned{kSendHeld};
    if ((flags & kSendSync) == 0) {
      const Status status = send_held(ep, buffer, length, tag);
      if (status != Status::NotFound) return status;
    }
  }
  if (TERN_LIKELY(length <= ep->max_short && flags == 0 && ep->send_queue.empty())) {
    Status status = ep->lane->am_short(tag::kAmEager, tag, buffer, length);
    if (TERN_LIKELY(status == Status::Ok)) return Status::Ok;
    if (status != Status::WouldBlock) return status;
  }
  if (Status s = check_length("tag_send", length); TERN_UNLIKELY(s != Status::Ok)) return s;
  RequestImpl* r = new_request(RequestKind::Send);
  if (r == nullptr) return Status::NoMemory;
  r->endpoint = ep;
  r->buffer = const_cast<void*>(buffer);
  r->length = length;
  r->tag = tag;
  r->flags = flags;
  const bool sync = (flags & kSendSync) != 0;
  const std::size_t single_capacity = ep->max_fragment + sizeof(tag::FragmentHeader) - sizeof(tag::EagerSyncHeader);
  const bool mapped = length >= ep->rndv_threshold_mapped && ep->iface->mem_owns(buffer, length);
  bool rendezvous = mapped || length >= ep->rndv_threshold_drained;
  bool metered = false;
  if (!rendezvous && length >= ep->rndv_threshold_metered) {
    // Between the thresholds: to a drained peer (at most an acknowledgement
    // or two unread) the protocol that has cost this endpoint less lately
    // (ProtocolMeter); to a busy one, eager below rndv_threshold.
    const bool busy_eager = length < ep->rndv_threshold;
    metered = ep->send_queue.empty() && ep->lane->peer_unread() <= ProtocolMeter::kDrainedBacklog;
    if (busy_eager) {
      // Where streams go eager, only a send that something came in before
      // (a reply, the end of a window) is metered: in osu_bibw the peer
      // drains each message at once, so a window of sends looked drained
      // throughout, and its tries of the rendezvous cost 64 KiB 15-30%.
      const uint64_t events = progress_events();
      metered = metered && events != ep->events_at_last_metered_size;
      ep->events_at_last_metered_size = events;
    }
    rendezvous = metered ? !ep->meter->prefer_eager(length, busy_eager) : !busy_eager;
  }
  if (length > 0 && rendezvous) {
    r->protocol = SendProtocol::Rendezvous;
    if (metered) {
      r->metered_since_ns = ProtocolMeter::now_ns();
      r->posted_as = ep->sends_posted;
    }
    r->offer_key = ep->lane->offer_zcopy(buffer, length);
  } else if (sync && length <= single_capacity) {
    r->protocol = SendProtocol::SyncSingle;
  } else if (!sync && length <= ep->max_short) {
    r->protocol = SendProtocol::Short;
  } else {
    r->protocol = SendProtocol::Fragments;
  }

  if (r->protocol == SendProtocol::Rendezvous || sync) r->ack_id = acks_.add(r);
  Status status = ep->send_queue.empty() ? send_progress(r) : Status::WouldBlock;
  if (status == Status::WouldBlock) {
    enqueue_send(ep, r);
  } else if (status != Status::InProgress) {
    if (r->ack_id != 0) acks_.remove(r->ack_id);
    if (r->offer_key != 0) ep->own_lane->withdraw_zcopy(r->offer_key);
    requests_.put(r);  // finished at once, or failed
    return status;
  }
  request = r;
  return Status::InProgress;
}

Status WorkerImpl::send_progress(RequestImpl* r) {
  Endpoint* ep = r->endpoint;
  switch (r->protocol) {
    case SendProtocol::Short:
      return ep->lane->am_short(tag::kAmEager, r->tag, r->buffer, r->length);

    case SendProtocol::SyncSingle: {
      PackArgs args{r};
      Status status = bcopy_status(ep->lane->am_bcopy(tag::kAmEagerSync, &pack_sync, &args));
      return status == Status::Ok ? Status::InProgress : status;
    }

    case SendProtocol::Fragments: {
      // Timed only when the whole message goes out in this call: one that
      // waited for room measures the receiver, not the copy.
      const uint64_t started_ns = r->offset == 0 && ep->meter->sample_eager(r->length) ? ProtocolMeter::now_ns() : 0;
      while (r->offset < r->length) {
        PackArgs args{r};
        ssize_t packed = r->offset == 0 ? ep->lane->am_bcopy(tag::kAmEagerFirst, &pack_first, &args)
                                        : ep->lane->am_bcopy(tag::kAmEagerMiddle, &pack_middle, &args);
        if (packed < 0) return static_cast<Status>(packed);
        r->offset += args.payload;
      }
      if (started_ns != 0) ep->meter->record_eager(r->length, ProtocolMeter::now_ns() - started_ns);
      return (r->flags & kSendSync) != 0 ? Status::InProgress : Status::Ok;
    }

    case SendProtocol::Rendezvous: {
      Status status = bcopy_status(ep->lane->am_bcopy(tag::kAmRndvRts, &pack_rts, r));
      return status == Status::Ok ? Status::InProgress : status;
    }

    case SendProtocol::Control:
      return send_control_now(*this, ep, r->control_id, r->control_words[0], r->control_words[1]);

    case SendProtocol::AgentTicket:
    case SendProtocol::AgentRts:
      return send_agent_message(r);
  }
  return Status::InvalidParam;
}

void WorkerImpl::finish_send_step(RequestImpl* r, Status status) {
  if (status == Status::InProgress) {
    // All out; the ack completes it. A cancel asked for while fragments were
    // still queued goes now, behind the last of them (proto/send_cancel.cpp).
    if (TERN_UNLIKELY(r->cancel_requested) && r->ack_id != 0) send_control(r->endpoint, tag::kAmSendCancel, r->ack_id, uuid_);
    return;
  }
  complete(r, status);
}

void WorkerImpl::enqueue_send(Endpoint* ep, RequestImpl* r) {
  ep->send_queue.push_back(r);
  while (!ep->pending_registered) {
    Status added = ep->lane->pending_add(&ep->pending);
    if (added == Status::Ok) {
      ep->pending_registered = true;
      ++blocked_endpoints_;
      return;
    }
    if (added != Status::Busy) {
      TERN_LOG(Error, "send: cannot queue on %s: %s", ep->iface->attr().name, to_string(added));
      while (RequestImpl* failed = ep->send_queue.pop_front()) complete(failed, added);
      return;
    }
    // Busy: the lane has room again already.
    if (drain_send_queue(ep) == Status::Ok) return;
  }
}

Status WorkerImpl::drain_send_queue(Endpoint* ep) {
  while (RequestImpl* r = ep->send_queue.front()) {
    Status status = send_progress(r);
    if (status == Status::WouldBlock) return status;
    ep->send_queue.remove(r);
    finish_send_step(r, status);
  }
  return Status::Ok;
}

Status WorkerImpl::on_lane_ready(transport::PendingEntry* entry) {
  Endpoint* ep = container_of(entry, &Endpoint::pending);
  Status status = ep->worker->drain_send_queue(ep);
  if (status == Status::Ok) {
    ep->pending_registered = false;
    --ep->worker->blocked_endpoints_;
  }
  return status;
}

void WorkerImpl::send_control(Endpoint* ep, uint8_t am_id, uint64_t word0, uint64_t word1) {
  if (ep->send_queue.empty()) {
    Status status = send_control_now(*this, ep, am_id, word0, word1);
    if (status != Status::WouldBlock) {
      // To a disconnected peer the failure was reported when it happened.
      if (status != Status::Ok && ep->failure == Status::Ok) {
        TERN_LOG(Error, "send: control message %u to %s failed: %s", am_id, peer_label(ep).c_str(), to_string(status));
      }
      return;
    }
  }
  RequestImpl* r = new_request(RequestKind::Control);
  if (r == nullptr) {
    TERN_LOG(Error, "send: no memory to queue control message %u", am_id);
    return;
  }
  r->endpoint = ep;
  r->protocol = SendProtocol::Control;
  r->control_id = am_id;
  r->control_words[0] = word0;
  r->control_words[1] = word1;
  enqueue_send(ep, r);
}

}  // namespace tern::engine
