// What the non-blocking and persistent collective calls share (nbc_*.cpp),
// counts as MPI_Count for their int and large-count (_c) forms alike:
// the prologue, datatypes seen as byte blocks, reductions seen as arrays of
// one predefined type. Each call builds a schedule (schedule.hpp) and hands
// it to a request: MPI_Ixxx starts it, MPI_Xxx_init keeps it for MPI_Start.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "coll/coll.hpp"
#include "coll/inter.hpp"
#include "coll/schedule.hpp"

namespace tern::mpi {

// MPI runs, `handle` names a communicator, `request` is not null.
inline int nbc_prologue(const char* function, MPI_Comm handle, MPI_Request* request, Comm*& comm) {
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  if (request == nullptr) return raise(comm, MPI_ERR_REQUEST, function, "null request argument");
  if (TERN_UNLIKELY(comm->inter)) {
    return unsupported(comm, function,
                       "this non-blocking or persistent collective on an intercommunicator (those there: barrier, "
                       "bcast, reduce, allreduce, gather(v), scatter(v), allgather(v), alltoall(v,w), "
                       "reduce_scatter(_block))");
  }
  return MPI_SUCCESS;
}

// --- Intercommunicators (nbc_inter.cpp): the entry points hand them here
// before their own checks, as the blocking ones do (inter.hpp); forms not
// handed here meet nbc_prologue's refusal.
struct InterCall {
  const char* function;
  Comm& comm;  // the intercommunicator
  MPI_Comm handle;
  bool persistent;
  MPI_Request* request;
};
int inter_ibarrier(const InterCall& call);
int inter_ibcast(const InterCall& call, void* buffer, int count, MPI_Datatype datatype, int root);
// Reduce to `root`, or (`all`) Allreduce.
int inter_ireduce(const InterCall& call, bool all, const void* sendbuf, void* recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, int root);
// Gather (`gather`) or Scatter: `mine` a member's own part, `root_buffer`
// the root's, root_count instances per remote rank.
int inter_irooted(const InterCall& call, bool gather, const void* mine, int mine_count, MPI_Datatype mine_type,
                  const void* root_buffer, int root_count, MPI_Datatype root_type, int root);
// Allgather, or (`alltoall`) Alltoall.
int inter_iall(const InterCall& call, bool alltoall, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype);

// A datatype as the schedules see it: `size` bytes of data per instance,
// `extent` bytes apart; `layout` set when it must be packed.
struct DataShape {
  std::size_t size = 0;
  MPI_Aint extent = 0;
  std::shared_ptr<const DerivedType> layout;
};
int data_shape(const char* function, const Comm& comm, MPI_Count count, MPI_Datatype datatype, DataShape& shape);

// One part of a collective's buffer (a rank's, a neighbour's): where it is,
// how many instances of which type.
struct Part {
  void* address = nullptr;
  std::size_t count = 0;
  DataShape shape;
  [[nodiscard]] std::size_t bytes() const { return count * shape.size; }
};

// A reduction's operands as arrays of `elements` of the predefined `basic`
// (derived types whose elements are all one predefined type, with
// predefined operations) or as packed instances (user operations on derived
// types), `layout` set when instances must be packed.
struct ReductionShape {
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  std::size_t elem = 0;      // bytes of one basic element
  std::size_t per_instance = 1;  // basic elements per instance of the datatype
  std::shared_ptr<const DerivedType> layout;
  // A user operation on a derived type: `basic` is that type, an element one
  // instance, and the schedule calls the operation in the type's layout.
  std::shared_ptr<const DerivedType> user_layout;
};
int reduction_shape(const char* function, const Comm& comm, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    ReductionShape& shape);

// Intercommunicators, the v and w forms (nbc_inter.cpp): exchanges with
// every rank r of the remote group, recv[r] from it and send[r] to it
// (Allgatherv: the same part to all; MPI_IN_PLACE, `in_place`, is refused).
int inter_iexchange(const InterCall& call, const std::vector<Part>& send, const std::vector<Part>& recv,
                    bool in_place);
// Reduce_scatter(_block): `counts` per rank of the local group, which gets
// the other group's reduction.
int inter_ireduce_scatter(const InterCall& call, const void* sendbuf, void* recvbuf,
                          const std::vector<std::size_t>& counts, const ReductionShape& shape, MPI_Op op);
// Gatherv (`gather`) or Scatterv: the root (MPI_ROOT) has `parts`, one per
// rank of the remote group; a rank of that group its `own`.
int inter_irooted_parts(const InterCall& call, bool gather, const Part& own, const std::vector<Part>& parts, int root);

// The start of a reduction whose every rank gives and gets `count`
// instances (Iallreduce, Iscan, Iexscan): checks, then a schedule set up
// for the operation.
struct ReductionCall {
  Comm* comm = nullptr;
  ReductionShape shape;
  std::size_t instances = 0;
  std::size_t elements = 0;  // basic elements
  std::size_t bytes = 0;
  std::shared_ptr<Schedule> schedule;
};
int begin_reduction(const char* function, MPI_Comm handle, MPI_Request* request, const void* sendbuf, void* recvbuf,
                    MPI_Count count, MPI_Datatype datatype, MPI_Op op, bool persistent, ReductionCall& call);
// `recvbuf` seen by the schedule as an accumulator that holds this rank's
// part when the schedule starts (from `sendbuf`, or itself in place) and
// ends in `recvbuf`.
void* accumulate_in(ReductionCall& call, const void* sendbuf, void* recvbuf);

inline std::shared_ptr<Schedule> new_schedule(Comm& comm, bool persistent) {
  return std::make_shared<Schedule>(comm, persistent);
}

// Address of instance `index` of a buffer of `shape`.
inline void* instance_at(void* buffer, long long index, const DataShape& shape) {
  return static_cast<std::byte*>(buffer) + index * static_cast<long long>(shape.extent);
}
inline const void* instance_at(const void* buffer, long long index, const DataShape& shape) {
  return static_cast<const std::byte*>(buffer) + index * static_cast<long long>(shape.extent);
}

}  // namespace tern::mpi
