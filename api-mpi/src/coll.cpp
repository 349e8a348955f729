// The MPI collective calls: argument checks, then the algorithms of
// coll_algorithms.cpp (barrier, broadcast, reductions, node-aware forms in
// coll_node.cpp) or, for the rest, these: linear gather, gather + broadcast
// allgather, linear scatter(v) and gatherv, ring allgatherv, all-at-once
// alltoall(v), reduce + scatter reduce_scatter_block.
#include <algorithm>
#include <cstring>
#include <vector>

#include "group.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// An unusable datatype. Derived types are routed to pack/unpack (derived.cpp)
// before the contiguous code runs; one reaching here is refused, never
// half-handled.
int type_error(const Comm* comm, const char* function, MPI_Datatype datatype) {
  if (is_derived_handle(datatype) && describe_type(datatype) != nullptr) {
    return raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, function,
                 "derived datatype %d is not supported here (the collectives take derived datatypes through "
                 "pack/unpack; reductions only those built from one predefined type, with predefined operations)",
                 datatype);
  }
  return raise(comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
}

// Checks shared by the collectives; sets `comm` and `type`.
int check_coll(const char* function, MPI_Comm handle, int count, MPI_Datatype datatype, Comm*& comm,
               const TypeInfo*& type) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  if (count < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %d", count);
  type = find_type(datatype);
  if (type == nullptr) return type_error(comm, function, datatype);
  return MPI_SUCCESS;
}

int check_root(const char* function, const Comm& comm, int root) {
  if (root < 0 || root >= comm.size) {
    return raise(&comm, MPI_ERR_ROOT, function, "invalid root %d (communicator of size %d)", root, comm.size);
  }
  return MPI_SUCCESS;
}

int check_op(const char* function, const Comm& comm, MPI_Op op, MPI_Datatype datatype, const TypeInfo& type) {
  if (!valid_op(op)) return raise(&comm, MPI_ERR_OP, function, "invalid operation %d", op);
  int probe = 0;
  // An empty application says whether the op is defined on the type.
  if (apply_op(op, datatype, &probe, &probe, 0) != MPI_SUCCESS) {
    return raise(&comm, MPI_ERR_OP, function, "operation %d is not defined on %s", op, type.name);
  }
  return MPI_SUCCESS;
}

int coll_failed(const Comm& comm, const char* function, Status s) {
  return raise(&comm, error_class_of(s), function, "communication failed: %s", to_string(s));
}

}  // namespace
}  // namespace tern::mpi

namespace tern::mpi {
namespace {

// The non-blocking transfers of one collective step, waited for together.
class Batch {
 public:
  Batch(Comm& comm, unsigned tag) : comm_(comm), tag_(tag) {}
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() { (void)wait(); }

  void recv(void* buffer, std::size_t bytes, int source) {
    engine::Request* request = nullptr;
    const Status s = g_state->worker->tag_recv_nb(
        buffer, bytes, make_tag(collective_context(comm_), static_cast<unsigned>(source), tag_), engine::kTagMaskAll,
        request);
    note(s, request);
  }
  void send(const void* buffer, std::size_t bytes, int dest) {
    engine::Endpoint* endpoint = comm_endpoint(comm_, dest);
    if (endpoint == nullptr) {
      if (result_ == Status::Ok) result_ = Status::Unreachable;
      return;
    }
    engine::Request* request = nullptr;
    const Status s = g_state->worker->tag_send_nb(
        endpoint, buffer, bytes, make_tag(collective_context(comm_), static_cast<unsigned>(comm_.rank), tag_), request);
    note(s, request);
  }
  // Waits for everything posted; the first failure.
  Status wait() {
    for (engine::Request* request : pending_) {
      Status s = g_state->worker->wait(request);
      if (s != Status::Ok && result_ == Status::Ok) result_ = s;
    }
    pending_.clear();
    return result_;
  }

 private:
  void note(Status s, engine::Request* request) {
    if (s == Status::InProgress) {
      pending_.push_back(request);
    } else if (s != Status::Ok && result_ == Status::Ok) {
      result_ = s;
    }
  }

