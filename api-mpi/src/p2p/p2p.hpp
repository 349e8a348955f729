// Point-to-point helpers shared by the files of p2p/ (sends and receives,
// sendrecv, probes, persistent and buffered sends): one argument check for
// every call, matching, temporaries for packed data.
#pragma once

#include <cstdlib>
#include <memory>

#include "state.hpp"

namespace tern::mpi {

// The engine's kSendHeld for a send of `tag` that is critical on `comm`
// (its tern_critical_tags hint, else TERN_CRITICAL_TAGS); 0 otherwise.
[[nodiscard]] inline unsigned held_flag(const Comm& comm, int tag) noexcept {
  const runtime::TagSet* tags = comm.critical_tags != nullptr ? comm.critical_tags.get() : g_state->critical_tags;
  return TERN_UNLIKELY(tags != nullptr) && tags->contains(tag) ? unsigned{engine::kSendHeld} : 0u;
}

// Counts are MPI_Count throughout: the int calls and their MPI 4 large-count
// (_c) forms share one path.
// Checks the arguments every point-to-point call shares; on success `comm`
// and `bytes` are set. `receive`: MPI_ANY_SOURCE / MPI_ANY_TAG allowed.
// A derived datatype in a point-to-point call: MPI_SUCCESS with `bytes`
// set and, when the type is not contiguous, `derived` set (callers that pass
// no `derived` do not take such types: MPI_ERR_UNSUPPORTED_OPERATION).
int check_derived(const char* function, Comm* comm, const void* buffer, MPI_Count count, MPI_Datatype datatype,
                  std::size_t& bytes, std::shared_ptr<const DerivedType>* derived);

// A count whose bytes do not fit in memory's address range.
inline int count_overflow(const Comm* comm, const char* function, MPI_Count count) {
  return raise(comm, MPI_ERR_COUNT, function, "count %lld is too large: its bytes overflow a size_t", count);
}

// Always inline: out of line, its prologue and the memory behind `comm` and
// `bytes` cost more than the checks themselves.
[[gnu::always_inline]] inline int check_args(const char* function, MPI_Comm handle, const void* buffer, MPI_Count count,
                                             MPI_Datatype datatype, int peer, int tag, bool receive, Comm*& comm,
                                             std::size_t& bytes,
                                             std::shared_ptr<const DerivedType>* derived = nullptr) {
  comm = nullptr;
  bytes = 0;
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  comm = find_comm(handle);
  if (TERN_UNLIKELY(comm == nullptr)) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  if (TERN_UNLIKELY(count < 0)) return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld", count);
  const TypeInfo* type = find_type(datatype);
  if (TERN_UNLIKELY(type == nullptr)) {
    if (int err = check_derived(function, comm, buffer, count, datatype, bytes, derived); err != MPI_SUCCESS) {
      return err;
    }
  }
  if (TERN_UNLIKELY((peer < 0 || peer >= comm->peer_count()) && peer != MPI_PROC_NULL &&
                    !(receive && peer == MPI_ANY_SOURCE))) {
    return raise(comm, MPI_ERR_RANK, function, "invalid rank %d (%s of size %d)", peer,
                 comm->inter ? "remote group" : "communicator", comm->peer_count());
  }
  if (TERN_UNLIKELY((tag < 0 || tag > kTagUb) && !(receive && tag == MPI_ANY_TAG))) {
    return raise(comm, MPI_ERR_TAG, function, "invalid tag %d (valid: 0 to %d)", tag, kTagUb);
  }
  if (TERN_UNLIKELY(type == nullptr)) return MPI_SUCCESS;  // derived: checked above
  if (TERN_UNLIKELY(__builtin_mul_overflow(static_cast<std::size_t>(count), type->size, &bytes))) {
    return count_overflow(comm, function, count);
  }
  if (TERN_UNLIKELY(buffer == nullptr && bytes != 0)) {
    return raise(comm, MPI_ERR_BUFFER, function, "null buffer for %zu bytes", bytes);
  }
  return MPI_SUCCESS;
}

// check_args, then the request argument of the non-blocking and persistent
// calls.
[[gnu::always_inline]] inline int check_request_args(const char* function, MPI_Comm handle, const void* buffer,
                                                     MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                                                     bool receive, MPI_Request* request, Comm*& comm,
                                                     std::size_t& bytes,
                                                     std::shared_ptr<const DerivedType>* derived = nullptr) {
  if (int err = check_args(function, handle, buffer, count, datatype, peer, tag, receive, comm, bytes, derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (TERN_UNLIKELY(request == nullptr)) return raise(comm, MPI_ERR_REQUEST, function, "null request argument");
  return MPI_SUCCESS;
}

// Temporary buffers of packed data (non-contiguous derived types).
struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};
using TempBuffer = std::unique_ptr<char, FreeDeleter>;

inline TempBuffer temp_buffer(std::size_t bytes) { return TempBuffer(static_cast<char*>(std::malloc(bytes == 0 ? 1 : bytes))); }

// `count` elements of a non-contiguous type packed into a fresh buffer; null
// when out of memory.
inline TempBuffer pack_temp(const DerivedType& type, const void* buffer, MPI_Count count) {
  TempBuffer temp = temp_buffer(static_cast<std::size_t>(count) * type.size);
  if (temp != nullptr) pack_data(type, buffer, static_cast<std::size_t>(count), temp.get());
  return temp;
}

inline int no_memory(const Comm* comm, const char* function, std::size_t bytes) {
  return raise(comm, MPI_ERR_NO_MEM, function, "no memory for %zu bytes of packed data", bytes);
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
// `comm`'s point-to-point context (held when `tag` is critical there): Ok
// when done at once, InProgress with `request`, or an error.
inline Status start_send(Comm& comm, const void* buffer, std::size_t bytes, int dest, int tag, unsigned flags,
                         engine::Request*& request) {
  request = nullptr;
  engine::Endpoint* endpoint = comm_endpoint(comm, dest);
  if (TERN_UNLIKELY(endpoint == nullptr)) return Status::Unreachable;
  return g_state->worker->tag_send_nb(endpoint, buffer, bytes,
                                      make_tag(comm.context, static_cast<unsigned>(comm.rank), tag), request,
                                      flags | held_flag(comm, tag));
}

// Posts the receive of request `slot` (kind, comm and capacity set): `bytes`
// into `data` from `source` with `tag`. When `packed.temp` is set, `data` is
// that temporary, which the slot then owns and unpacks at completion. A
// receive that ends at once leaves its status in the slot. Ok, or the
// engine's failure to post (the slot and `packed` untouched).
[[nodiscard]] Status post_slot_receive(const Comm& comm, RequestSlot& slot, void* data, std::size_t bytes, int source,
                                       int tag, PackedTransfer& packed);

// MPI_Bsend's copy (buffered.cpp): copies `bytes` into the attached buffer
// and starts the send from there. MPI_ERR_BUFFER (raised) when it does not fit.
int buffered_send(const char* function, Comm& comm, const void* buffer, std::size_t bytes, int dest, int tag);

// Waits for every buffered send to end (MPI_Buffer_detach); at MPI_Finalize,
// also forgets the attached buffer.
void buffered_flush();
void buffered_finalize();

}  // namespace tern::mpi
