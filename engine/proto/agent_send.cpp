// Held sends to other hosts (smart progression's progress agent,
// ../shared/seeds/003). The sender copies the message once into a block of
// its shared arena and hands it to its host's agent (a command naming the
// receiver, then the data, which the agent fetches with a memcpy); the
// caller's send is then complete. In the message's place among the sender's
// sends to the receiver goes a ticket, which matches there as the message
// would have. The agent announces the data to the receiver (kAmAgentRts)
// and serves the receiver's fetch, however long the receiver computes;
// once the receiver has it, the agent tells the sender (kAmAgentDone), whose
// held bytes (TERN_AGENT_MEMORY) then go down. The receiver's side is
// proto/agent_recv.cpp, the agent's loop agent/progress_agent.cpp.
#include <cstring>
#include <new>

#include "core/worker_impl.hpp"
#include "proto/agent_wire.hpp"
#include "proto/held_copy.hpp"
#include "proto/wire_read.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

std::size_t pack_agent_ticket(void* dest, std::size_t capacity, void* arg) {
  auto* r = static_cast<RequestImpl*>(arg);
  const tag::AgentTicketHeader header{r->tag, r->worker->uuid_, r->length, r->offset};
  if (capacity < sizeof(header)) return 0;
  std::memcpy(dest, &header, sizeof(header));
  return sizeof(header);
}

std::size_t pack_agent_rts(void* dest, std::size_t capacity, void* arg) {
  auto* r = static_cast<RequestImpl*>(arg);
  const tag::AgentRtsHeader header{r->tag, r->peer_request, r->worker->uuid_, r->ack_id,
                                   reinterpret_cast<uint64_t>(r->buffer), r->length, r->offer_key};
  if (capacity < sizeof(header)) return 0;
  std::memcpy(dest, &header, sizeof(header));
  return sizeof(header);
}

}  // namespace

Status WorkerImpl::send_through_agent(Endpoint* ep, const void* buffer, std::size_t length, uint64_t tag) {
  if (agent_ == nullptr || agent_->failure != Status::Ok || ep == agent_ || ep->peer_uuid == uuid_ ||
      length < ep->rndv_threshold || last_ticket_ >= agent::kMaxTicket) {
    return Status::NotFound;
  }
  const auto address = peer_addresses_.find(ep->peer_uuid);
  if (address == peer_addresses_.end()) return Status::NotFound;
  auto receiver_agent = peer_agents_.find(ep->peer_uuid);
  if (receiver_agent == peer_agents_.end()) {
    std::vector<std::byte> found;
    if (agent_directory_ == nullptr || !agent_directory_(agent_directory_arg_, ep->peer_uuid, found)) found.clear();
    receiver_agent = peer_agents_.emplace(ep->peer_uuid, std::move(found)).first;
  }
  const std::vector<std::byte>& agent_address = receiver_agent->second;
  const std::size_t command_bytes = sizeof(agent::AgentCommand) + address->second.size() + agent_address.size();
  if (command_bytes > agent::kMaxCommandBytes) return Status::NotFound;
  const std::size_t data_offset = align_up(sizeof(HeldCopy) + command_bytes, 64);
  const HeldCache::Block block = held_cache_.get(agent_->iface, data_offset + length);
  if (block.memory == nullptr) return Status::NotFound;
  // The block goes back once the agent has the data; the held bytes once
  // the receiver has it (kAmAgentDone), so the header counts none.
  auto* held = new (block.memory) HeldCopy{this, block, 0};
  CallbackSlot* slot = new_callback_slot({&on_held_sent, held, nullptr}, true);
  if (slot == nullptr) {
    held_cache_.put(block);
    return Status::NotFound;
  }
  auto* bytes = static_cast<std::byte*>(block.memory);
  const uint64_t ticket = ++last_ticket_;
  const agent::AgentCommand command{uuid_, ticket, length, agent::data_tag(agent_sender_index_, ticket),
                                    address->second.size(), agent_address.size()};
  std::byte* text = bytes + sizeof(HeldCopy);
  std::memcpy(text, &command, sizeof(command));
  std::memcpy(text + sizeof(command), address->second.data(), address->second.size());
  if (!agent_address.empty()) {
    std::memcpy(text + sizeof(command) + address->second.size(), agent_address.data(), agent_address.size());
  }
  std::memcpy(bytes + data_offset, buffer, length);

  // The command, then the data: one lane, so the agent has the command first.
  Request* request = nullptr;
  Status status = tag_send_nb(agent_, bytes + sizeof(HeldCopy), command_bytes, agent::kAgentCommandTag, request, 0);
  if (status == Status::InProgress) {
    release(RequestImpl::from(request));  // its bytes live in the block, which outlives it
  } else if (status != Status::Ok) {
    recycle_slot(slot);
    held_cache_.put(block);
    return Status::NotFound;
  }
  status = tag_send_nb(agent_, bytes + data_offset, length, command.data_tag, request, 0);
  if (status == Status::InProgress) {
    attach_slot(RequestImpl::from(request), slot);
  } else {
    // Done at once, so the command before it is out too; or failed, and the
    // agent, which has the command, waits on: the job ends with the agent's
    // lane (peer failure), so the receiver does not wait for it.
    recycle_slot(slot);
    held_cache_.put(block);
    if (status != Status::Ok) return status;
  }

  // The ticket, where the message would have gone.
  RequestImpl* r = new_request(RequestKind::Control);
  if (r == nullptr) return Status::NoMemory;
  r->endpoint = ep;
  r->protocol = SendProtocol::AgentTicket;
  r->tag = tag;
  r->length = length;
  r->offset = ticket;
  status = ep->send_queue.empty() ? send_progress(r) : Status::WouldBlock;
  if (status == Status::WouldBlock) {
    enqueue_send(ep, r);
  } else {
    requests_.put(r);
    if (status != Status::Ok) return status;
  }
  held_bytes_ += length;
  return Status::Ok;
}

