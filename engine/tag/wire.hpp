// On-the-wire layout of the tag protocols' active messages. Every header is
// a trivially copyable struct written at the start of a transport message;
// payload bytes follow it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tern::engine::tag {

enum AmId : uint8_t {
  kAmHello = 1,       // first message on a connection: the sender's worker address
  kAmEager = 2,       // whole message in one transport message: [tag][data]
  kAmEagerSync = 3,   // one message, sender waits for a match: EagerSyncHeader + data
  kAmEagerFirst = 4,  // first fragment of a multi-fragment message: EagerFirstHeader + data
  kAmEagerMiddle = 5, // later fragments: FragmentHeader + data
  kAmRndvRts = 6,     // rendezvous request to send: RtsHeader
  kAmSendAck = 7,     // completes a sender's request (after a rendezvous get or a sync match)
  kAmSendCancel = 8,     // the sender asks to cancel a send still waiting for its receiver: SendCancelHeader
  kAmSendCanceled = 9,   // the receiver dropped it unmatched: SendAckHeader
  kAmCancelRefused = 10, // a receive had taken it; its ack comes as usual: SendAckHeader
  kAmAgentTicket = 11,   // a held message that the sender's progress agent carries: AgentTicketHeader
  kAmAgentRts = 12,      // the agent has a ticket's data: AgentRtsHeader (a rendezvous from the agent)
  kAmAgentDone = 13,     // the agent to the sender: a ticket's receiver has the data (words: ticket, length)
};

struct EagerSyncHeader {
  uint64_t tag;
  uint64_t sender_uuid;
  uint64_t sender_request;
};

struct EagerFirstHeader {
  uint64_t tag;
  uint64_t sender_uuid;
  uint64_t total_length;
  uint64_t sender_request;  // non-zero for synchronous sends: the ack id
};

struct FragmentHeader {
  uint64_t sender_uuid;
};

struct RtsHeader {
  uint64_t tag;
  uint64_t sender_uuid;
  uint64_t sender_request;
  uint64_t address;  // of the sender's buffer, for the receiver's zero-copy get
  uint64_t length;
  uint64_t offer_key;  // the lane's offer of that buffer (Ep::offer_zcopy); 0: none
};

// The ids that name a sender's request on the wire (sender_request above
// and here) are its worker's ack ids, {generation, index + 1} in a table of
// sends waiting for an acknowledgement, never pointers: the sender looks
// them up and refuses what names nothing.
struct SendAckHeader {
  uint64_t sender_request;
  uint64_t receiver_uuid;  // the acknowledging worker: only the peer sent to may acknowledge
};

struct SendCancelHeader {
  uint64_t sender_request;
  uint64_t sender_uuid;  // the asking worker: only the sender may cancel its send
};
// Held sends to another host (proto/held_send.cpp, proto/agent_recv.cpp):
// the sender gives the data to its host's progress agent and sends the
// receiver, in its place among its messages, a ticket that matches as the
// message would; the agent announces the data under the same (sender,
// ticket), and the receiver fetches it from the agent once the ticket has
// matched a receive.
struct AgentTicketHeader {
  uint64_t tag;
  uint64_t sender_uuid;
  uint64_t length;
  uint64_t ticket;  // the sender's number for the message, never 0
};

struct AgentRtsHeader {
  uint64_t ticket;
  uint64_t sender_uuid;    // who sent the message (the ticket's sender)
  uint64_t agent_uuid;     // who holds the data now
  uint64_t agent_request;  // the agent's ack id
  uint64_t address;        // of the data in the agent's memory
  uint64_t length;
  uint64_t offer_key;      // the agent's lane's offer of it; 0: none
};

static_assert(std::is_trivially_copyable_v<EagerFirstHeader> && sizeof(EagerFirstHeader) == 32);
static_assert(sizeof(AgentTicketHeader) == 32 && sizeof(AgentRtsHeader) == 56);
static_assert(sizeof(RtsHeader) == 48 && sizeof(SendAckHeader) == 16);

}  // namespace tern::engine::tag
