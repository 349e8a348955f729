// Context agreements beside the parent-wide blocking one of comm.cpp:
// MPI_Comm_idup's, a non-blocking schedule, and MPI_Comm_create_group's,
// among the group's members only (agreement.cpp).
#pragma once

#include <cstdint>

#include "info/info.hpp"
#include "state.hpp"

namespace tern::mpi {

// MPI_Comm_create_group's and MPI_Comm_create_from_group's agreements run
// in this context (with the collective bit), their messages sent by job
// rank: no communicator takes a context from kFirstReservedContext on.
// The program's tags fill 23 bits; string tags (MPI_Comm_create_from_group)
// become message tags with the 24th set, so the two calls never meet.
inline constexpr uint16_t kGroupAgreementContext = kCollectiveBit - 1;
inline constexpr uint16_t kFirstReservedContext = kGroupAgreementContext;
inline constexpr unsigned kStringTagBit = unsigned{kTagUb} + 1;

// Waits for the pending MPI_Comm_idup agreements of every communicator but
// `keep` (MPI_COMM_NULL: all of them), and moves this process's next
// context past the ones that ended. Every new agreement calls it first.
void settle_agreements(MPI_Comm keep);

// What a duplicate (`*newcomm`, just installed) takes from `parent` besides
// its ranks: the topology, the hints (`info`, or the parent's when null) and
// the attributes its keyvals' copy callbacks make. A callback that fails
// undoes the duplicate (`*newcomm` then MPI_COMM_NULL) and raises its code.
int fill_duplicate(const char* function, MPI_Comm parent_handle, const Comm& parent, const InfoEntries* info,
                   MPI_Comm* newcomm);

}  // namespace tern::mpi
