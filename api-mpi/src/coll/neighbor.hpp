// The neighbourhood collectives (neighbor.cpp: the blocking calls and the
// schedule they share; nbc_neighbor.cpp: the non-blocking and persistent
// calls). Every form is one schedule of a single round: a send per
// out-neighbour block and a receive per in-neighbour block, built from a
// description of the two buffers.
#pragma once

#include "mpi.h"

namespace tern::mpi {

// One side (send or receive) of a neighbourhood collective's arguments.
// Uniform forms give `count` and `type`; the v forms `counts` and `displs`
// (in extents of `type`) with `type`; the w form `counts`, `byte_displs`
// and `types`.
enum class NeighbourForm { Uniform, V, W };
struct NeighbourSide {
  NeighbourForm form = NeighbourForm::Uniform;
  const void* buffer = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const int* counts = nullptr;
  const int* displs = nullptr;
  const MPI_Aint* byte_displs = nullptr;
  const MPI_Datatype* types = nullptr;
};

enum class NeighbourMode { Blocking, Nonblocking, Persistent };

// `gather`: the send side is one block, sent to every out-neighbour
// (allgather(v)); otherwise one block per out-neighbour. `request` is unused
// for the blocking forms, which return when their schedule has run.
int neighbour_collective(const char* function, MPI_Comm handle, const NeighbourSide& send, const NeighbourSide& recv,
                         bool gather, NeighbourMode mode, MPI_Request* request);

// The argument sides of each form (shared by the blocking, non-blocking and
// persistent entry points).
inline NeighbourSide uniform_side(const void* buffer, int count, MPI_Datatype type) {
  return NeighbourSide{NeighbourForm::Uniform, buffer, count, type, nullptr, nullptr, nullptr, nullptr};
}
inline NeighbourSide v_side(const void* buffer, const int counts[], const int displs[], MPI_Datatype type) {
  return NeighbourSide{NeighbourForm::V, buffer, 0, type, counts, displs, nullptr, nullptr};
}
inline NeighbourSide w_side(const void* buffer, const int counts[], const MPI_Aint displs[],
                            const MPI_Datatype types[]) {
  return NeighbourSide{NeighbourForm::W, buffer, 0, MPI_DATATYPE_NULL, counts, nullptr, displs, types};
}

}  // namespace tern::mpi
