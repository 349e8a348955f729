// Non-blocking and persistent barrier, broadcast, reduce and allreduce:
// MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce and their MPI 4
// MPI_*_init forms, int and large-count (_c), as schedules; and the shapes
// nbc.hpp declares.
#include "coll/nbc.hpp"
#include "op/op.hpp"

namespace tern::mpi {

int data_shape(const char* function, const Comm& comm, MPI_Count count, MPI_Datatype datatype, DataShape& shape) {
  if (count < 0) return raise(&comm, MPI_ERR_COUNT, function, "invalid count %lld", count);
  if (!is_derived_handle(datatype)) {
    const TypeInfo* type = find_type(datatype);
    if (type == nullptr) return raise(&comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
    shape = DataShape{type->size, static_cast<MPI_Aint>(type->size), nullptr};
    return check_bytes(&comm, function, count, shape.size);
  }
  std::shared_ptr<const DerivedType> desc = describe_type(datatype);
  if (desc == nullptr) return raise(&comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (!desc->committed) return raise(&comm, MPI_ERR_TYPE, function, "datatype %d is not committed", datatype);
  shape.size = desc->size;
  shape.extent = desc->extent;
  shape.layout = desc->contiguous ? nullptr : std::move(desc);
  return check_bytes(&comm, function, count, shape.size);
}

int reduction_shape(const char* function, const Comm& comm, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    ReductionShape& shape) {
  if (count < 0) return raise(&comm, MPI_ERR_COUNT, function, "invalid count %lld", count);
  MPI_Datatype basic = datatype;
  if (is_derived_handle(datatype)) {
    std::shared_ptr<const DerivedType> desc = describe_type(datatype);
    if (desc == nullptr) return raise(&comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
    if (!desc->committed) return raise(&comm, MPI_ERR_TYPE, function, "datatype %d is not committed", datatype);
    if (is_user_op(op)) {
      shape.basic = datatype;
      shape.elem = desc->size;
      shape.layout = desc->contiguous ? nullptr : desc;
      shape.user_layout = std::move(desc);
      return check_bytes(&comm, function, count, shape.elem);
    }
    const TypeInfo* basic_type = find_type(desc->basic);
    if (basic_type == nullptr || desc->mixed || desc->size != desc->elements * basic_type->size) {
      return raise(&comm, MPI_ERR_OP, function,
                   "predefined operation %d is not defined on derived datatype %d (its elements are not all one "
                   "predefined type)",
                   op, datatype);
    }
    basic = desc->basic;
    shape.per_instance = desc->elements;
    shape.layout = desc->contiguous ? nullptr : std::move(desc);
  }
  const TypeInfo* type = find_type(basic);
  if (type == nullptr) return raise(&comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (int err = check_op(function, comm, op, basic, *type); err != MPI_SUCCESS) return err;
  shape.basic = basic;
  shape.elem = type->size;
  return check_bytes(&comm, function, count, shape.per_instance * shape.elem);
}

int begin_reduction(const char* function, MPI_Comm handle, MPI_Request* request, const void* sendbuf, void* recvbuf,
                    MPI_Count count, MPI_Datatype datatype, MPI_Op op, bool persistent, ReductionCall& call) {
  if (g_state == nullptr) return not_initialized(function);
  if (int err = nbc_prologue(function, handle, request, call.comm); err != MPI_SUCCESS) return err;
  if (int err = reduction_shape(function, *call.comm, count, datatype, op, call.shape); err != MPI_SUCCESS) {
    return err;
  }
  call.instances = static_cast<std::size_t>(count);
  call.elements = call.instances * call.shape.per_instance;
  call.bytes = call.elements * call.shape.elem;
  if (call.bytes != 0 && (sendbuf == nullptr || recvbuf == nullptr)) {
    return raise(call.comm, MPI_ERR_BUFFER, function, "null buffer");
  }
  call.schedule = new_schedule(*call.comm, persistent);
  call.schedule->set_reduction(op, call.shape.basic, call.shape.user_layout);
  return MPI_SUCCESS;
}

void* accumulate_in(ReductionCall& call, const void* sendbuf, void* recvbuf) {
  Schedule& schedule = *call.schedule;
  if (sendbuf == MPI_IN_PLACE) return schedule.inout_view(recvbuf, call.instances, call.shape.layout);
  void* accumulator = schedule.recv_view(recvbuf, call.instances, call.shape.layout);
  schedule.copy(schedule.send_view(sendbuf, call.instances, call.shape.layout), accumulator, call.bytes);
  return accumulator;
}

namespace {

int ibarrier(const char* function, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_ibarrier({function, *inter, handle, persistent, request});
  }
  Comm* comm = nullptr;
  if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  auto schedule = new_schedule(*comm, persistent);
  schedule_barrier(*schedule, *comm);
  return issue_schedule(function, *comm, handle, std::move(schedule), persistent, request);
}

int ibcast(const char* function, void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm handle,
           bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int narrow = 0;
    if (int err = narrow_count(inter, function, count, kInterPath, narrow); err != MPI_SUCCESS) return err;
    return inter_ibcast({function, *inter, handle, persistent, request}, buffer, narrow, datatype, root);
  }
  Comm* comm = nullptr;
  if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  if (int err = check_root(function, *comm, root); err != MPI_SUCCESS) return err;
  DataShape shape;
  if (int err = data_shape(function, *comm, count, datatype, shape); err != MPI_SUCCESS) return err;
  const auto n = static_cast<std::size_t>(count);
  if (buffer == nullptr && n * shape.size != 0) return raise(comm, MPI_ERR_BUFFER, function, "null buffer");
  auto schedule = new_schedule(*comm, persistent);
  void* data = comm->rank == root ? const_cast<void*>(schedule->send_view(buffer, n, shape.layout))
                                  : schedule->recv_view(buffer, n, shape.layout);
  schedule_bcast(*schedule, *comm, data, n * shape.size, root);
  return issue_schedule(function, *comm, handle, std::move(schedule), persistent, request);
}

// Reduce to `root` on an intercommunicator, or (`all`) Allreduce.
int inter_reduction(const InterCall& call, bool all, const void* sendbuf, void* recvbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, int root) {
  int narrow = 0;
  if (int err = narrow_count(&call.comm, call.function, count, kInterPath, narrow); err != MPI_SUCCESS) return err;
  return inter_ireduce(call, all, sendbuf, recvbuf, narrow, datatype, op, root);
}

int ireduce(const char* function, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
            MPI_Op op, int root, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_reduction({function, *inter, handle, persistent, request}, false, sendbuf, recvbuf, count, datatype,
                           op, root);
  }
  Comm* comm = nullptr;
  if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  if (int err = check_root(function, *comm, root); err != MPI_SUCCESS) return err;
  ReductionShape shape;
  if (int err = reduction_shape(function, *comm, count, datatype, op, shape); err != MPI_SUCCESS) return err;
  const auto n = static_cast<std::size_t>(count);
  const std::size_t elements = n * shape.per_instance;
  const std::size_t bytes = elements * shape.elem;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  if (bytes != 0 && (sendbuf == nullptr || (is_root && recvbuf == nullptr))) {
    return raise(comm, MPI_ERR_BUFFER, function, "null buffer");
  }
  auto schedule = new_schedule(*comm, persistent);
  schedule->set_reduction(op, shape.basic, shape.user_layout);
  void* accumulator = nullptr;
  if (!is_root) {
    accumulator = schedule->scratch(bytes);
  } else if (in_place) {
    accumulator = schedule->inout_view(recvbuf, n, shape.layout);
  } else {
    accumulator = schedule->recv_view(recvbuf, n, shape.layout);
  }
  if (!in_place) schedule->copy(schedule->send_view(sendbuf, n, shape.layout), accumulator, bytes);
  schedule_reduce(*schedule, *comm, accumulator, elements, shape.elem, op_commutative(op), root);
  return issue_schedule(function, *comm, handle, std::move(schedule), persistent, request);
}

int iallreduce(const char* function, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_reduction({function, *inter, handle, persistent, request}, true, sendbuf, recvbuf, count, datatype,
                           op, 0);
  }
  ReductionCall call;
  if (int err = begin_reduction(function, handle, request, sendbuf, recvbuf, count, datatype, op, persistent, call);
      err != MPI_SUCCESS) {
    return err;
  }
  void* result = accumulate_in(call, sendbuf, recvbuf);
  schedule_allreduce(*call.schedule, *call.comm, result, call.elements, call.shape.elem, op_commutative(op));
  return issue_schedule(function, *call.comm, handle, std::move(call.schedule), persistent, request);
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) { return ibarrier("MPI_Ibarrier", comm, false, request); }
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return ibarrier("MPI_Barrier_init", comm, true, request);
}

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return ibcast("MPI_Ibcast", buffer, count, datatype, root, comm, false, request);
}
int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return ibcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, false, request);
}
int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info,
                    MPI_Request* request) {
  return ibcast("MPI_Bcast_init", buffer, count, datatype, root, comm, true, request);
}
int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info,
                      MPI_Request* request) {
  return ibcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, true, request);
}

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* request) {
  return ireduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, false, request);
}
int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                   MPI_Comm comm, MPI_Request* request) {
  return ireduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, false, request);
}
int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return ireduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm, true, request);
}
int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return ireduce("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op, root, comm, true, request);
}

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request* request) {
  return iallreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request) {
  return iallreduce("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return iallreduce("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return iallreduce("MPI_Allreduce_init_c", sendbuf, recvbuf, count, datatype, op, comm, true, request);
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
#pragma weak MPI_Barrier_init = PMPI_Barrier_init
#pragma weak MPI_Ibcast = PMPI_Ibcast
#pragma weak MPI_Bcast_init = PMPI_Bcast_init
#pragma weak MPI_Ireduce = PMPI_Ireduce
#pragma weak MPI_Reduce_init = PMPI_Reduce_init
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c

}  // extern "C"
