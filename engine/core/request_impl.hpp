// The engine's side of a request: protocol state behind the public handle.
// It embeds its matcher entry, its place in the endpoint's send queue and its
// zero-copy completion, so no operation needs a second allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tag/matcher.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/engine/request.hpp"
#include "transport/completion.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine {

class Endpoint;
class WorkerImpl;
struct Message;
using UnexpectedMessage = Message;

// How a send goes out, chosen once by size and lane.
enum class SendProtocol : uint8_t {
  Short,       // one am_short: [tag][data]
  SyncSingle,  // one bcopy with the sender's request; completes on the ack
  Fragments,   // a first fragment and middle fragments (bcopy)
  Rendezvous,  // RTS; the receiver gets the data and acks
  Control,     // an internal message (hello, ack)
  AgentTicket, // a held message's ticket, in its place among the sends (proto/agent_send.cpp)
  AgentRts,    // a progress agent's announcement of a ticket's data; completes on the ack
};

enum class RequestKind : uint8_t {
  Send,     // eager fragments still to push, or waiting for an ack
  Recv,     // posted receive, or being filled by fragments / a get
  Control,  // an internal message (ack, hello) that found the transport full
  Rma,      // a put, get, atomic or flush (rma.hpp) waiting for its transport completion
};

class RequestImpl final : public Request {
 public:
  RequestImpl() = default;

  void reset(WorkerImpl* owner, RequestKind request_kind) noexcept {
    status_.store(Status::InProgress, std::memory_order_relaxed);
    info_ = {};
    user_data = nullptr;
    worker = owner;
    kind = request_kind;
    released = false;
    needs_ack = false;
    has_callback = false;
    cancel_requested = false;
    // `forward` is null in every pooled request (complete() clears it), and
    // `forwarded_from` is read only on delayed handles, which set it.
    delayed_handle = false;
    endpoint = nullptr;
    buffer = nullptr;
    length = 0;
    offset = 0;
    tag = 0;
    flags = 0;
    control_id = 0;
    protocol = SendProtocol::Short;
    peer_request = 0;
    ack_id = 0;
    offer_key = 0;
    metered_since_ns = 0;
    posted_as = 0;
    final_status = Status::Ok;
  }

  void set_status(Status status) noexcept { status_.store(status, std::memory_order_release); }
  TagRecvInfo& mutable_info() noexcept { return info_; }

  static RequestImpl* from(Request* request) noexcept { return static_cast<RequestImpl*>(request); }
  static RequestImpl* from_expected(tag::ExpectedEntry* entry) noexcept {
    return container_of(entry, &RequestImpl::expected);
  }
  static RequestImpl* from_completion(transport::Completion* comp) noexcept {
    return container_of(comp, &RequestImpl::completion);
  }

  WorkerImpl* worker = nullptr;
  RequestKind kind = RequestKind::Send;
  bool released = false;   // the user let go; recycle on completion
  bool needs_ack = false;  // send: completes on the receiver's ack
  uint8_t control_id = 0;  // Control: which message to send
  SendProtocol protocol = SendProtocol::Short;
  // The worker owns it and runs a callback when it ends (callback.hpp). No
  // caller holds such a request, so `user_data` carries its CallbackSlot.
  bool has_callback = false;
  bool cancel_requested = false;  // send: its receiver was (or will be) asked to drop it
  // The caller's handle of a delayed submission (delayed_submission.hpp):
  // nothing in the worker touches it once done, so it goes back without
  // the lock.
  bool delayed_handle = false;
  bool pooled = true;  // free in the pool (ObjectPool keeps it)
  unsigned flags = 0;
  Endpoint* endpoint = nullptr;
  void* buffer = nullptr;     // user buffer (send: const data)
  std::size_t length = 0;     // user buffer length
  std::size_t offset = 0;     // send: bytes pushed; recv: bytes arrived
  uint64_t tag = 0;
  uint64_t peer_request = 0;  // recv: the sender's request to acknowledge (its ack id)
  uint64_t ack_id = 0;        // send: the id its acknowledgement names (WorkerImpl::acks_); 0: none
  uint64_t offer_key = 0;     // rendezvous send: the lane's offer of the buffer
  uint64_t metered_since_ns = 0;  // send timed for its endpoint's ProtocolMeter; 0: not timed
  uint64_t posted_as = 0;         // timed send: its endpoint's sends_posted right after it
  Status final_status = Status::Ok;  // recv: what it ends with once the data is in
  tag::ExpectedEntry expected;
  runtime::ListHook queue_hook;  // on its endpoint's send queue
  transport::Completion completion;
  uint64_t control_words[2] = {};  // Control: the message to send
  // A delayed submission that did not end when dispatched goes on as
  // `forwarded_from`, an inner request whose completion completes the
  // caller's handle `forward` (and a cancel of the handle cancels it). The
  // pool's link and the handle's link are never needed at once.
  union {
    RequestImpl* next_free = nullptr;  // while in the pool
    RequestImpl* forwarded_from;       // a delayed handle, while its inner request runs
  };
  RequestImpl* forward = nullptr;
};

static_assert(sizeof(RequestImpl) <= 256, "requests are pooled; keep them small");

}  // namespace tern::engine
