// What the communicator constructors share (comm.cpp): contexts, the table
// of communicators; and the intercommunicator forms of the generic calls
// (intercomm.cpp), which comm.cpp hands intercommunicators to.
#pragma once

#include <memory>
#include <vector>

#include "info/info.hpp"
#include "state.hpp"

namespace tern::mpi {

// Every member of the intracommunicator `comm` proposes its next free
// context; the largest is free everywhere, and every member moves past it
// (also those that end up outside the new communicator), so contexts never
// repeat among communicators that share a process.
int agree_context(const char* function, Comm& comm, uint16_t& context);
// Puts `comm` in the table as `*newcomm`, with `parent`'s error handler.
int store_comm(const char* function, const Comm& parent, std::unique_ptr<Comm> comm, MPI_Comm* newcomm);
// A new intracommunicator of `job_ranks` (communicator rank -> job rank) in
// `context`, where this process is `rank`, reusing `parent`'s connections.
int install_comm(const char* function, const Comm& parent, std::vector<unsigned> job_ranks, int rank,
                 uint16_t context, MPI_Comm* newcomm);
// Releases a communicator's slot; its handle then names nothing.
void drop_comm(MPI_Comm handle);

// The hints Tern acts on (hints.cpp): tern_critical_tags. check_comm_hints
// raises MPI_ERR_INFO_VALUE on `comm`, naming `function`, the hint and its
// value, for a value Tern cannot use; adopt_comm_hints sets what comm.info's
// hints say (after a change that was checked).
int check_comm_hints(const Comm* comm, const char* function, const InfoEntries& entries);
void adopt_comm_hints(Comm& comm);

// Intercommunicators (intercomm.cpp).
int inter_dup(const char* function, Comm& comm, MPI_Comm* newcomm);
int inter_split(const char* function, Comm& comm, int color, int key, MPI_Comm* newcomm);
// MPI_Comm_compare's answer for two communicators of which one or both are
// intercommunicators.
int inter_compare(const Comm& a, const Comm& b);
// Drops the hidden communicators of an intercommunicator being freed.
void inter_free(Comm& comm);

}  // namespace tern::mpi
