// What a process hands its host's progress agent for a held message to
// another host (proto/agent_send.cpp, agent/progress_agent.cpp): a command,
// tagged kAgentCommandTag in the agent's own tag space, then the data,
// tagged with the command's data tag, which is unique on the host (the
// sender's index among the agent's senders, then its ticket).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tern::engine::agent {

inline constexpr uint64_t kAgentCommandTag = ~uint64_t{0};
inline constexpr unsigned kTicketBits = 48;
inline constexpr uint64_t kMaxTicket = (uint64_t{1} << kTicketBits) - 1;

[[nodiscard]] constexpr uint64_t data_tag(uint64_t sender_index, uint64_t ticket) noexcept {
  return (sender_index << kTicketBits) | (ticket & kMaxTicket);
}

// Followed by the receiver's packed worker address (address_length bytes),
// then its host's agent's (agent_address_length bytes; 0: none known).
struct AgentCommand {
  uint64_t sender_uuid;
  uint64_t ticket;
  uint64_t length;
  uint64_t data_tag;
  uint64_t address_length;
  uint64_t agent_address_length;
};
static_assert(std::is_trivially_copyable_v<AgentCommand> && sizeof(AgentCommand) == 48);

// The largest command: worker addresses are a few hundred bytes at most.
inline constexpr std::size_t kMaxCommandBytes = sizeof(AgentCommand) + 8192;

// Agent to agent (the receiver's side of smart progression): the sender's
// agent hands the message to the receiver's host's agent as a multi-buffer
// transfer tagged kRelayTag, frame 0 a RelayHeader and the receiver's
// address, frame 1 the data, which lands in the receiving agent's arena;
// that agent announces it to the receiver, whose fetch is then a memcpy.
inline constexpr uint64_t kRelayTag = ~uint64_t{0} - 1;

struct RelayHeader {
  uint64_t sender_uuid;
  uint64_t ticket;
  uint64_t address_length;  // the receiver's address follows
};
static_assert(std::is_trivially_copyable_v<RelayHeader> && sizeof(RelayHeader) == 24);

}  // namespace tern::engine::agent