  Comm& comm_;
  unsigned tag_;
  std::vector<engine::Request*> pending_;
  Status result_ = Status::Ok;
};

int check_comm_root(const char* function, MPI_Comm handle, int root, Comm*& comm) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  return check_root(function, *comm, root);
}

// Per-rank counts and displacements of the v-collectives.
int check_counts(const char* function, const Comm& comm, const char* what, const int counts[],
                 const int displs[]) {
  if (counts == nullptr || displs == nullptr) {
    return raise(&comm, MPI_ERR_ARG, function, "null %s counts or displacements", what);
  }
  for (int r = 0; r < comm.size; ++r) {
    if (counts[r] < 0) return raise(&comm, MPI_ERR_COUNT, function, "invalid %s count %d for rank %d", what, counts[r], r);
  }
  return MPI_SUCCESS;
}

inline std::byte* at(void* buffer, long long elements, std::size_t element_size) {
  return static_cast<std::byte*>(buffer) + elements * static_cast<long long>(element_size);
}
inline const std::byte* at(const void* buffer, long long elements, std::size_t element_size) {
  return static_cast<const std::byte*>(buffer) + elements * static_cast<long long>(element_size);
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Barrier(MPI_Comm handle) {
  constexpr const char* kFunction = "MPI_Barrier";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (Status s = coll_barrier(*comm); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(datatype))) {
    if (g_state == nullptr) return not_initialized("MPI_Bcast");
    return derived_bcast(buffer, count, datatype, root, handle);
  }
  constexpr const char* kFunction = "MPI_Bcast";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  if (buffer == nullptr && bytes != 0) return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  if (Status s = coll_bcast(*comm, buffer, bytes, root); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

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

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root("MPI_Gather", *c, root);
    const bool recv_matters = c->rank == root;
    if ((is_derived_handle(sendtype) && !(recv_matters && sendbuf == MPI_IN_PLACE)) ||
        (recv_matters && is_derived_handle(recvtype))) {
      return derived_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, handle);
    }
  }
  constexpr const char* kFunction = "MPI_Gather";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* stype = nullptr;
  if (int err = check_coll(kFunction, handle, sendcount, sendtype, comm, stype); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const std::size_t send_bytes = static_cast<std::size_t>(sendcount) * stype->size;
  const unsigned tag = next_tag_base(*comm);
  if (!is_root) {
    if (Status s = coll_send(*comm, sendbuf, send_bytes, root, tag); s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* rtype = nullptr;
  if (int err = check_coll(kFunction, handle, recvcount, recvtype, comm, rtype); err != MPI_SUCCESS) return err;
  const std::size_t block = static_cast<std::size_t>(recvcount) * rtype->size;
  std::byte* out = static_cast<std::byte*>(recvbuf);
  if (sendbuf != MPI_IN_PLACE && block != 0) {
    std::memcpy(out + static_cast<std::size_t>(root) * block, sendbuf, std::min(block, send_bytes));
  }
  std::vector<engine::Request*> pending;
  Status result = Status::Ok;
  for (int source = 0; source < comm->size; ++source) {
    if (source == root) continue;
    engine::Request* request = nullptr;
    Status s = g_state->worker->tag_recv_nb(out + static_cast<std::size_t>(source) * block, block,
                                            make_tag(collective_context(*comm), static_cast<unsigned>(source), tag),
                                            engine::kTagMaskAll, request);
    if (s == Status::InProgress) {
      pending.push_back(request);
    } else if (s != Status::Ok && result == Status::Ok) {
      result = s;
    }
  }
  for (engine::Request* request : pending) {
    Status s = g_state->worker->wait(request);
    if (s != Status::Ok && result == Status::Ok) result = s;
  }
  if (result != Status::Ok) return coll_failed(*comm, kFunction, result);
  return MPI_SUCCESS;
}

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm handle) {
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    const auto n = static_cast<std::size_t>(find_comm(handle)->size);
    std::vector<int> counts(n, recvcount), displs(n);
    for (std::size_t r = 0; r < n; ++r) displs[r] = static_cast<int>(r) * recvcount;
    return derived_allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, handle,
                              true);
  }
  constexpr const char* kFunction = "MPI_Allgather";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* rtype = nullptr;
  if (int err = check_coll(kFunction, handle, recvcount, recvtype, comm, rtype); err != MPI_SUCCESS) return err;
  const std::size_t block = static_cast<std::size_t>(recvcount) * rtype->size;
  const void* mine = sendbuf;
  if (sendbuf == MPI_IN_PLACE) {
    // Our block is already in place; gather it from there.
    mine = static_cast<const std::byte*>(recvbuf) + static_cast<std::size_t>(comm->rank) * block;
    sendcount = recvcount;
    sendtype = recvtype;
    if (comm->rank == 0) mine = MPI_IN_PLACE;
  }
  if (int err = PMPI_Gather(mine, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, handle); err != MPI_SUCCESS) {
    return err;
  }
  if (Status s = coll_bcast(*comm, recvbuf, block * static_cast<std::size_t>(comm->size), 0); s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}


int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root("MPI_Scatterv", *c, root);
    const bool is_root = c->rank == root;
    if ((is_root && is_derived_handle(sendtype)) ||
        (is_derived_handle(recvtype) && !(is_root && recvbuf == MPI_IN_PLACE))) {
      return derived_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, handle);
    }
  }
  constexpr const char* kFunction = "MPI_Scatterv";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm_root(kFunction, handle, root, comm); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  std::size_t recv_bytes = 0;
  if (!in_place) {
    const TypeInfo* rtype = nullptr;
    if (int err = check_coll(kFunction, handle, recvcount, recvtype, comm, rtype); err != MPI_SUCCESS) return err;
    recv_bytes = static_cast<std::size_t>(recvcount) * rtype->size;
    if (recv_bytes != 0 && recvbuf == nullptr) return raise(comm, MPI_ERR_BUFFER, kFunction, "null receive buffer");
  }
  if (!is_root) {
    const unsigned tag = next_tag_base(*comm);
    if (Status s = coll_recv(*comm, recvbuf, recv_bytes, root, tag); s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* stype = find_type(sendtype);
  if (stype == nullptr) return type_error(comm, kFunction, sendtype);
  if (int err = check_counts(kFunction, *comm, "send", sendcounts, displs); err != MPI_SUCCESS) return err;
  const unsigned tag = next_tag_base(*comm);
  Batch batch(*comm, tag);
  for (int i = 1; i < comm->size; ++i) {
    const int r = (root + i) % comm->size;
    batch.send(at(sendbuf, displs[r], stype->size), static_cast<std::size_t>(sendcounts[r]) * stype->size, r);
  }
  if (!in_place) {
    const std::size_t bytes = std::min(recv_bytes, static_cast<std::size_t>(sendcounts[root]) * stype->size);
    if (bytes != 0) std::memmove(recvbuf, at(sendbuf, displs[root], stype->size), bytes);
  }
  if (Status s = batch.wait(); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root("MPI_Scatter", *c, root);
    const bool is_root = c->rank == root;
    if ((is_root && is_derived_handle(sendtype)) || (is_derived_handle(recvtype) && !(is_root && recvbuf == MPI_IN_PLACE))) {
      return derived_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, handle);
    }
  }
  constexpr const char* kFunction = "MPI_Scatter";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm_root(kFunction, handle, root, comm); err != MPI_SUCCESS) return err;
  std::vector<int> counts, displs;
  if (comm->rank == root) {
    if (sendcount < 0) return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", sendcount);
    counts.assign(static_cast<std::size_t>(comm->size), sendcount);
    displs.resize(static_cast<std::size_t>(comm->size));
    for (int r = 0; r < comm->size; ++r) displs[static_cast<std::size_t>(r)] = r * sendcount;
  }
  return PMPI_Scatterv(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, handle);
}

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root("MPI_Gatherv", *c, root);
    const bool is_root = c->rank == root;
    if ((is_derived_handle(sendtype) && !(is_root && sendbuf == MPI_IN_PLACE)) ||
        (is_root && is_derived_handle(recvtype))) {
      return derived_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, handle);
    }
  }
  constexpr const char* kFunction = "MPI_Gatherv";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm_root(kFunction, handle, root, comm); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  std::size_t send_bytes = 0;
  if (!in_place) {
    const TypeInfo* stype = nullptr;
    if (int err = check_coll(kFunction, handle, sendcount, sendtype, comm, stype); err != MPI_SUCCESS) return err;
    send_bytes = static_cast<std::size_t>(sendcount) * stype->size;
    if (send_bytes != 0 && sendbuf == nullptr) return raise(comm, MPI_ERR_BUFFER, kFunction, "null send buffer");
  }
  if (!is_root) {
    const unsigned tag = next_tag_base(*comm);
    if (Status s = coll_send(*comm, sendbuf, send_bytes, root, tag); s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* rtype = find_type(recvtype);
  if (rtype == nullptr) return type_error(comm, kFunction, recvtype);
  if (int err = check_counts(kFunction, *comm, "receive", recvcounts, displs); err != MPI_SUCCESS) return err;
  const unsigned tag = next_tag_base(*comm);
  Batch batch(*comm, tag);
  for (int r = 0; r < comm->size; ++r) {
    if (r == root) continue;
    batch.recv(at(recvbuf, displs[r], rtype->size), static_cast<std::size_t>(recvcounts[r]) * rtype->size, r);
  }
  if (!in_place) {
    const std::size_t bytes = std::min(send_bytes, static_cast<std::size_t>(recvcounts[root]) * rtype->size);
    if (bytes != 0) std::memmove(at(recvbuf, displs[root], rtype->size), sendbuf, bytes);
  }
  if (Status s = batch.wait(); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm handle) {
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    return derived_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, handle, false);
  }
  constexpr const char* kFunction = "MPI_Allgatherv";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  const TypeInfo* rtype = find_type(recvtype);
  if (rtype == nullptr) return type_error(comm, kFunction, recvtype);
  if (int err = check_counts(kFunction, *comm, "receive", recvcounts, displs); err != MPI_SUCCESS) return err;
  const int rank = comm->rank;
  const int size = comm->size;
  auto block = [&](int r) { return at(recvbuf, displs[r], rtype->size); };
  auto block_bytes = [&](int r) { return static_cast<std::size_t>(recvcounts[r]) * rtype->size; };
  if (sendbuf != MPI_IN_PLACE) {
    const TypeInfo* stype = nullptr;
    if (int err = check_coll(kFunction, handle, sendcount, sendtype, comm, stype); err != MPI_SUCCESS) return err;
    const std::size_t bytes = std::min(block_bytes(rank), static_cast<std::size_t>(sendcount) * stype->size);
    if (bytes != 0) std::memmove(block(rank), sendbuf, bytes);
  }
  // Ring: in step k pass on the block that came in at step k - 1. One tag
  // for every step; messages from the same neighbour arrive in order.
  const unsigned tag = next_tag_base(*comm);
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  for (int step = 0; step < size - 1; ++step) {
    const int out = (rank - step + size) % size;
    const int in = (rank - step - 1 + size) % size;
    if (Status s = coll_sendrecv(*comm, block(out), block_bytes(out), right, block(in), block_bytes(in), left, tag);
        s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
  }
  return MPI_SUCCESS;
}

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm handle) {
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    return derived_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, handle);
  }
  constexpr const char* kFunction = "MPI_Alltoallv";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  const TypeInfo* rtype = find_type(recvtype);
  if (rtype == nullptr) return type_error(comm, kFunction, recvtype);
  if (int err = check_counts(kFunction, *comm, "receive", recvcounts, rdispls); err != MPI_SUCCESS) return err;
  const int size = comm->size;
  const int rank = comm->rank;
  // In place: the data to send is in the receive buffer, so send from a copy.
  std::vector<std::byte> copy;
  const TypeInfo* stype = rtype;
  if (sendbuf == MPI_IN_PLACE) {
    long long end = 0;
    for (int r = 0; r < size; ++r) end = std::max(end, static_cast<long long>(rdispls[r]) + recvcounts[r]);
    copy.resize(static_cast<std::size_t>(end) * rtype->size);
    if (!copy.empty()) std::memcpy(copy.data(), recvbuf, copy.size());
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
  } else {
    stype = find_type(sendtype);
    if (stype == nullptr) return type_error(comm, kFunction, sendtype);
    if (int err = check_counts(kFunction, *comm, "send", sendcounts, sdispls); err != MPI_SUCCESS) return err;
  }
  const unsigned tag = next_tag_base(*comm);
  Batch batch(*comm, tag);
  for (int i = 1; i < size; ++i) {
    const int source = (rank - i + size) % size;
    batch.recv(at(recvbuf, rdispls[source], rtype->size), static_cast<std::size_t>(recvcounts[source]) * rtype->size,
               source);
  }
  for (int i = 1; i < size; ++i) {
    const int dest = (rank + i) % size;
    batch.send(at(sendbuf, sdispls[dest], stype->size), static_cast<std::size_t>(sendcounts[dest]) * stype->size, dest);
  }
  const std::size_t bytes = std::min(static_cast<std::size_t>(recvcounts[rank]) * rtype->size,
                                     static_cast<std::size_t>(sendcounts[rank]) * stype->size);
  if (bytes != 0) std::memmove(at(recvbuf, rdispls[rank], rtype->size), at(sendbuf, sdispls[rank], stype->size), bytes);
  if (Status s = batch.wait(); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm handle) {
  constexpr const char* kFunction = "MPI_Alltoall";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (recvcount < 0) return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", recvcount);
  if (sendbuf != MPI_IN_PLACE && sendcount < 0) {
    return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", sendcount);
  }
  const auto n = static_cast<std::size_t>(comm->size);
  std::vector<int> scounts(n, sendcount), sdispls(n), rcounts(n, recvcount), rdispls(n);
  for (std::size_t r = 0; r < n; ++r) {
    sdispls[r] = static_cast<int>(r) * sendcount;
    rdispls[r] = static_cast<int>(r) * recvcount;
  }
  return PMPI_Alltoallv(sendbuf, scounts.data(), sdispls.data(), sendtype, recvbuf, rcounts.data(), rdispls.data(),
                        recvtype, handle);
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

#pragma weak MPI_Barrier = PMPI_Barrier
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block

}  // extern "C"
