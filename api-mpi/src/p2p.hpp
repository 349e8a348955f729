// Point-to-point helpers shared by p2p.cpp and the files beside it
// (probes, persistent and buffered sends).
#pragma once

#include "state.hpp"

namespace tern::mpi {

// Checks the arguments every point-to-point call shares; on success `comm`
// and `bytes` are set. `receive`: MPI_ANY_SOURCE / MPI_ANY_TAG allowed.
// A derived datatype in a point-to-point call: MPI_SUCCESS with `bytes`
// set and, when the type is not contiguous, `derived` set (callers that pass
// no `derived` do not take such types: MPI_ERR_UNSUPPORTED_OPERATION).
int check_derived(const char* function, Comm* comm, const void* buffer, int count, MPI_Datatype datatype,
                  std::size_t& bytes, std::shared_ptr<const DerivedType>* derived);

// Always inline: out of line, its prologue and the memory behind `comm` and
// `bytes` cost more than the checks themselves.
[[gnu::always_inline]] inline int check_args(const char* function, MPI_Comm handle, const void* buffer, int count,
                                             MPI_Datatype datatype, int peer, int tag, bool receive, Comm*& comm,
                                             std::size_t& bytes,
                                             std::shared_ptr<const DerivedType>* derived = nullptr) {
  comm = nullptr;
  bytes = 0;
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  comm = find_comm(handle);
  if (TERN_UNLIKELY(comm == nullptr)) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  if (TERN_UNLIKELY(count < 0)) return raise(comm, MPI_ERR_COUNT, function, "invalid count %d", count);
  const TypeInfo* type = find_type(datatype);
  if (TERN_UNLIKELY(type == nullptr)) {
    if (int err = check_derived(function, comm, buffer, count, datatype, bytes, derived); err != MPI_SUCCESS) {
      return err;
    }
  }
  if (TERN_UNLIKELY((peer < 0 || peer >= comm->size) && peer != MPI_PROC_NULL &&
                    !(receive && peer == MPI_ANY_SOURCE))) {
    return raise(comm, MPI_ERR_RANK, function, "invalid rank %d (communicator of size %d)", peer, comm->size);
  }
  if (TERN_UNLIKELY((tag < 0 || tag > kTagUb) && !(receive && tag == MPI_ANY_TAG))) {
    return raise(comm, MPI_ERR_TAG, function, "invalid tag %d (valid: 0 to %d)", tag, kTagUb);
  }
  if (TERN_UNLIKELY(type == nullptr)) return MPI_SUCCESS;  // derived: checked above
  bytes = static_cast<std::size_t>(count) * type->size;
  if (TERN_UNLIKELY(buffer == nullptr && bytes != 0)) {
    return raise(comm, MPI_ERR_BUFFER, function, "null buffer for %zu bytes", bytes);
  }
  return MPI_SUCCESS;
}

struct Match {
  uint64_t tag;
  uint64_t mask;
};

inline Match match_of(const Comm& comm, int source, int tag) noexcept {
  Match m{make_tag(comm.context, source == MPI_ANY_SOURCE ? 0u : static_cast<unsigned>(source),
                   tag == MPI_ANY_TAG ? 0u : static_cast<unsigned>(tag)),
          engine::kTagMaskAll};
  if (source == MPI_ANY_SOURCE) m.mask &= ~kSourceBits;
  if (tag == MPI_ANY_TAG) m.mask &= ~kTagBits;
  return m;
}

inline int raise_recv(const Comm* comm, const char* function, Status s, const engine::TagRecvInfo& info, std::size_t bytes,
               int source) {
  if (s == Status::Truncated) {
    return raise(comm, MPI_ERR_TRUNCATE, function, "message of %zu bytes from rank %d truncated to %zu bytes",
                 info.length, tag_source(info.sender_tag), bytes);
  }
  return raise(comm, error_class_of(s), function, "receiving from rank %d failed: %s", source, to_string(s));
}

// Starts a send of `bytes` contiguous bytes to `dest` (not MPI_PROC_NULL) in
// `comm`'s point-to-point context: Ok when done at once, InProgress with
// `request`, or an error.
inline Status start_send(Comm& comm, const void* buffer, std::size_t bytes, int dest, int tag, unsigned flags,
                         engine::Request*& request) {
  request = nullptr;
  engine::Endpoint* endpoint = comm_endpoint(comm, dest);
  if (TERN_UNLIKELY(endpoint == nullptr)) return Status::Unreachable;
  return g_state->worker->tag_send_nb(endpoint, buffer, bytes,
                                      make_tag(comm.context, static_cast<unsigned>(comm.rank), tag), request, flags);
}

// MPI_Bsend's copy (buffered.cpp): copies `bytes` into the attached buffer
// and starts the send from there. MPI_ERR_BUFFER (raised) when it does not fit.
int buffered_send(const char* function, Comm& comm, const void* buffer, std::size_t bytes, int dest, int tag);

// Waits for every buffered send to end (MPI_Buffer_detach); at MPI_Finalize,
// also forgets the attached buffer.
void buffered_flush();
void buffered_finalize();

}  // namespace tern::mpi
