// Held messages from other hosts, on the receiver (wire.hpp's
// AgentTicketHeader and AgentRtsHeader): the ticket matches in the sender's
// place among its messages, as an RTS would; the data comes from the
// sender's progress agent, fetched once both the match and the agent's
// announcement are here.
#include <cstring>

#include "core/worker_impl.hpp"
#include "proto/wire_read.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

void WorkerImpl::bind_ticket(RequestImpl* r, uint64_t sender_uuid, uint64_t ticket, std::size_t length) {
  auto [it, inserted] = tickets_.try_emplace(TicketKey{sender_uuid, ticket});
  TicketState& state = it->second;
  if (!inserted && (state.receive != nullptr || state.data_length != length)) {
    // A second ticket of the same number, or an announcement that does not
    // fit it: neither can be told apart from the other any more.
    tickets_.erase(it);
    TERN_LOG(Error, "held message %llu from %s: ticket and announcement disagree; receive failed",
             static_cast<unsigned long long>(ticket), label_of(sender_uuid).c_str());
    complete(r, Status::IoError);
    return;
  }
  if (state.agent == nullptr) {
    state.receive = r;
    state.length = length;
    return;
  }
  Endpoint* agent = state.agent;
  const transport::RemoteMemory data = state.data;
  const uint64_t agent_request = state.agent_request;
  tickets_.erase(it);
  start_get(r, agent, data, length, agent_request);
}

namespace proto {

bool on_agent_ticket(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "held-message ticket";
  tag::AgentTicketHeader header;
  if (!read_header(data, length, header)) return worker.reject(nullptr, kWhat, length);
  Endpoint* sender = worker.find_endpoint(header.sender_uuid);
  if (sender == nullptr) return worker.reject_unknown(header.sender_uuid, kWhat, length);
  if (sender->failure != Status::Ok) return true;
  if (header.ticket == 0 || header.length > kMaxMessageLength || length != sizeof(header)) {
    return worker.reject(sender, kWhat, length);
  }
  const auto total = static_cast<std::size_t>(header.length);
  if (tag::ExpectedEntry* entry = worker.match_posted(header.tag)) {
    RequestImpl* r = RequestImpl::from_expected(entry);
    r->mutable_info() = {header.tag, total};
    worker.bind_ticket(r, header.sender_uuid, header.ticket, total);
    return true;
  }
  Message* m = worker.unexpected_.get();
  if (m == nullptr) {
    TERN_LOG(Error, "held message: no memory for an unexpected ticket; dropped");
    return true;
  }
  m->entry.tag = header.tag;
  m->kind = UnexpectedKind::Ticket;
  m->sender = sender;
  m->sender_request = 0;
  m->remote_address = header.ticket;
  m->offer_key = 0;
  m->length = total;
  m->arrived = total;  // nothing more comes from the sender itself
  m->data = m->inline_data;
  m->in_matcher = true;
  worker.matcher_.add_unexpected(&m->entry);
  return true;
}

bool on_agent_rts(void* arg, const void* data, std::size_t length) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  constexpr const char* kWhat = "progress agent's announcement";
  tag::AgentRtsHeader header;
  if (!read_header(data, length, header)) return worker.reject(nullptr, kWhat, length);
  Endpoint* agent = worker.find_endpoint(header.agent_uuid);
  if (agent == nullptr) return worker.reject_unknown(header.agent_uuid, kWhat, length);
  if (agent->failure != Status::Ok) return true;
  if (header.ticket == 0 || header.agent_request == 0 || header.length > kMaxMessageLength ||
      (header.address == 0 && header.length != 0) || length != sizeof(header)) {
    return worker.reject(agent, kWhat, length);
  }
  const auto total = static_cast<std::size_t>(header.length);
  auto [it, inserted] = worker.tickets_.try_emplace(TicketKey{header.sender_uuid, header.ticket});
  TicketState& state = it->second;
  if (state.agent != nullptr || (state.receive != nullptr && state.length != total)) {
    RequestImpl* waiting = state.receive;
    worker.tickets_.erase(it);
    if (waiting != nullptr) worker.complete(waiting, Status::IoError);
    return worker.reject(agent, kWhat, length);
  }
  if (state.receive == nullptr) {
    state.agent = agent;
    state.data = {header.address, header.offer_key};
    state.data_length = total;
    state.agent_request = header.agent_request;
    return true;
  }
  RequestImpl* r = state.receive;
  worker.tickets_.erase(it);
  worker.start_get(r, agent, {header.address, header.offer_key}, total, header.agent_request);
  return true;
}

}  // namespace proto
}  // namespace tern::engine
