// The receiver's side of held messages from other hosts
// (proto/agent_recv.cpp): for each (sender, ticket), whichever came first of
// the receive the ticket matched and the agent's announcement of the data,
// until the other comes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "transport/iface.hpp"

namespace tern::engine {

class Endpoint;
class RequestImpl;

struct TicketKey {
  uint64_t sender_uuid;
  uint64_t ticket;
  bool operator==(const TicketKey&) const = default;
};

struct TicketKeyHash {
  std::size_t operator()(const TicketKey& key) const noexcept {
    return static_cast<std::size_t>(key.sender_uuid * 0x9E3779B97F4A7C15ull ^ key.ticket);
  }
};

struct TicketState {
  RequestImpl* receive = nullptr;  // matched, waiting for the data
  std::size_t length = 0;          // the ticket's announced length
  // The agent's announcement, once here.
  Endpoint* agent = nullptr;
  transport::RemoteMemory data;
  std::size_t data_length = 0;
  uint64_t agent_request = 0;
};

using AgentTickets = std::unordered_map<TicketKey, TicketState, TicketKeyHash>;

}  // namespace tern::engine
