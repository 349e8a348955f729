// Persistent requests: *_init records the arguments in a request slot
// (inactive); MPI_Start replays them as a non-blocking operation; Wait/Test
// complete it and leave it inactive with its handle (request/request.cpp), and
// MPI_Request_free ends it.
#include <algorithm>
#include <cstdlib>

#include "coll/schedule.hpp"
#include "p2p/p2p.hpp"
#include "p2p/partitioned.hpp"

namespace tern::mpi {
namespace {

int init_request(const char* function, const void* buf, MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                 MPI_Comm handle, MPI_Request* request, bool receive, unsigned flags, bool buffered) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_request_args(function, handle, buf, count, datatype, peer, tag, receive, request, comm, bytes,
                                   &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  if (TERN_UNLIKELY(handle_out == MPI_REQUEST_NULL)) {
    return raise(comm, MPI_ERR_NO_MEM, function, "no memory for another request");
  }
  slot->kind = receive ? RequestKind::Recv : RequestKind::Send;
  slot->comm = handle;
  slot->capacity = bytes;
  slot->persistent = true;
  slot->active = false;
  slot->buffered = buffered;
  slot->flags = flags;
  slot->buffer = const_cast<void*>(buf);
  slot->bytes = bytes;
  slot->peer = peer;
  slot->tag = tag;
  slot->derived = std::move(derived);
  slot->derived_count = static_cast<std::size_t>(count);
  slot->packed = PackedTransfer{};
  *request = handle_out;
  return MPI_SUCCESS;
}

// Starts one inactive persistent request. Errors of the operation itself
// stay in the slot for Wait/Test; argument errors are raised here.
int start(const char* function, MPI_Request handle) {
  RequestSlot* slot = g_state->requests.find(handle);
  if (TERN_UNLIKELY(slot == nullptr || !slot->persistent)) {
    return raise(nullptr, MPI_ERR_REQUEST, function, "request %d is not a persistent request", handle);
  }
  Comm* comm = find_comm(slot->comm);
  if (TERN_UNLIKELY(slot->active)) {
    return raise(comm, MPI_ERR_REQUEST, function, "request %d is active already", handle);
  }
  if (TERN_UNLIKELY(comm == nullptr)) {
    return raise(nullptr, MPI_ERR_COMM, function, "the communicator of request %d was freed", handle);
  }
  if (slot->partitioned != nullptr) {  // MPI_Psend_init/MPI_Precv_init (partitioned.cpp)
    if (int err = slot->partitioned->start(function, handle, *comm); err != MPI_SUCCESS) return err;
    slot->active = true;
    return MPI_SUCCESS;
  }
  if (slot->schedule != nullptr) {  // a persistent collective (MPI_*_init)
    slot->active = true;
    slot->schedule->start();
    return MPI_SUCCESS;
  }
  slot->engine = nullptr;
  slot->error = MPI_SUCCESS;
  if (slot->peer == MPI_PROC_NULL) {
    empty_status(&slot->status, MPI_PROC_NULL);
    slot->active = true;
    return MPI_SUCCESS;
  }
  // Non-contiguous types: this round's packed copy (sends) or landing
  // buffer (receives), held in slot->packed until the round completes.
  void* data = slot->buffer;
  void* temp = nullptr;
  if (TERN_UNLIKELY(slot->derived != nullptr)) {
    temp = std::malloc(slot->bytes == 0 ? 1 : slot->bytes);
    if (temp == nullptr) {
      return raise(comm, MPI_ERR_NO_MEM, function, "no memory for %zu bytes of packed data", slot->bytes);
    }
    if (slot->kind == RequestKind::Send) pack_data(*slot->derived, slot->buffer, slot->derived_count, temp);
    data = temp;
  }
  if (slot->kind == RequestKind::Send) {
    if (slot->buffered) {
      // The attached buffer takes a copy: the packed one is not needed after.
      const int err = buffered_send(function, *comm, data, slot->bytes, slot->peer, slot->tag);
      std::free(temp);
      if (err != MPI_SUCCESS) return err;
      slot->active = true;
      return MPI_SUCCESS;
    }
    engine::Request* request = nullptr;
    const Status s = start_send(*comm, data, slot->bytes, slot->peer, slot->tag, slot->flags, request);
    if (TERN_UNLIKELY(s != Status::Ok && s != Status::InProgress)) {
      std::free(temp);
      return raise(comm, error_class_of(s), function, "sending %zu bytes to rank %d failed: %s", slot->bytes,
                   slot->peer, to_string(s));
    }
    if (s == Status::InProgress) {
      slot->packed.temp = temp;
    } else {
      std::free(temp);  // done at once
    }
    slot->engine = request;
    slot->active = true;
    return MPI_SUCCESS;
  }
  PackedTransfer packed;
  if (TERN_UNLIKELY(temp != nullptr)) packed = PackedTransfer{temp, slot->derived, slot->buffer, slot->derived_count};
  if (Status s = post_slot_receive(*comm, *slot, data, slot->bytes, slot->peer, slot->tag, packed);
      TERN_UNLIKELY(s != Status::Ok)) {
    std::free(temp);
    return raise(comm, error_class_of(s), function, "posting a receive from rank %d failed: %s", slot->peer,
                 to_string(s));
  }
  slot->active = true;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return init_request("MPI_Send_init", buf, count, datatype, dest, tag, comm, request, false, 0, false);
}

int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return init_request("MPI_Send_init_c", buf, count, datatype, dest, tag, comm, request, false, 0, false);
}

int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return init_request("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, request,
                      false, engine::kSendSync, false);
}

int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  return init_request("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm, request,
                      false, engine::kSendSync, false);
}

// Ready sends are standard sends (see MPI_Rsend).
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return init_request("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, request, false, 0, false);
}

int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  return init_request("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm, request, false, 0, false);
}

int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return init_request("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, request, false, 0, true);
}

int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  return init_request("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm, request, false, 0, true);
}

int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return init_request("MPI_Recv_init", buf, count, datatype, source, tag, comm, request, true, 0, false);
}

int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return init_request("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, request, true, 0, false);
}

int PMPI_Start(MPI_Request* request) {
  constexpr const char* kFunction = "MPI_Start";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(request == nullptr)) return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request argument");
  return start(kFunction, *request);
}

int PMPI_Startall(int count, MPI_Request requests[]) {
  constexpr const char* kFunction = "MPI_Startall";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(count < 0)) return raise(nullptr, MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  if (TERN_UNLIKELY(requests == nullptr && count != 0)) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request array");
  }
  for (int i = 0; i < count; ++i) {
    if (int err = start(kFunction, requests[i]); TERN_UNLIKELY(err != MPI_SUCCESS)) return err;
  }
  return MPI_SUCCESS;
}

#pragma weak MPI_Send_init = PMPI_Send_init
#pragma weak MPI_Ssend_init = PMPI_Ssend_init
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
#pragma weak MPI_Bsend_init = PMPI_Bsend_init
#pragma weak MPI_Recv_init = PMPI_Recv_init
#pragma weak MPI_Start = PMPI_Start
#pragma weak MPI_Startall = PMPI_Startall
#pragma weak MPI_Send_init_c = PMPI_Send_init_c
#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c

}  // extern "C"
