// The reductions and their _c forms: MPI_Reduce and MPI_Allreduce over the algorithms of
// algorithms.cpp, and reduce + scatter MPI_Reduce_scatter(_block).
#include <cstring>
#include <vector>

#include "coll/coll.hpp"
#include "coll/inter.hpp"
#include "coll/scratch.hpp"

namespace tern::mpi {
namespace {

// Reduce_scatter(_block): every rank's vector of sum(counts) elements at
// `source` is reduced to rank 0, which gives rank r its counts[r] elements
// (at `recvbuf`).
int reduce_then_scatter(const char* function, Comm& comm, const TypeInfo& type, MPI_Datatype datatype, MPI_Op op,
                        const void* source, void* recvbuf, const std::vector<std::size_t>& counts) {
  std::size_t total = 0;
  for (std::size_t count : counts) total += count;
  const std::size_t mine = counts[static_cast<std::size_t>(comm.rank)] * type.size;
  if ((total != 0 && source == nullptr) || (mine != 0 && recvbuf == nullptr)) {
    return raise(&comm, MPI_ERR_BUFFER, function, "null buffer");
  }
  std::vector<std::byte> all(total * type.size);
  if (!all.empty()) std::memcpy(all.data(), source, all.size());
  const Status s = op_commutative(op) ? coll_reduce(comm, all.data(), total, type, datatype, op, 0)
                                      : coll_reduce_ordered(comm, all.data(), total, type, datatype, op, 0);
  if (s != Status::Ok) return coll_failed(comm, function, s);
  const unsigned tag = next_tag_base(comm);
  if (comm.rank != 0) {
    if (Status r = coll_recv(comm, recvbuf, mine, 0, tag); r != Status::Ok) return coll_failed(comm, function, r);
    return MPI_SUCCESS;
  }
  Batch batch(comm, tag);
  std::size_t offset = counts[0] * type.size;
  for (int r = 1; r < comm.size; ++r) {
    const std::size_t block = counts[static_cast<std::size_t>(r)] * type.size;
    batch.send(all.data() + offset, block, r);
    offset += block;
  }
  if (mine != 0) std::memcpy(recvbuf, all.data(), mine);
  if (Status r = batch.wait(); r != Status::Ok) return coll_failed(comm, function, r);
  return MPI_SUCCESS;
}

int reduce(const char* kFunction, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
           MPI_Op op, int root, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int narrow = 0;
    if (int err = narrow_count(inter, kFunction, count, kInterPath, narrow); err != MPI_SUCCESS) return err;
    return inter_reduce(*inter, kFunction, sendbuf, recvbuf, narrow, datatype, op, root);
  }
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && g_state != nullptr && find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root(kFunction, *c, root);
    int narrow = 0;
    if (int err = narrow_count(c, kFunction, count, kDerivedPath, narrow); err != MPI_SUCCESS) return err;
    return derived_reduce(kFunction, sendbuf, recvbuf, narrow, datatype, op, root, handle);
  }
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
  // The root accumulates in its receive buffer, the others in scratch; or,
  // where only the root combines, they hand their send buffers over as
  // they are (no copy).
  const bool leave_contribution = coll_reduce_reads_non_roots(*comm, bytes);
  ScratchBuffer scratch(is_root || leave_contribution ? 0 : bytes);
  if (scratch.failed()) return raise(comm, MPI_ERR_NO_MEM, kFunction, "no memory for the reduction's scratch vector");
  void* accumulator = is_root ? recvbuf : scratch.data();
  if (!is_root && leave_contribution) {
    accumulator = const_cast<void*>(sendbuf);
  } else if (!in_place && bytes != 0) {
    std::memcpy(accumulator, sendbuf, bytes);
  }
  const Status s = op_commutative(op)
                       ? coll_reduce(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op, root)
                       : coll_reduce_ordered(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op,
                                        root);
  if (s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}

int allreduce(const char* kFunction, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int narrow = 0;
    if (int err = narrow_count(inter, kFunction, count, kInterPath, narrow); err != MPI_SUCCESS) return err;
    return inter_allreduce(*inter, kFunction, sendbuf, recvbuf, narrow, datatype, op);
  }
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && g_state != nullptr && find_comm(handle) != nullptr) {
    int narrow = 0;
    if (int err = narrow_count(find_comm(handle), kFunction, count, kDerivedPath, narrow); err != MPI_SUCCESS) {
      return err;
    }
    return derived_allreduce(kFunction, sendbuf, recvbuf, narrow, datatype, op, handle);
  }
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

int reduce_scatter_block(const char* kFunction, const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int narrow = 0;
    if (int err = narrow_count(inter, kFunction, recvcount, kInterPath, narrow); err != MPI_SUCCESS) return err;
    const std::vector<int> counts(static_cast<std::size_t>(inter->size), narrow);
    return inter_reduce_scatter(*inter, kFunction, sendbuf, recvbuf, counts.data(), datatype, op);
  }
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && g_state != nullptr && find_comm(handle) != nullptr) {
    int narrow = 0;
    if (int err = narrow_count(find_comm(handle), kFunction, recvcount, kDerivedPath, narrow); err != MPI_SUCCESS) {
      return err;
    }
    return derived_reduce_scatter_block(kFunction, sendbuf, recvbuf, narrow, datatype, op, handle);
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, recvcount, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_op(kFunction, *comm, op, datatype, *type); err != MPI_SUCCESS) return err;
  const std::vector<std::size_t> counts(static_cast<std::size_t>(comm->size), static_cast<std::size_t>(recvcount));
  return reduce_then_scatter(kFunction, *comm, *type, datatype, op, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                             recvbuf, counts);
}

template <class Count>
int reduce_scatter(const char* kFunction, const void* sendbuf, void* recvbuf, const Count recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    std::vector<int> store;
    const int* counts = nullptr;
    if (int err = narrow_array(inter, kFunction, recvcounts, inter->size, kInterPath, store, counts);
        err != MPI_SUCCESS) {
      return err;
    }
    return inter_reduce_scatter(*inter, kFunction, sendbuf, recvbuf, counts, datatype, op);
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && find_comm(handle) != nullptr) {
    const Comm* c = find_comm(handle);
    std::vector<int> store;
    const int* counts = nullptr;
    if (int err = narrow_array(c, kFunction, recvcounts, c->size, kDerivedPath, store, counts); err != MPI_SUCCESS) {
      return err;
    }
    return derived_reduce_scatter(kFunction, sendbuf, recvbuf, counts, datatype, op, handle);
  }
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, 0, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_op(kFunction, *comm, op, datatype, *type); err != MPI_SUCCESS) return err;
  if (recvcounts == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null recvcounts argument");
  std::vector<std::size_t> counts(static_cast<std::size_t>(comm->size));
  for (int r = 0; r < comm->size; ++r) {
    if (recvcounts[r] < 0) {
      return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %lld for rank %d",
                   static_cast<long long>(recvcounts[r]), r);
    }
    counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(recvcounts[r]);
  }
  return reduce_then_scatter(kFunction, *comm, *type, datatype, op, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                             recvbuf, counts);
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
  return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm) {
  return reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
  return allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  return reduce_scatter_block("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_block("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
  return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
  return reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Reduce_c = PMPI_Reduce_c
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c

}  // extern "C"
