// Collectives over the engine's tag API in the communicator's collective
// context (its context id with kCollectiveBit set), so their messages never
// match point-to-point receives. Each call takes the next sequence number of
// its communicator; the engine tag's MPI-tag field carries (sequence, round),
// so traffic of consecutive collectives cannot cross.
//
// Algorithms: dissemination barrier, binomial broadcast and reduction,
// recursive doubling allreduce (power-of-two sizes; reduce + broadcast
// otherwise), linear gather, gather + broadcast allgather.
#include <cstring>
#include <vector>

#include "state.hpp"

namespace tern::mpi {
namespace {

inline uint16_t collective_context(const Comm& comm) noexcept {
  return static_cast<uint16_t>(comm.context | kCollectiveBit);
}

// (sequence, round) in the 24-bit tag field.
inline unsigned next_tag_base(Comm& comm) noexcept { return (comm.collective_sequence++ & 0xFFFFu) << 8; }

}  // namespace

Status coll_send(Comm& comm, const void* buffer, std::size_t bytes, int dest, unsigned tag) {
  engine::Endpoint* endpoint = comm_endpoint(comm, dest);
  if (endpoint == nullptr) return Status::Unreachable;
  return g_state->worker->tag_send(endpoint, buffer, bytes,
                                   make_tag(collective_context(comm), static_cast<unsigned>(comm.rank), tag));
}

Status coll_recv(Comm& comm, void* buffer, std::size_t bytes, int source, unsigned tag) {
  return g_state->worker->tag_recv(buffer, bytes,
                                   make_tag(collective_context(comm), static_cast<unsigned>(source), tag),
                                   engine::kTagMaskAll);
}

Status coll_sendrecv(Comm& comm, const void* send_buffer, std::size_t send_bytes, int dest, void* recv_buffer,
                     std::size_t recv_bytes, int source, unsigned tag) {
  engine::Request* request = nullptr;
  Status s = g_state->worker->tag_recv_nb(
      recv_buffer, recv_bytes, make_tag(collective_context(comm), static_cast<unsigned>(source), tag),
      engine::kTagMaskAll, request);
  if (s != Status::InProgress && s != Status::Ok) return s;
  Status sent = coll_send(comm, send_buffer, send_bytes, dest, tag);
  if (request != nullptr) {
    if (sent != Status::Ok) (void)g_state->worker->cancel(request);
    s = g_state->worker->wait(request);
  }
  return sent != Status::Ok ? sent : s;
}

Status coll_barrier(Comm& comm) {
  const unsigned base = next_tag_base(comm);
  unsigned round = 0;
  for (int distance = 1; distance < comm.size; distance <<= 1, ++round) {
    const int dest = (comm.rank + distance) % comm.size;
    const int source = (comm.rank - distance + comm.size) % comm.size;
    if (Status s = coll_sendrecv(comm, nullptr, 0, dest, nullptr, 0, source, base | round); s != Status::Ok) {
      return s;
    }
  }
  return Status::Ok;
}

namespace {

Status bcast(Comm& comm, void* buffer, std::size_t bytes, int root) {
  const unsigned tag = next_tag_base(comm);
  const int size = comm.size;
  const int relative = (comm.rank - root + size) % size;
  int mask = 1;
  while (mask < size) {
    if (relative & mask) {
      const int parent = (relative - mask + root) % size;
      if (Status s = coll_recv(comm, buffer, bytes, parent, tag); s != Status::Ok) return s;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < size) {
      const int child = (relative + mask + root) % size;
      if (Status s = coll_send(comm, buffer, bytes, child, tag); s != Status::Ok) return s;
    }
  }
  return Status::Ok;
}

// Binomial reduction of `accumulator` (this rank's contribution on entry) to
// `root`; on the root it ends holding the result.
Status reduce(Comm& comm, void* accumulator, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
              MPI_Op op, int root) {
  const unsigned tag = next_tag_base(comm);
  const int size = comm.size;
  const int relative = (comm.rank - root + size) % size;
  const std::size_t bytes = count * type.size;
  std::vector<std::byte> incoming(bytes);
  for (int mask = 1; mask < size; mask <<= 1) {
    if ((relative & mask) == 0) {
      const int child_relative = relative | mask;
      if (child_relative < size) {
        const int child = (child_relative + root) % size;
        if (Status s = coll_recv(comm, incoming.data(), bytes, child, tag); s != Status::Ok) return s;
        if (apply_op(op, type_handle, incoming.data(), accumulator, count) != MPI_SUCCESS) return Status::InvalidParam;
      }
    } else {
      const int parent = ((relative & ~mask) + root) % size;
      return coll_send(comm, accumulator, bytes, parent, tag);
    }
  }
  return Status::Ok;
}

}  // namespace

Status coll_allreduce(Comm& comm, void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                      MPI_Op op) {
  const int size = comm.size;
  if (size == 1) return Status::Ok;
  if ((size & (size - 1)) != 0) {
    if (Status s = reduce(comm, buffer, count, type, type_handle, op, 0); s != Status::Ok) return s;
    return bcast(comm, buffer, count * type.size, 0);
  }
  const unsigned base = next_tag_base(comm);
  const std::size_t bytes = count * type.size;
  std::vector<std::byte> incoming(bytes);
  unsigned round = 0;
  for (int mask = 1; mask < size; mask <<= 1, ++round) {
    const int partner = comm.rank ^ mask;
    if (Status s = coll_sendrecv(comm, buffer, bytes, partner, incoming.data(), bytes, partner, base | round);
        s != Status::Ok) {
      return s;
    }
    if (apply_op(op, type_handle, incoming.data(), buffer, count) != MPI_SUCCESS) return Status::InvalidParam;
  }
  return Status::Ok;
}

namespace {

// Checks shared by the collectives; sets `comm` and `type`.
int check_coll(const char* function, MPI_Comm handle, int count, MPI_Datatype datatype, Comm*& comm,
               const TypeInfo*& type) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  if (count < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %d", count);
  type = find_type(datatype);
  if (type == nullptr) return raise(comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
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
  constexpr const char* kFunction = "MPI_Bcast";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  if (buffer == nullptr && bytes != 0) return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  if (Status s = bcast(*comm, buffer, bytes, root); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm handle) {
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
  if (Status s = reduce(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op, root);
      s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm handle) {
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
  if (Status s = bcast(*comm, recvbuf, block * static_cast<std::size_t>(comm->size), 0); s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}

#pragma weak MPI_Barrier = PMPI_Barrier
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Allgather = PMPI_Allgather

}  // extern "C"
