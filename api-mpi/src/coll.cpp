// Collectives over the engine's tag API in the communicator's collective
// context (its context id with kCollectiveBit set), so their messages never
// match point-to-point receives. Each call takes the next sequence number of
// its communicator; the engine tag's MPI-tag field carries (sequence, round),
// so traffic of consecutive collectives cannot cross.
//
// Algorithms: dissemination barrier, binomial broadcast and reduction,
// recursive doubling allreduce (power-of-two sizes; reduce + broadcast
// otherwise), linear gather, gather + broadcast allgather, linear scatter(v)
// and gatherv, ring allgatherv, all-at-once alltoall(v), reduce + scatter
// reduce_scatter_block. Operations that do not commute (user ops created so)
// reduce in rank order at the root.
#include <algorithm>
#include <cstring>
#include <vector>

#include "group.hpp"
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

// Reduction in rank order for operations that do not commute: the root
// collects every contribution and combines a0 op (a1 op (... op an-1)).
Status reduce_ordered(Comm& comm, void* accumulator, std::size_t count, const TypeInfo& type,
                      MPI_Datatype type_handle, MPI_Op op, int root) {
  const unsigned tag = next_tag_base(comm);
  const std::size_t bytes = count * type.size;
  if (comm.rank != root) return coll_send(comm, accumulator, bytes, root, tag);
  const int size = comm.size;
  std::vector<std::byte> all(bytes * static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    std::byte* block = all.data() + bytes * static_cast<std::size_t>(r);
    if (r == root) {
      if (bytes != 0) std::memcpy(block, accumulator, bytes);
    } else if (Status s = coll_recv(comm, block, bytes, r, tag); s != Status::Ok) {
      return s;
    }
  }
  std::byte* result = all.data() + bytes * static_cast<std::size_t>(size - 1);
  for (int r = size - 2; r >= 0; --r) {
    if (apply_op(op, type_handle, all.data() + bytes * static_cast<std::size_t>(r), result, count) != MPI_SUCCESS) {
      return Status::InvalidParam;
    }
  }
  if (bytes != 0) std::memcpy(accumulator, result, bytes);
  return Status::Ok;
}

}  // namespace

// From this size on, Allreduce (commutative op, power-of-two ranks) splits
// the vector: a reduce-scatter by recursive halving, then an allgather by
// recursive doubling, so each rank moves and reduces about 2x the vector
// instead of log2(p) whole copies.
constexpr std::size_t kLargeAllreduceBytes = 64 * 1024;

Status allreduce_halving_doubling(Comm& comm, void* buffer, std::size_t count, const TypeInfo& type,
                                  MPI_Datatype type_handle, MPI_Op op) {
  const int size = comm.size;
  const int rank = comm.rank;
  auto* data = static_cast<std::byte*>(buffer);
  // Block b holds elements [first(b), first(b + 1)).
  auto first = [&](int block) {
    return count * static_cast<std::size_t>(block) / static_cast<std::size_t>(size);
  };
  const unsigned base = next_tag_base(comm);
  unsigned round = 0;
  std::vector<std::byte> incoming;
  int lo = 0, hi = size;  // the blocks this rank still works on
  for (int mask = size / 2; mask >= 1; mask >>= 1, ++round) {
    const int partner = rank ^ mask;
    const int mid = (lo + hi) / 2;
    const bool lower = (rank & mask) == 0;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int send_lo = lower ? mid : lo, send_hi = lower ? hi : mid;
    const std::size_t keep_first = first(keep_lo), keep_count = first(keep_hi) - keep_first;
    const std::size_t send_first = first(send_lo), send_count = first(send_hi) - send_first;
    incoming.resize(keep_count * type.size);
    if (Status s = coll_sendrecv(comm, data + send_first * type.size, send_count * type.size, partner,
                                 incoming.data(), keep_count * type.size, partner, base | round);
        s != Status::Ok) {
      return s;
    }
    if (keep_count != 0 &&
        apply_op(op, type_handle, incoming.data(), data + keep_first * type.size, keep_count) != MPI_SUCCESS) {
      return Status::InvalidParam;
    }
    lo = keep_lo;
    hi = keep_hi;
  }
  for (int mask = 1; mask < size; mask <<= 1, ++round) {
    const int partner = rank ^ mask;
    const bool lower = (rank & mask) == 0;
    const int other_lo = lower ? hi : lo - mask, other_hi = lower ? hi + mask : lo;
    const std::size_t mine_first = first(lo), mine_count = first(hi) - mine_first;
    const std::size_t other_first = first(other_lo), other_count = first(other_hi) - other_first;
    if (Status s = coll_sendrecv(comm, data + mine_first * type.size, mine_count * type.size, partner,
                                 data + other_first * type.size, other_count * type.size, partner, base | round);
        s != Status::Ok) {
      return s;
    }
    lo = std::min(lo, other_lo);
    hi = std::max(hi, other_hi);
  }
  return Status::Ok;
}

Status coll_allreduce(Comm& comm, void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                      MPI_Op op) {
  const int size = comm.size;
  if (size == 1) return Status::Ok;
  if (!op_commutative(op)) {
    if (Status s = reduce_ordered(comm, buffer, count, type, type_handle, op, 0); s != Status::Ok) return s;
    return bcast(comm, buffer, count * type.size, 0);
  }
  if ((size & (size - 1)) != 0) {
    if (Status s = reduce(comm, buffer, count, type, type_handle, op, 0); s != Status::Ok) return s;
    return bcast(comm, buffer, count * type.size, 0);
  }
  const std::size_t bytes = count * type.size;
  if (bytes >= kLargeAllreduceBytes && count >= static_cast<std::size_t>(size)) {
    return allreduce_halving_doubling(comm, buffer, count, type, type_handle, op);
  }
  const unsigned base = next_tag_base(comm);
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
  if (Status s = bcast(*comm, buffer, bytes, root); s != Status::Ok) return coll_failed(*comm, kFunction, s);
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
                       ? reduce(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op, root)
                       : reduce_ordered(*comm, accumulator, static_cast<std::size_t>(count), *type, datatype, op,
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
  if (Status s = bcast(*comm, recvbuf, block * static_cast<std::size_t>(comm->size), 0); s != Status::Ok) {
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
  const Status s = op_commutative(op) ? reduce(*comm, all.data(), count, *type, datatype, op, 0)
                                      : reduce_ordered(*comm, all.data(), count, *type, datatype, op, 0);
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
