// Held sends (kSendHeld; the critical tags of smart progression,
// ../shared/seeds/003). A rendezvous to a peer on this host waits for the
// receiver: while it computes, the sender's request cannot end. A held send
// copies the data once into the shared arena the peer maps (the iface's
// mem_alloc) and sends that copy by the ordinary rendezvous, so the caller's
// send is complete after the copy and the receiver's get is a memcpy out of
// the arena whenever its receive matches. Messages keep their order: the
// copy's RTS goes out (or queues) exactly where the caller's would have.
#include <algorithm>
#include <cstring>
#include <new>

#include "core/worker_impl.hpp"
#include "proto/held_copy.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

void on_held_sent(void* user_data, Status status, const TagRecvInfo& /*info*/) {
  auto* held = static_cast<HeldCopy*>(user_data);
  WorkerImpl& worker = *held->worker;
  if (status != Status::Ok) {
    // The caller's send ended Ok long ago: all that is left to say is here.
    TERN_LOG(Error, "held send: %zu bytes taken over from the caller failed to reach their receiver: %s",
             held->length, to_string(status));
  }
  worker.held_bytes_ -= held->length;
  worker.held_cache_.put(held->block);
}

Status WorkerImpl::send_held(Endpoint* ep, const void* buffer, std::size_t length, uint64_t tag) {
  if (length > kMaxMessageLength ||
      length > params_.config.agent_memory - std::min(held_bytes_.load(), params_.config.agent_memory)) {
    return Status::NotFound;
  }
  // A peer that cannot map our arena: through the agent, where there is one.
  if (agent_ != nullptr && ep->iface != agent_->iface) return send_through_agent(ep, buffer, length, tag);
  // Only where the ordinary send might wait for the receiver, and where the
  // peer maps the arena (its rendezvous threshold for mapped memory is
  // SIZE_MAX otherwise).
  const std::size_t from = std::max(ep->rndv_threshold_mapped, ep->rndv_threshold_metered);
  if (length < from || ep->rndv_threshold_mapped == SIZE_MAX) return Status::NotFound;
  const HeldCache::Block block = held_cache_.get(ep->iface, sizeof(HeldCopy) + length);
  if (block.memory == nullptr) return Status::NotFound;
  auto* held = new (block.memory) HeldCopy{this, block, length};
  CallbackSlot* slot = new_callback_slot({&on_held_sent, held, nullptr}, true);
  if (slot == nullptr) {
    held_cache_.put(block);
    return Status::NotFound;
  }
  std::byte* copy = static_cast<std::byte*>(block.memory) + sizeof(HeldCopy);
  std::memcpy(copy, buffer, length);
  Request* request = nullptr;
  const Status status = tag_send_nb(ep, copy, length, tag, request, 0);
  if (status != Status::InProgress) {
    // Done at once (a receive on the peer's tag device took it) or failed.
    recycle_slot(slot);
    held_cache_.put(block);
    return status;
  }
  held_bytes_ += length;
  attach_slot(RequestImpl::from(request), slot);
  return Status::Ok;
}

}  // namespace tern::engine
