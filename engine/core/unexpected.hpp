// A message that arrived before a matching receive: its envelope, and either
// its bytes (eager) or where to fetch them (rendezvous).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tag/matcher.hpp"

namespace tern::engine {

class Endpoint;

// Ticket: a held message whose data the sender's progress agent will
// announce (proto/agent_recv.cpp); remote_address holds the ticket.
enum class UnexpectedKind : uint8_t { Eager, Rendezvous, Ticket };

// Also the public opaque handle of a probed message (tern::engine::Message).
struct Message {
  tag::UnexpectedEntry entry;
  UnexpectedKind kind = UnexpectedKind::Eager;
  bool in_matcher = false;     // false once probed away (a Message handle)
  Endpoint* sender = nullptr;  // for acks and further fragments
  uint64_t sender_request = 0; // non-zero: the sender waits for an ack
  uint64_t remote_address = 0; // rendezvous: the sender's buffer
  uint64_t offer_key = 0;      // rendezvous: the sender's offer of it (0: none)
  std::size_t length = 0;      // the whole message
  std::size_t arrived = 0;     // eager bytes received so far
  std::byte* data = nullptr;   // eager bytes (inline_data or heap)
  Message* next_free = nullptr;
  alignas(16) std::byte inline_data[192];
};

using UnexpectedMessage = Message;

}  // namespace tern::engine