Status WorkerImpl::send_agent_message(RequestImpl* r) {
  if (r->protocol == SendProtocol::AgentTicket) {
    const ssize_t packed = r->endpoint->lane->am_bcopy(tag::kAmAgentTicket, &pack_agent_ticket, r);
    return packed < 0 ? static_cast<Status>(packed) : Status::Ok;
  }
  const ssize_t packed = r->endpoint->lane->am_bcopy(tag::kAmAgentRts, &pack_agent_rts, r);
  return packed < 0 ? static_cast<Status>(packed) : Status::InProgress;
}

void Worker::set_agent(Endpoint* agent, unsigned sender_index, AgentDirectory directory, void* directory_arg) {
  WorkerImpl::Guard guard(*impl_);
  impl_->agent_ = agent;
  impl_->agent_sender_index_ = sender_index;
  impl_->agent_directory_ = directory;
  impl_->agent_directory_arg_ = directory_arg;
}

Status Worker::agent_forward(Endpoint* receiver, const void* data, std::size_t length, uint64_t sender_uuid,
                             uint64_t ticket, const Callback& callback) {
  if (!check_callback("agent_forward", callback)) return Status::InvalidParam;
  if (ticket == 0 || (data == nullptr && length != 0) || length > kMaxMessageLength) {
    TERN_LOG(Error, "agent_forward: invalid ticket %llu or buffer %p of %zu bytes",
             static_cast<unsigned long long>(ticket), data, length);
    return Status::InvalidParam;
  }
  WorkerImpl::Guard guard(*impl_);
  WorkerImpl& worker = *impl_;
  if (Status s = worker.check_endpoint("agent_forward", receiver); s != Status::Ok) return s;
  RequestImpl* r = worker.new_request(RequestKind::Send);
  if (r == nullptr) return Status::NoMemory;
  r->endpoint = receiver;
  r->buffer = const_cast<void*>(data);
  r->length = length;
  r->tag = ticket;
  r->peer_request = sender_uuid;  // whom to tell once the receiver has it (on_send_ack)
  r->protocol = SendProtocol::AgentRts;
  r->offer_key = receiver->lane->offer_zcopy(data, length);
  r->ack_id = worker.acks_.add(r);
  const Status status = receiver->send_queue.empty() ? worker.send_progress(r) : Status::WouldBlock;
  if (status == Status::WouldBlock) {
    worker.enqueue_send(receiver, r);
  } else if (status != Status::InProgress) {
    worker.acks_.remove(r->ack_id);
    if (r->offer_key != 0) receiver->own_lane->withdraw_zcopy(r->offer_key);
    worker.requests_.put(r);
    return status;
  }
  return worker.attach_callback(r, callback);
}

void WorkerImpl::tell_sender(uint64_t sender_uuid, std::size_t length) {
  Endpoint* sender = find_endpoint(sender_uuid);
  if (sender != nullptr && sender->failure == Status::Ok) send_control(sender, tag::kAmAgentDone, length, uuid_);
}

void Worker::agent_done(uint64_t sender_uuid, std::size_t length) {
  WorkerImpl::Guard guard(*impl_);
  impl_->tell_sender(sender_uuid, length);
}

void Worker::finish_held_sends() {
  wait_until([](void* impl) { return static_cast<WorkerImpl*>(impl)->held_bytes_.load() == 0; }, impl_.get());
}

namespace proto {

// From the agent: a held message reached its receiver. The words are the
// message's length and the agent's uuid; only our agent may say so.
bool on_agent_done(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "progress agent's notice";
  uint64_t words[2];
  if (length != sizeof(words)) return worker.reject(nullptr, kWhat, length);
  std::memcpy(words, data, sizeof(words));
  Endpoint* agent = worker.find_endpoint(words[1]);
  if (agent == nullptr) return worker.reject_unknown(words[1], kWhat, length);
  if (agent != worker.agent_ || words[0] > worker.held_bytes_) return worker.reject(agent, kWhat, length);
  worker.held_bytes_ -= static_cast<std::size_t>(words[0]);
  return true;
}

}  // namespace proto
}  // namespace tern::engine
