// MPI_Sendrecv, MPI_Sendrecv_replace and their non-blocking forms: the
// receive posted first, then the send, so that two ranks exchanging large
// messages cannot both sit in a send.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "p2p/p2p.hpp"

namespace tern::mpi {
namespace {

int sendrecv(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
             int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm handle, MPI_Status* status) {
  Comm* comm = nullptr;
  std::size_t send_bytes = 0, recv_bytes = 0;
  std::shared_ptr<const DerivedType> send_derived, recv_derived;
  if (int err = check_args(kFunction, handle, sendbuf, sendcount, sendtype, dest, sendtag, false, comm, send_bytes,
                           &send_derived);
      err != MPI_SUCCESS) {
    return err;
  }
  if (int err = check_args(kFunction, handle, recvbuf, recvcount, recvtype, source, recvtag, true, comm, recv_bytes,
                           &recv_derived);
      err != MPI_SUCCESS) {
    return err;
  }
  // Non-contiguous types: send a packed copy, receive packed and unpack.
  TempBuffer send_temp, recv_temp;
  void* const user_recvbuf = recvbuf;
  if (send_derived != nullptr && dest != MPI_PROC_NULL) {
    send_temp = pack_temp(*send_derived, sendbuf, sendcount);
    if (send_temp == nullptr) return no_memory(comm, kFunction, send_bytes);
    sendbuf = send_temp.get();
  }
  if (recv_derived != nullptr && source != MPI_PROC_NULL) {
    recv_temp = temp_buffer(recv_bytes);
    if (recv_temp == nullptr) return no_memory(comm, kFunction, recv_bytes);
    recvbuf = recv_temp.get();
  }
  // Post the receive first so that two ranks exchanging large messages
  // cannot both sit in a send waiting for the other's receive.
  engine::Request* engine_request = nullptr;
  engine::TagRecvInfo info;
  Status recv_status = Status::Ok;
  if (source != MPI_PROC_NULL) {
    const Match m = match_of(*comm, source, recvtag);
    recv_status = g_state->worker->tag_recv_nb(recvbuf, recv_bytes, m.tag, m.mask, engine_request, &info);
    if (recv_status != Status::InProgress && recv_status != Status::Ok && recv_status != Status::Truncated) {
      return raise_recv(comm, kFunction, recv_status, info, recv_bytes, source);
    }
  }
  int send_error = MPI_SUCCESS;
  if (dest != MPI_PROC_NULL) {
    engine::Endpoint* endpoint = comm_endpoint(*comm, dest);
    Status s = endpoint == nullptr ? Status::Unreachable
                                   : g_state->worker->tag_send(endpoint, sendbuf, send_bytes,
                                                               make_tag(comm->context,
                                                                        static_cast<unsigned>(comm->rank), sendtag));
    send_error = error_class_of(s);
    if (send_error != MPI_SUCCESS) {
      if (engine_request != nullptr) {
        (void)g_state->worker->cancel(engine_request);
        (void)g_state->worker->wait(engine_request);
      }
      return raise(comm, send_error, kFunction, "sending %zu bytes to rank %d failed: %s", send_bytes, dest,
                   to_string(s));
    }
  }
  if (source == MPI_PROC_NULL) {
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  if (engine_request != nullptr) {
    progress_until([engine_request] { return engine_done(engine_request); });
    recv_status = engine_request->status();
    info = engine_request->info();
    g_state->worker->release(engine_request);
  }
  if (recv_temp != nullptr && (recv_status == Status::Ok || recv_status == Status::Truncated)) {
    unpack_data(*recv_derived, recv_temp.get(), std::min(info.length, recv_bytes), user_recvbuf,
                static_cast<std::size_t>(recvcount));
  }
  if (fill_recv_status(status, info, recv_bytes, recv_status) != MPI_SUCCESS) {
    return raise_recv(comm, kFunction, recv_status, info, recv_bytes, source);
  }
  return MPI_SUCCESS;
}

// The outgoing copy of a *_replace call's buffer: the packed bytes of a
// non-contiguous type (sent as MPI_BYTE), a plain copy otherwise.
int replace_copy(const char* function, MPI_Comm handle, void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                 int sendtag, TempBuffer& copy, MPI_Count& send_count, MPI_Datatype& send_type) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_args(function, handle, buf, count, datatype, dest, sendtag, false, comm, bytes, &derived);
      err != MPI_SUCCESS) {
    return err;
  }
  if (derived != nullptr) {
    copy = pack_temp(*derived, buf, count);
    send_count = static_cast<MPI_Count>(bytes);
    send_type = MPI_BYTE;
  } else {
    copy = temp_buffer(bytes);
    if (copy != nullptr && bytes != 0) std::memcpy(copy.get(), buf, bytes);
    send_count = count;
    send_type = datatype;
  }
  if (copy == nullptr) return no_memory(comm, function, bytes);
  return MPI_SUCCESS;
}

// MPI_Isendrecv(_replace): one request whose receive is the slot's engine
// request and whose send is its companion; `owned` (the replace copy, when
// set) lives until the send ends.
int isendrecv(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
              int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm handle, MPI_Request* request, TempBuffer owned) {
  Comm* comm = nullptr;
  std::size_t send_bytes = 0, recv_bytes = 0;
  std::shared_ptr<const DerivedType> send_derived, recv_derived;
  if (int err = check_request_args(function, handle, sendbuf, sendcount, sendtype, dest, sendtag, false, request,
                                   comm, send_bytes, &send_derived);
      err != MPI_SUCCESS) {
    return err;
  }
  if (int err = check_args(function, handle, recvbuf, recvcount, recvtype, source, recvtag, true, comm, recv_bytes,
                           &recv_derived);
      err != MPI_SUCCESS) {
    return err;
  }
  TempBuffer send_temp = std::move(owned);
  if (send_derived != nullptr && dest != MPI_PROC_NULL) {
    send_temp = pack_temp(*send_derived, sendbuf, sendcount);
    if (send_temp == nullptr) return no_memory(comm, function, send_bytes);
    sendbuf = send_temp.get();
  }
  TempBuffer recv_temp;
  void* landing = recvbuf;
  if (recv_derived != nullptr && source != MPI_PROC_NULL) {
    recv_temp = temp_buffer(recv_bytes);
    if (recv_temp == nullptr) return no_memory(comm, function, recv_bytes);
    landing = recv_temp.get();
  }
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  if (handle_out == MPI_REQUEST_NULL) return raise(comm, MPI_ERR_NO_MEM, function, "no memory for another request");
  slot->kind = RequestKind::Recv;
  slot->comm = handle;
  slot->capacity = recv_bytes;
  if (source == MPI_PROC_NULL) {
    empty_status(&slot->status, MPI_PROC_NULL);
  } else {
    PackedTransfer packed;
    if (recv_temp != nullptr) {
      packed = PackedTransfer{recv_temp.get(), recv_derived, recvbuf, static_cast<std::size_t>(recvcount)};
    }
    if (Status s = post_slot_receive(*comm, *slot, landing, recv_bytes, source, recvtag, packed); s != Status::Ok) {
      g_state->requests.put(handle_out);
      return raise(comm, error_class_of(s), function, "posting a receive from rank %d failed: %s", source,
                   to_string(s));
    }
    (void)recv_temp.release();  // the slot owns it now
  }
  if (dest != MPI_PROC_NULL) {
    engine::Request* send_request = nullptr;
    const Status s = start_send(*comm, sendbuf, send_bytes, dest, sendtag, 0, send_request);
    if (s == Status::InProgress) {
      slot->companion = send_request;
      slot->companion_temp = send_temp.release();
    } else if (s != Status::Ok) {
      *request = handle_out;
      (void)PMPI_Cancel(request);
      (void)PMPI_Wait(request, MPI_STATUS_IGNORE);
      return raise(comm, error_class_of(s), function, "sending %zu bytes to rank %d failed: %s", send_bytes, dest,
                   to_string(s));
    }
  }
  *request = handle_out;
  return MPI_SUCCESS;
}

// The *_replace calls: the message goes out from a copy, so the receive may
// land in the buffer. Non-blocking into `request` (the copy then
// lives until the send ends), blocking into `status` otherwise.
int sendrecv_replace(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                     int source, int recvtag, MPI_Comm handle, MPI_Status* status, bool nonblocking,
                     MPI_Request* request) {
  TempBuffer copy;
  MPI_Count send_count = 0;
  MPI_Datatype send_type = MPI_DATATYPE_NULL;
  if (int err = replace_copy(function, handle, buf, count, datatype, dest, sendtag, copy, send_count, send_type);
      err != MPI_SUCCESS) {
    return err;
  }
  const void* send_from = copy.get();
  if (nonblocking) {
    return isendrecv(function, send_from, send_count, send_type, dest, sendtag, buf, count, datatype, source,
                     recvtag, handle, request, std::move(copy));
  }
  return sendrecv(function, send_from, send_count, send_type, dest, sendtag, buf, count, datatype, source, recvtag,
                  handle, status);
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status* status) {
  return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                  recvtag, comm, status);
}

int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status* status) {
  return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                  source, recvtag, comm, status);
}

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
                          false, nullptr);
}

int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                          status, false, nullptr);
}

int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   MPI_Request* request) {
  return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                   recvtag, comm, request, TempBuffer());
}

int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request* request) {
  return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                   source, recvtag, comm, request, TempBuffer());
}

int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request* request) {
  return sendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                          MPI_STATUS_IGNORE, true, request);
}

int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request* request) {
  return sendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                          MPI_STATUS_IGNORE, true, request);
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
#pragma weak MPI_Isendrecv = PMPI_Isendrecv
#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c

}  // extern "C"
