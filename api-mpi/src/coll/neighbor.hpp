// The neighbourhood collectives (neighbor.cpp: the blocking calls and the
// schedule they share; nbc_neighbor.cpp: the non-blocking and persistent
// calls). Every form is one schedule of a single round: a send per
// out-neighbour block and a receive per in-neighbour block, built from a
// description of the two buffers.
#pragma once

#include "mpi.h"

namespace tern::mpi {

// One side (send or receive) of a neighbourhood collective's arguments.
// Uniform forms give `count` and `type`; the v forms counts and
// displacements (in extents of `type`) with `type`; the w form counts,
// `byte_displs` and `types`. The int calls' arrays are `counts` and
// `displs`, their large-count (_c) forms' `large_counts` and `large_displs`
// (the w forms' byte displacements are MPI_Aint in both).
enum class NeighbourForm { Uniform, V, W };
struct NeighbourSide {
  NeighbourForm form = NeighbourForm::Uniform;
  const void* buffer = nullptr;
  MPI_Count count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const int* counts = nullptr;
  const int* displs = nullptr;
  const MPI_Count* large_counts = nullptr;
  const MPI_Aint* large_displs = nullptr;
  const MPI_Aint* byte_displs = nullptr;
  const MPI_Datatype* types = nullptr;

  [[nodiscard]] bool has_counts() const { return counts != nullptr || large_counts != nullptr; }
  [[nodiscard]] bool has_displs() const {
    return form == NeighbourForm::W ? byte_displs != nullptr : displs != nullptr || large_displs != nullptr;
  }
  // Block i's count, and (v forms) its displacement in extents.
  [[nodiscard]] MPI_Count count_of(int i) const {
    if (form == NeighbourForm::Uniform) return count;
    return large_counts != nullptr ? large_counts[i] : counts[i];
  }
  [[nodiscard]] MPI_Aint displ_of(int i) const { return large_displs != nullptr ? large_displs[i] : displs[i]; }
};

enum class NeighbourMode { Blocking, Nonblocking, Persistent };

// `gather`: the send side is one block, sent to every out-neighbour
// (allgather(v)); otherwise one block per out-neighbour. `request` is unused
// for the blocking forms, which return when their schedule has run.
int neighbour_collective(const char* function, MPI_Comm handle, const NeighbourSide& send, const NeighbourSide& recv,
                         bool gather, NeighbourMode mode, MPI_Request* request);

// The argument sides of each form (shared by the blocking, non-blocking and
// persistent entry points, int and _c).
inline NeighbourSide uniform_side(const void* buffer, MPI_Count count, MPI_Datatype type) {
  return NeighbourSide{.form = NeighbourForm::Uniform, .buffer = buffer, .count = count, .type = type};
}
inline NeighbourSide v_side(const void* buffer, const int counts[], const int displs[], MPI_Datatype type) {
  return NeighbourSide{.form = NeighbourForm::V, .buffer = buffer, .type = type, .counts = counts, .displs = displs};
}
inline NeighbourSide v_side(const void* buffer, const MPI_Count counts[], const MPI_Aint displs[],
                            MPI_Datatype type) {
  return NeighbourSide{
      .form = NeighbourForm::V, .buffer = buffer, .type = type, .large_counts = counts, .large_displs = displs};
}
inline NeighbourSide w_side(const void* buffer, const int counts[], const MPI_Aint displs[],
                            const MPI_Datatype types[]) {
  return NeighbourSide{
      .form = NeighbourForm::W, .buffer = buffer, .counts = counts, .byte_displs = displs, .types = types};
}
inline NeighbourSide w_side(const void* buffer, const MPI_Count counts[], const MPI_Aint displs[],
                            const MPI_Datatype types[]) {
  return NeighbourSide{
      .form = NeighbourForm::W, .buffer = buffer, .large_counts = counts, .byte_displs = displs, .types = types};
}

}  // namespace tern::mpi
