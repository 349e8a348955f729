// The progress agent of smart progression (../shared/seeds/003): a process
// per host, started by the host's first rank in jobs over several hosts,
// that carries held messages (kSendHeld, MPI's critical tags) to receivers
// on other hosts while senders and receivers compute. What the Job starts
// and how it watches it is agent/agent_process.hpp; the program that runs
// it is launcher/tern_agent.
#pragma once

namespace tern::engine {

// The agent's whole life, for the tern_agent program: reads its
// instructions from the environment its starter set (TERN_AGENT_JOB,
// TERN_AGENT_PEERS, TERN_AGENT_FD), creates its worker, writes the
// worker's address to the starter, then forwards held messages until
// SIGTERM or its starter's end. Returns the exit code.
int run_progress_agent();

}  // namespace tern::engine
