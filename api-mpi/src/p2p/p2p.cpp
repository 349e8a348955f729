// Point-to-point: contiguous data straight to the engine's tag API, the
// (context, source, tag) triple packed into the engine tag, wildcards as
// cleared mask bits. No allocation and no lock on the path of a small send
// or receive (request slots are recycled).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "p2p/p2p.hpp"

namespace tern::mpi {

int check_derived(const char* function, Comm* comm, const void* buffer, MPI_Count count, MPI_Datatype datatype,
                  std::size_t& bytes, std::shared_ptr<const DerivedType>* derived) {
  // No data: the standard lets MPI_DATATYPE_NULL stand for the type.
  if (datatype == MPI_DATATYPE_NULL && count == 0) {
    bytes = 0;
    return MPI_SUCCESS;
  }
  std::shared_ptr<const DerivedType> type = describe_type(datatype);
  if (type == nullptr) return raise(comm, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (!type->committed) return raise(comm, MPI_ERR_TYPE, function, "datatype %d is not committed", datatype);
  if (count < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld", count);
  if (__builtin_mul_overflow(static_cast<std::size_t>(count), type->size, &bytes)) {
    return count_overflow(comm, function, count);
  }
  if (type->contiguous) {
    if (buffer == nullptr && bytes != 0) {
      return raise(comm, MPI_ERR_BUFFER, function, "null buffer for %zu bytes", bytes);
    }
    return MPI_SUCCESS;
  }
  if (derived == nullptr) {
    return raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, function,
                 "non-contiguous derived datatype %d is not supported by this call", datatype);
  }
  *derived = std::move(type);
  return MPI_SUCCESS;
}

Status post_slot_receive(const Comm& comm, RequestSlot& slot, void* data, std::size_t bytes, int source, int tag,
                         PackedTransfer& packed) {
  const Match m = match_of(comm, source, tag);
  engine::TagRecvInfo info;
  engine::Request* request = nullptr;
  const Status s = g_state->worker->tag_recv_nb(data, bytes, m.tag, m.mask, request, &info);
  if (TERN_UNLIKELY(s != Status::InProgress && s != Status::Ok && s != Status::Truncated)) return s;
  slot.engine = request;
  if (TERN_UNLIKELY(packed.temp != nullptr)) slot.packed = std::move(packed);
  if (s != Status::InProgress) {
    slot.error = fill_recv_status(&slot.status, info, bytes, s);
    if (TERN_UNLIKELY(slot.packed.temp != nullptr)) {
      complete_transfer(slot.packed, true, s == Status::Canceled ? 0 : std::min(info.length, bytes));
    }
  }
  return Status::Ok;
}

namespace {

int send_blocking(const char* function, const void* buffer, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm handle, unsigned flags) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_args(function, handle, buffer, count, datatype, dest, tag, false, comm, bytes, &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  TempBuffer temp;
  if (TERN_UNLIKELY(derived != nullptr)) {
    temp = pack_temp(*derived, buffer, count);
    if (temp == nullptr) return no_memory(comm, function, bytes);
    buffer = temp.get();
  }
  engine::Endpoint* endpoint = comm_endpoint(*comm, dest);
  if (TERN_UNLIKELY(endpoint == nullptr)) return raise(comm, MPI_ERR_OTHER, function, "%s", g_state->job->last_error().c_str());
  Status s = g_state->worker->tag_send(endpoint, buffer, bytes,
                                       make_tag(comm->context, static_cast<unsigned>(comm->rank), tag),
                                       flags | held_flag(*comm, tag));
  if (TERN_UNLIKELY(s != Status::Ok)) {
    return raise(comm, error_class_of(s), function, "sending %zu bytes to rank %d failed: %s", bytes, dest,
                 to_string(s));
  }
  return MPI_SUCCESS;
}

// The non-blocking calls in two instances: kPredefined for a predefined
// datatype (find_type knows it), as in nearly every call, which then
// carries none of the derived-type bookkeeping (the shared type, the packed
// copy) whose locals made every call's frame larger.
template <bool kPredefined>
int send_nonblocking_as(const char* function, const void* buffer, MPI_Count count, MPI_Datatype datatype, int dest,
                        int tag, MPI_Comm handle, MPI_Request* request, unsigned flags) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_request_args(function, handle, buffer, count, datatype, dest, tag, false, request, comm, bytes,
                                   kPredefined ? nullptr : &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (dest == MPI_PROC_NULL) {
    *request = kRequestSendDone;
    return MPI_SUCCESS;
  }
  // Non-contiguous: the packed copy goes out and lives until the send ends.
  TempBuffer temp;
  if (TERN_UNLIKELY(derived != nullptr)) {
    temp = pack_temp(*derived, buffer, count);
    if (temp == nullptr) return no_memory(comm, function, bytes);
    buffer = temp.get();
  }
  engine::Endpoint* endpoint = comm_endpoint(*comm, dest);
  if (TERN_UNLIKELY(endpoint == nullptr)) return raise(comm, MPI_ERR_OTHER, function, "%s", g_state->job->last_error().c_str());
  engine::Request* engine_request = nullptr;
  Status s = g_state->worker->tag_send_nb(endpoint, buffer, bytes,
                                          make_tag(comm->context, static_cast<unsigned>(comm->rank), tag),
                                          engine_request, flags | held_flag(*comm, tag));
  if (s == Status::Ok) {
    *request = kRequestSendDone;
    return MPI_SUCCESS;
  }
  if (TERN_UNLIKELY(s != Status::InProgress)) {
    return raise(comm, error_class_of(s), function, "sending %zu bytes to rank %d failed: %s", bytes, dest,
                 to_string(s));
  }
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  if (TERN_UNLIKELY(handle_out == MPI_REQUEST_NULL)) {
    // No slot to track it: finish the send here rather than lose it.
    s = g_state->worker->wait(engine_request);
    *request = kRequestSendDone;
    return s == Status::Ok ? MPI_SUCCESS : raise(comm, error_class_of(s), function, "send failed: %s", to_string(s));
  }
  slot->engine = engine_request;
  slot->kind = RequestKind::Send;
  slot->comm = handle;
  slot->packed.temp = temp.release();
  *request = handle_out;
  return MPI_SUCCESS;
}

int send_nonblocking(const char* function, const void* buffer, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm handle, MPI_Request* request, unsigned flags) {
  if (TERN_LIKELY(find_type(datatype) != nullptr)) {
    return send_nonblocking_as<true>(function, buffer, count, datatype, dest, tag, handle, request, flags);
  }
  return send_nonblocking_as<false>(function, buffer, count, datatype, dest, tag, handle, request, flags);
}

template <bool kPredefined>
int receive_nonblocking_as(const char* kFunction, void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                           int tag, MPI_Comm handle, MPI_Request* request) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_request_args(kFunction, handle, buf, count, datatype, source, tag, true, request, comm, bytes,
                                   kPredefined ? nullptr : &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (source == MPI_PROC_NULL) {
    *request = kRequestProcNull;
    return MPI_SUCCESS;
  }
  // Non-contiguous: the message lands in a temporary buffer, unpacked when
  // the request completes (Wait/Test and their forms).
  TempBuffer temp;
  void* const user_buffer = buf;
  if (TERN_UNLIKELY(derived != nullptr)) {
    temp = temp_buffer(bytes);
    if (temp == nullptr) return no_memory(comm, kFunction, bytes);
    buf = temp.get();
  }
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  if (TERN_UNLIKELY(handle_out == MPI_REQUEST_NULL)) {
    return raise(comm, MPI_ERR_NO_MEM, kFunction, "no memory for another request");
  }
  PackedTransfer packed;
  if (TERN_UNLIKELY(derived != nullptr)) packed = PackedTransfer{temp.get(), std::move(derived), user_buffer,
                                                                 static_cast<std::size_t>(count)};
  slot->kind = RequestKind::Recv;
  slot->comm = handle;
  slot->capacity = bytes;
  if (Status s = post_slot_receive(*comm, *slot, buf, bytes, source, tag, packed); TERN_UNLIKELY(s != Status::Ok)) {
    g_state->requests.put(handle_out);
    return raise(comm, error_class_of(s), kFunction, "posting a receive from rank %d failed: %s", source,
                 to_string(s));
  }
  (void)temp.release();  // the slot owns it now
  *request = handle_out;
  return MPI_SUCCESS;
}

int receive_blocking(const char* kFunction, void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm handle, MPI_Status* status) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_args(kFunction, handle, buf, count, datatype, source, tag, true, comm, bytes, &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (source == MPI_PROC_NULL) {
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  const Match m = match_of(*comm, source, tag);
  engine::TagRecvInfo info;
  if (TERN_UNLIKELY(derived != nullptr)) {
    // Non-contiguous: receive packed, then unpack what arrived.
    TempBuffer temp = temp_buffer(bytes);
    if (temp == nullptr) return no_memory(comm, kFunction, bytes);
    Status s = g_state->worker->tag_recv(temp.get(), bytes, m.tag, m.mask, &info);
    if (s == Status::Ok || s == Status::Truncated) {
      unpack_data(*derived, temp.get(), std::min(info.length, bytes), buf, static_cast<std::size_t>(count));
    }
    if (fill_recv_status(status, info, bytes, s) != MPI_SUCCESS) return raise_recv(comm, kFunction, s, info, bytes, source);
    return MPI_SUCCESS;
  }
  Status s = g_state->worker->tag_recv(buf, bytes, m.tag, m.mask, &info);
  const int err = fill_recv_status(status, info, bytes, s);
  if (TERN_UNLIKELY(err != MPI_SUCCESS)) return raise_recv(comm, kFunction, s, info, bytes, source);
  return MPI_SUCCESS;
}

int bsend(const char* kFunction, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
          MPI_Comm handle) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_args(kFunction, handle, buf, count, datatype, dest, tag, false, comm, bytes, &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  TempBuffer packed;
  if (derived != nullptr) {
    packed = pack_temp(*derived, buf, count);
    if (packed == nullptr) return no_memory(comm, kFunction, bytes);
    buf = packed.get();
  }
  return buffered_send(kFunction, *comm, buf, bytes, dest, tag);
}

// The copy is the whole of the local work: the request is done at once.
int ibsend(const char* kFunction, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
           MPI_Comm handle, MPI_Request* request) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_request_args(kFunction, handle, buf, count, datatype, dest, tag, false, request, comm, bytes,
                                   &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  TempBuffer packed;
  if (derived != nullptr && dest != MPI_PROC_NULL) {
    packed = pack_temp(*derived, buf, count);
    if (packed == nullptr) return no_memory(comm, kFunction, bytes);
    buf = packed.get();
  }
  if (dest != MPI_PROC_NULL) {
    if (int err = buffered_send(kFunction, *comm, buf, bytes, dest, tag); err != MPI_SUCCESS) return err;
  }
  *request = kRequestSendDone;
  return MPI_SUCCESS;
}

int receive_nonblocking(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm handle, MPI_Request* request) {
  if (TERN_LIKELY(find_type(datatype) != nullptr)) {
    return receive_nonblocking_as<true>(function, buf, count, datatype, source, tag, handle, request);
  }
  return receive_nonblocking_as<false>(function, buf, count, datatype, source, tag, handle, request);
}

}  // namespace

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_blocking("MPI_Send_c", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, engine::kSendSync);
}

int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_blocking("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, engine::kSendSync);
}

int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm, request, 0);
}

