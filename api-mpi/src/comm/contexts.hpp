// Communicator contexts: how the members of a new communicator agree on one
// (contexts.cpp has the rule), in steps that the blocking constructors run
// in a loop and MPI_Comm_idup runs as a non-blocking schedule.
#pragma once

#include <cstdint>

namespace tern::mpi {

// An agreement's place in this process's order of pending agreements:
// smaller first. Every member computes the same key for one agreement, from
// the parent's context and collective sequence (the order members call a
// parent's collectives in is the same everywhere); blocking agreements come
// before non-blocking ones.
[[nodiscard]] uint64_t agreement_key(bool blocking, uint16_t parent_context, uint64_t sequence) noexcept;

// Pending from enter to leave.
void enter_agreement(uint64_t key);
void leave_agreement(uint64_t key);

// One attempt: this process proposes (a fresh context, and moves past it,
// when `key` comes first among its pending agreements; else 0, and will
// refuse); the members take the largest proposal; each says whether it
// accepts it (and if so moves past it); any refusal starts another attempt.
// propose_context is false when no context is left.
[[nodiscard]] bool propose_context(uint64_t key, uint16_t& proposal);
[[nodiscard]] bool accept_context(uint64_t key, uint16_t proposal, uint16_t agreed);

// Moves this process past `count` contexts from `first` (an
// intercommunicator's, taken from two groups' agreements).
void take_contexts_from(uint16_t first, int count);

}  // namespace tern::mpi
