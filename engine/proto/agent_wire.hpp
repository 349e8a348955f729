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

// Followed by the receiver's packed worker address (address_length bytes).
struct AgentCommand {
  uint64_t sender_uuid;
  uint64_t ticket;
  uint64_t length;
  uint64_t data_tag;
  uint64_t address_length;
};
static_assert(std::is_trivially_copyable_v<AgentCommand> && sizeof(AgentCommand) == 40);

// The largest command: a worker address is a few hundred bytes at most.
inline constexpr std::size_t kMaxCommandBytes = sizeof(AgentCommand) + 4096;

}  // namespace tern::engine::agent