int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return send_nonblocking("MPI_Isend_c", buf, count, datatype, dest, tag, comm, request, 0);
}

int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm, request, engine::kSendSync);
}

int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return send_nonblocking("MPI_Issend_c", buf, count, datatype, dest, tag, comm, request, engine::kSendSync);
}

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return receive_blocking("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  return receive_blocking("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return receive_nonblocking("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return receive_nonblocking("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}

// Ready sends are standard sends: a correct program's receive is already
// posted, so they cannot tell the difference.
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_blocking("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm, request, 0);
}

int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return send_nonblocking("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, request, 0);
}

int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return bsend("MPI_Bsend", buf, count, datatype, dest, tag, comm);
}

int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return bsend("MPI_Bsend_c", buf, count, datatype, dest, tag, comm);
}

int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return ibsend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return ibsend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Probe(int source, int tag, MPI_Comm handle, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Probe";
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  if (int err = check_args(kFunction, handle, nullptr, 0, MPI_BYTE, source, tag, true, comm, bytes);
      err != MPI_SUCCESS) {
    return err;
  }
  if (source == MPI_PROC_NULL) {
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  const Match m = match_of(*comm, source, tag);
  engine::TagRecvInfo info;
  progress_until([&] { return g_state->worker->tag_probe(m.tag, m.mask, info) == Status::Ok; });
  (void)fill_recv_status(status, info, info.length, Status::Ok);
  return MPI_SUCCESS;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm handle, int* flag, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Iprobe";
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  if (int err = check_args(kFunction, handle, nullptr, 0, MPI_BYTE, source, tag, true, comm, bytes);
      err != MPI_SUCCESS) {
    return err;
  }
  if (flag == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null flag argument");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  const Match m = match_of(*comm, source, tag);
  engine::TagRecvInfo info;
  Status s = g_state->worker->tag_probe(m.tag, m.mask, info);
  if (s == Status::NotFound) {
    (void)g_state->worker->progress();
    s = g_state->worker->tag_probe(m.tag, m.mask, info);
  }
  *flag = s == Status::Ok;
  if (*flag) (void)fill_recv_status(status, info, info.length, Status::Ok);
  return MPI_SUCCESS;
}

#pragma weak MPI_Send = PMPI_Send
#pragma weak MPI_Ssend = PMPI_Ssend
#pragma weak MPI_Isend = PMPI_Isend
#pragma weak MPI_Issend = PMPI_Issend
#pragma weak MPI_Recv = PMPI_Recv
#pragma weak MPI_Irecv = PMPI_Irecv
#pragma weak MPI_Rsend = PMPI_Rsend
#pragma weak MPI_Irsend = PMPI_Irsend
#pragma weak MPI_Bsend = PMPI_Bsend
#pragma weak MPI_Ibsend = PMPI_Ibsend
#pragma weak MPI_Probe = PMPI_Probe
#pragma weak MPI_Iprobe = PMPI_Iprobe
#pragma weak MPI_Send_c = PMPI_Send_c
#pragma weak MPI_Ssend_c = PMPI_Ssend_c
#pragma weak MPI_Isend_c = PMPI_Isend_c
#pragma weak MPI_Issend_c = PMPI_Issend_c
#pragma weak MPI_Recv_c = PMPI_Recv_c
#pragma weak MPI_Irecv_c = PMPI_Irecv_c
#pragma weak MPI_Rsend_c = PMPI_Rsend_c
#pragma weak MPI_Irsend_c = PMPI_Irsend_c
#pragma weak MPI_Bsend_c = PMPI_Bsend_c
#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c

}  // extern "C"
