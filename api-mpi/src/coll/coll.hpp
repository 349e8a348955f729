// What the collective calls share: their argument checks, the batch of
// non-blocking transfers one step waits for together, and buffer arithmetic.
#pragma once

#include <cstddef>
#include <vector>

#include "coll/counts.hpp"
#include "op/op.hpp"
#include "state.hpp"

namespace tern::mpi {

// An unusable datatype. Derived types are routed to pack/unpack (coll/derived.cpp)
// before the contiguous code runs; one reaching here is refused, never
// half-handled.
inline int type_error(const Comm* comm, const char* function, MPI_Datatype datatype) {
  if (is_derived_handle(datatype) && describe_type(datatype) != nullptr) {
    return raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, function,
                 "derived datatype %d is not supported here (the collectives take derived datatypes through "
                 "pack/unpack; reductions only those built from one predefined type, with predefined operations)",
                 datatype);
  }
  return raise(comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
}

// Checks shared by the collectives; sets `comm` and `type`.
inline int check_coll(const char* function, MPI_Comm handle, MPI_Count count, MPI_Datatype datatype, Comm*& comm,
                      const TypeInfo*& type) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  if (count < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld", count);
  type = find_type(datatype);
  if (type == nullptr) return type_error(comm, function, datatype);
  return check_bytes(comm, function, count, type->size);
}

inline int check_root(const char* function, const Comm& comm, int root) {
  if (root < 0 || root >= comm.size) {
    return raise(&comm, MPI_ERR_ROOT, function, "invalid root %d (communicator of size %d)", root, comm.size);
  }
  return MPI_SUCCESS;
}

inline int check_op(const char* function, const Comm& comm, MPI_Op op, MPI_Datatype datatype, const TypeInfo& type) {
  if (!valid_op(op)) return raise(&comm, MPI_ERR_OP, function, "invalid operation %d", op);
  int probe = 0;
  // An empty application says whether the op is defined on the type.
  if (apply_op(op, datatype, &probe, &probe, 0) != MPI_SUCCESS) {
    return raise(&comm, MPI_ERR_OP, function, "operation %d is not defined on %s", op, type.name);
  }
  return MPI_SUCCESS;
}

inline int coll_failed(const Comm& comm, const char* function, Status s) {
  return raise(&comm, error_class_of(s), function, "communication failed: %s", to_string(s));
}

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

inline int check_comm_root(const char* function, MPI_Comm handle, int root, Comm*& comm) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  return check_root(function, *comm, root);
}

// Per-rank counts and displacements of the v-collectives (int, or MPI_Count
// and MPI_Aint in the _c forms).
template <class Count, class Displ>
int check_counts(const char* function, const Comm& comm, const char* what, const Count counts[],
                 const Displ displs[]) {
  if (counts == nullptr || displs == nullptr) {
    return raise(&comm, MPI_ERR_ARG, function, "null %s counts or displacements", what);
  }
  // One per rank of the group the arrays describe: the remote one on an
  // intercommunicator.
  for (int r = 0; r < comm.peer_count(); ++r) {
    if (counts[r] < 0) {
      return raise(&comm, MPI_ERR_COUNT, function, "invalid %s count %lld for rank %d", what,
                   static_cast<long long>(counts[r]), r);
    }
  }
  return MPI_SUCCESS;
}

inline std::byte* at(void* buffer, long long elements, std::size_t element_size) {
  return static_cast<std::byte*>(buffer) + elements * static_cast<long long>(element_size);
}
inline const std::byte* at(const void* buffer, long long elements, std::size_t element_size) {
  return static_cast<const std::byte*>(buffer) + elements * static_cast<long long>(element_size);
}

}  // namespace tern::mpi
