// The blocking collectives on intercommunicators (inter.cpp): each
// collective entry point hands an intercommunicator here before its own
// checks, so the intracommunicator code never sees one.
#pragma once

#include "state.hpp"

namespace tern::mpi {

// The intercommunicator `handle` names; null for anything else (the
// intracommunicator code reports invalid handles).
[[nodiscard]] inline Comm* intercomm_of(MPI_Comm handle) noexcept {
  if (g_state == nullptr) return nullptr;
  Comm* comm = find_comm(handle);
  return comm != nullptr && comm->inter ? comm : nullptr;
}

// Counts and displacements per remote rank: arrays (v and w forms) or one
// count for all; displacements in elements of the type's extent, or bytes
// (w forms, which also give a type per rank).
struct InterLayout {
  const int* counts = nullptr;
  const int* displs = nullptr;
  int uniform = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const MPI_Datatype* types = nullptr;
  bool repeat = false;   // one block for every rank (Allgather's send)
  bool varying = false;  // counts and displs are the caller's arrays
};

int inter_barrier(Comm& comm);
int inter_bcast(Comm& comm, const char* function, void* buffer, int count, MPI_Datatype datatype, int root);
int inter_reduce(Comm& comm, const char* function, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root);
int inter_allreduce(Comm& comm, const char* function, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op);
// Gather(v) (`gather`) and Scatter(v): `mine` is a member's own part, `parts`
// the root's buffer laid out by `layout`.
int inter_rooted(Comm& comm, const char* function, bool gather, const void* mine, int mine_count,
                 MPI_Datatype mine_type, const void* parts, const InterLayout& layout, int root);
// Allgather(v) (`send` one block for every remote rank) and Alltoall(v,w).
int inter_all(Comm& comm, const char* function, const void* sendbuf, const InterLayout& send, void* recvbuf,
              const InterLayout& recv);
// Reduce_scatter(_block): `counts` per local rank.
int inter_reduce_scatter(Comm& comm, const char* function, const void* sendbuf, void* recvbuf, const int counts[],
                         MPI_Datatype datatype, MPI_Op op);

}  // namespace tern::mpi
