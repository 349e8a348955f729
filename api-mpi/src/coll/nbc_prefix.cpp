// Non-blocking and persistent reduce-scatter and prefix reductions:
// MPI_Ireduce_scatter(_block), MPI_Iscan, MPI_Iexscan and their MPI_*_init
// forms, int and large-count (_c), as schedules: reduce to rank 0 then
// scatter (as the blocking forms), and a chain in rank order for the
// prefixes.
#include <vector>

#include "coll/nbc.hpp"
#include "op/op.hpp"

namespace tern::mpi {
namespace {

// A buffer of `count` instances that the schedule reads as it is at the
// start, into scratch of its own (packed or copied).
const void* snapshot(Schedule& s, const void* buffer, std::size_t count, std::size_t bytes,
                     const std::shared_ptr<const DerivedType>& layout) {
  const void* view = s.send_view(buffer, count, layout);
  if (view != buffer) return view;  // packed already
  std::byte* copy = s.scratch(bytes);
  s.copy(buffer, copy, bytes);
  return copy;
}

// Reduce_scatter (`recvcounts`, int or MPI_Count) or, when `recvcounts` is
// null, Reduce_scatter_block (`uniform_count` for every rank).
template <class Count>
int reduce_scatter(const char* function, const void* sendbuf, void* recvbuf, const Count recvcounts[],
                   MPI_Count uniform_count, MPI_Datatype datatype, MPI_Op op, MPI_Comm handle, bool persistent,
                   MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  Comm* comm = intercomm_of(handle);
  if (comm == nullptr) {
    if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  }
  ReductionShape shape;
  if (int err = reduction_shape(function, *comm, recvcounts != nullptr ? 0 : uniform_count, datatype, op, shape);
      err != MPI_SUCCESS) {
    return err;
  }
  std::vector<std::size_t> counts(static_cast<std::size_t>(comm->size), static_cast<std::size_t>(uniform_count));
  if (recvcounts != nullptr) {
    for (int r = 0; r < comm->size; ++r) {
      if (recvcounts[r] < 0) {
        return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld for rank %d",
                     static_cast<long long>(recvcounts[r]), r);
      }
      counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(recvcounts[r]);
    }
  }
  std::size_t total = 0;
  for (std::size_t count : counts) total += count;
  const std::size_t instance_bytes = shape.per_instance * shape.elem;
  if (int err = check_bytes(comm, function, static_cast<MPI_Count>(total), instance_bytes); err != MPI_SUCCESS) {
    return err;
  }
  if (comm->inter) {
    return inter_ireduce_scatter({function, *comm, handle, persistent, request}, sendbuf, recvbuf, counts, shape, op);
  }
  const std::size_t mine = counts[static_cast<std::size_t>(comm->rank)];
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if ((total != 0 && source == nullptr) || (mine != 0 && recvbuf == nullptr)) {
    return raise(comm, MPI_ERR_BUFFER, function, "null buffer");
  }
  auto schedule = new_schedule(*comm, persistent);
  schedule->set_reduction(op, shape.basic, shape.user_layout);
  std::byte* whole = schedule->scratch(total * instance_bytes);
  schedule->copy(schedule->send_view(source, total, shape.layout), whole, total * instance_bytes);
  schedule_reduce(*schedule, *comm, whole, total * shape.per_instance, shape.elem, op_commutative(op), 0);
  std::vector<Block> blocks;
  std::size_t offset = 0;
  for (std::size_t count : counts) {
    blocks.push_back(Block{whole + offset, count * instance_bytes});
    offset += count * instance_bytes;
  }
  schedule_scatter(*schedule, *comm, schedule->recv_view(recvbuf, mine, shape.layout), blocks, 0);
  return issue_schedule(function, *comm, handle, std::move(schedule), persistent, request);
}

// Reduce_scatter: its counts may not be null.
template <class Count>
int reduce_scatter_v(const char* function, const void* sendbuf, void* recvbuf, const Count recvcounts[],
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (recvcounts == nullptr && g_state != nullptr) {
    return raise(find_comm(handle), MPI_ERR_ARG, function, "null recvcounts argument");
  }
  return reduce_scatter(function, sendbuf, recvbuf, recvcounts, 0, datatype, op, handle, persistent, request);
}

int reduce_scatter_block(const char* function, const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm handle, bool persistent, MPI_Request* request) {
  return reduce_scatter(function, sendbuf, recvbuf, static_cast<const MPI_Count*>(nullptr), recvcount, datatype, op,
                        handle, persistent, request);
}

int scan(const char* function, bool exclusive, const void* sendbuf, void* recvbuf, MPI_Count count,
         MPI_Datatype datatype, MPI_Op op, MPI_Comm handle, bool persistent, MPI_Request* request) {
  ReductionCall call;
  if (int err = begin_reduction(function, handle, request, sendbuf, recvbuf, count, datatype, op, persistent, call);
      err != MPI_SUCCESS) {
    return err;
  }
  Schedule& schedule = *call.schedule;
  const Comm& comm = *call.comm;
  const auto& layout = call.shape.layout;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (exclusive) {
    const void* own = in_place ? snapshot(schedule, recvbuf, call.instances, call.bytes, layout)
                               : schedule.send_view(sendbuf, call.instances, layout);
    // Rank 0's receive buffer is left as it is.
    void* result = comm.rank > 0 ? schedule.recv_view(recvbuf, call.instances, layout) : nullptr;
    schedule_exscan(schedule, comm, own, result, call.elements, call.shape.elem);
  } else {
    schedule_scan(schedule, comm, accumulate_in(call, sendbuf, recvbuf), call.elements, call.shape.elem);
  }
  return issue_schedule(function, *call.comm, handle, std::move(call.schedule), persistent, request);
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_v("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, comm, false, request);
}
int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_v("MPI_Ireduce_scatter_c", sendbuf, recvbuf, recvcounts, datatype, op, comm, false, request);
}
int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce_scatter_v("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype, op, comm, true,
                          request);
}
int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce_scatter_v("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, recvcounts, datatype, op, comm, true,
                          request);
}
int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount, datatype, op, comm, false,
                              request);
}
int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, recvcount, datatype, op, comm, false,
                              request);
}
int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce_scatter_block("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, recvcount, datatype, op, comm, true,
                              request);
}
int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce_scatter_block("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, recvcount, datatype, op, comm,
                              true, request);
}
int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request* request) {
  return scan("MPI_Iscan", false, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
  return scan("MPI_Iscan_c", false, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Info, MPI_Request* request) {
  return scan("MPI_Scan_init", false, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scan("MPI_Scan_init_c", false, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
  return scan("MPI_Iexscan", true, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  return scan("MPI_Iexscan_c", true, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info, MPI_Request* request) {
  return scan("MPI_Exscan_init", true, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scan("MPI_Exscan_init_c", true, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
#pragma weak MPI_Iscan = PMPI_Iscan
#pragma weak MPI_Scan_init = PMPI_Scan_init
#pragma weak MPI_Iexscan = PMPI_Iexscan
#pragma weak MPI_Exscan_init = PMPI_Exscan_init
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
#pragma weak MPI_Iscan_c = PMPI_Iscan_c
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c

}  // extern "C"
