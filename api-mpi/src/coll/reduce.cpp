// The reductions: MPI_Reduce and MPI_Allreduce over the algorithms of
// algorithms.cpp, and reduce + scatter MPI_Reduce_scatter_block.
#include <cstring>
#include <vector>

#include "coll/coll.hpp"

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && g_state != nullptr && find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root("MPI_Reduce", *c, root);
    return derived_reduce(sendbuf, recvbuf, count, datatype, op, root, handle);
  }
  constexpr const char* kFunction = "MPI_Reduce";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  if (int err = check_op(kFunction, *comm, op, datatype, *type); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  if (bytes != 0 && (sendbuf == nullptr || (is_root && recvbuf == nullptr))) {
    return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  // The root accumulates in its receive buffer, the others in scratch.
  std::vector<std::byte> scratch;
  void* accumulator = recvbuf;
  if (!is_root) {
    scratch.resize(bytes);
    accumulator = scratch.data();
  }
  if (!in_place && bytes != 0) std::memcpy(accumulator, sendbuf, bytes);
  const Status s = op_commutative(op)
                       ? coll_reduce(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op, root)
                       : coll_reduce_ordered(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op,
                                        root);
  if (s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && g_state != nullptr && find_comm(handle) != nullptr) {
    return derived_allreduce(sendbuf, recvbuf, count, datatype, op, handle);
  }
  constexpr const char* kFunction = "MPI_Allreduce";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_op(kFunction, *comm, op, datatype, *type); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  if (bytes != 0 && (sendbuf == nullptr || recvbuf == nullptr)) {
    return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  if (sendbuf != MPI_IN_PLACE && bytes != 0) std::memcpy(recvbuf, sendbuf, bytes);
  if (Status s = coll_allreduce(*comm, recvbuf, static_cast<std::size_t>(count), *type, datatype, op);
      s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}

int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && g_state != nullptr && find_comm(handle) != nullptr) {
    return derived_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, handle);
  }
  constexpr const char* kFunction = "MPI_Reduce_scatter_block";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, recvcount, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_op(kFunction, *comm, op, datatype, *type); err != MPI_SUCCESS) return err;
  const std::size_t block = static_cast<std::size_t>(recvcount) * type->size;
  const std::size_t count = static_cast<std::size_t>(recvcount) * static_cast<std::size_t>(comm->size);
  if (block != 0 && (sendbuf == nullptr || recvbuf == nullptr)) {
    return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  // Reduce everything to rank 0, then scatter the blocks.
  std::vector<std::byte> all(block * static_cast<std::size_t>(comm->size));
  if (block != 0) std::memcpy(all.data(), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, all.size());
  const Status s = op_commutative(op) ? coll_reduce(*comm, all.data(), count, *type, datatype, op, 0)
                                      : coll_reduce_ordered(*comm, all.data(), count, *type, datatype, op, 0);
  if (s != Status::Ok) return coll_failed(*comm, kFunction, s);
  const unsigned tag = next_tag_base(*comm);
  if (comm->rank != 0) {
    if (Status r = coll_recv(*comm, recvbuf, block, 0, tag); r != Status::Ok) return coll_failed(*comm, kFunction, r);
    return MPI_SUCCESS;
  }
  Batch batch(*comm, tag);
  for (int r = 1; r < comm->size; ++r) batch.send(all.data() + block * static_cast<std::size_t>(r), block, r);
  if (block != 0) std::memcpy(recvbuf, all.data(), block);
  if (Status r = batch.wait(); r != Status::Ok) return coll_failed(*comm, kFunction, r);
  return MPI_SUCCESS;
}

#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block

}  // extern "C"
