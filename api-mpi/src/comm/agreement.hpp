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

// Waits for the pending MPI_Comm_idup agreements. Only intercommunicator
// constructors need it: they take two contexts at once from the larger of
// two groups' agreements, which no single member's acceptance can check.
void settle_agreements();

// What a duplicate (`*newcomm`, just installed) takes from `parent` besides
// its ranks: the topology, the hints (`info`, or the parent's when null) and
// the attributes its keyvals' copy callbacks make. A callback that fails
// undoes the duplicate (`*newcomm` then MPI_COMM_NULL) and raises its code.
int fill_duplicate(const char* function, MPI_Comm parent_handle, const Comm& parent, const InfoEntries* info,
                   MPI_Comm* newcomm);

}  // namespace tern::mpi
