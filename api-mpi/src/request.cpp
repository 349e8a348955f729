// MPI requests: slots that hold the engine request (or the result of an
// operation that finished at once), completed by Wait/Test and their
// all-forms.
#include <new>

#include "state.hpp"

namespace tern::mpi {

MPI_Request RequestPool::get(RequestSlot*& slot) {
  std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
  if (locked) lock.lock();
  if (free_head_ == 0) {
    const int chunk = chunk_count_.load(std::memory_order_relaxed);
    if (chunk == kMaxChunks) return MPI_REQUEST_NULL;
    chunks_[chunk].reset(new (std::nothrow) RequestSlot[kChunkSize]);
    if (!chunks_[chunk]) return MPI_REQUEST_NULL;
    for (int i = kChunkSize - 1; i >= 0; --i) {
      chunks_[chunk][i].next_free = free_head_;
      free_head_ = chunk * kChunkSize + i + 1;
    }
    chunk_count_.store(chunk + 1, std::memory_order_release);
  }
  const MPI_Request handle = free_head_;
  slot = &chunks_[(handle - 1) >> kChunkBits][(handle - 1) & (kChunkSize - 1)];
  free_head_ = slot->next_free;
  slot->engine = nullptr;
  slot->error = MPI_SUCCESS;
  slot->capacity = 0;
  slot->kind = RequestKind::Send;  // taken; the caller sets the real kind
  return handle;
}

void RequestPool::put(MPI_Request handle) {
  std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
  if (locked) lock.lock();
  RequestSlot* slot = &chunks_[(handle - 1) >> kChunkBits][(handle - 1) & (kChunkSize - 1)];
  slot->kind = RequestKind::Free;
  slot->engine = nullptr;
  slot->next_free = free_head_;
  free_head_ = handle;
}

namespace {

// What a request handle refers to.
enum class Lookup { Null, SendDone, ProcNull, Slot, Invalid };

inline Lookup look_up(MPI_Request handle, RequestSlot*& slot) {
  slot = nullptr;
  if (handle == MPI_REQUEST_NULL) return Lookup::Null;
  if (handle == kRequestSendDone) return Lookup::SendDone;
  if (handle == kRequestProcNull) return Lookup::ProcNull;
  slot = g_state->requests.find(handle);
  return slot != nullptr ? Lookup::Slot : Lookup::Invalid;
}

inline bool slot_done(const RequestSlot* slot) { return slot->engine == nullptr || engine_done(slot->engine); }

// Ends a done request: fills `status`, frees the slot, sets the handle to
// MPI_REQUEST_NULL; returns the operation's error class (not raised).
int finish(MPI_Request* handle, Lookup kind, RequestSlot* slot, MPI_Status* status) {
  int error = MPI_SUCCESS;
  switch (kind) {
    case Lookup::Null:
    case Lookup::SendDone:
    case Lookup::Invalid: empty_status(status); break;
    case Lookup::ProcNull: empty_status(status, MPI_PROC_NULL); break;
    case Lookup::Slot:
      if (slot->engine != nullptr) {
        engine::Request* request = slot->engine;
        if (slot->kind == RequestKind::Recv) {
          error = fill_recv_status(status, request->info(), slot->capacity, request->status());
        } else {
          error = error_class_of(request->status());
          empty_status(status);
          if (status != MPI_STATUS_IGNORE) {
            status->MPI_ERROR = error;
            status->tern_cancelled = request->status() == Status::Canceled;
          }
        }
        g_state->worker->release(request);
      } else {
        error = slot->error;
        if (status != MPI_STATUS_IGNORE) {
          if (slot->kind == RequestKind::Recv) {
            *status = slot->status;
          } else {
            empty_status(status);
          }
        }
      }
      g_state->requests.put(*handle);
      break;
  }
  *handle = MPI_REQUEST_NULL;
  return error;
}

int raise_request(MPI_Request handle, MPI_Comm comm_handle, int error, const char* function) {
  const Comm* comm = find_comm(comm_handle);
  return raise(comm, error, function, "request %d ended with %s", handle,
               error == MPI_ERR_TRUNCATE ? "a truncated message" : "an error");
}

// Finishes `count` done requests; MPI_ERR_IN_STATUS (raised on the first
// failed request's communicator) when any ended with an error.
int finish_all(int count, MPI_Request requests[], MPI_Status statuses[], const char* function) {
  MPI_Comm failed_comm = MPI_COMM_NULL;
  bool failed = false;
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    const MPI_Comm comm = slot != nullptr ? slot->comm : MPI_COMM_NULL;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    const int error = finish(&requests[i], kind, slot, status);
    if (error != MPI_SUCCESS && !failed) {
      failed = true;
      failed_comm = comm;
    }
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error;
  }
  if (TERN_UNLIKELY(failed)) {
    return raise(find_comm(failed_comm), MPI_ERR_IN_STATUS, function,
                 "a request ended with an error (see the statuses)");
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Wait";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(request == nullptr)) return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request argument");
  RequestSlot* slot = nullptr;
  const Lookup kind = look_up(*request, slot);
  if (TERN_UNLIKELY(kind == Lookup::Invalid)) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid request %d", *request);
  }
  if (kind == Lookup::Slot && slot->engine != nullptr) progress_until([slot] { return engine_done(slot->engine); });
  const MPI_Request handle = *request;
  const MPI_Comm comm = slot != nullptr ? slot->comm : MPI_COMM_NULL;
  const int error = finish(request, kind, slot, status);
  if (TERN_UNLIKELY(error != MPI_SUCCESS)) return raise_request(handle, comm, error, kFunction);
  return MPI_SUCCESS;
}

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Test";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(request == nullptr || flag == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null request or flag argument");
  }
  RequestSlot* slot = nullptr;
  const Lookup kind = look_up(*request, slot);
  if (TERN_UNLIKELY(kind == Lookup::Invalid)) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid request %d", *request);
  }
  if (kind == Lookup::Slot && !slot_done(slot)) {
    (void)g_state->worker->progress();
    if (!slot_done(slot)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  const MPI_Request handle = *request;
  const MPI_Comm comm = slot != nullptr ? slot->comm : MPI_COMM_NULL;
  const int error = finish(request, kind, slot, status);
  if (TERN_UNLIKELY(error != MPI_SUCCESS)) return raise_request(handle, comm, error, kFunction);
  return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  constexpr const char* kFunction = "MPI_Waitall";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(count < 0)) return raise(nullptr, MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  if (TERN_UNLIKELY(requests == nullptr && count != 0)) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request array");
  }
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    if (TERN_UNLIKELY(look_up(requests[i], slot) == Lookup::Invalid)) {
      return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid request %d at index %d", requests[i], i);
    }
  }
  // Requests complete roughly in order: resume from the first one not done.
  int first_pending = 0;
  progress_until([&] {
    for (; first_pending < count; ++first_pending) {
      RequestSlot* slot = nullptr;
      if (look_up(requests[first_pending], slot) == Lookup::Slot && !slot_done(slot)) return false;
    }
    return true;
  });
  if (int error = finish_all(count, requests, statuses, kFunction); TERN_UNLIKELY(error != MPI_SUCCESS)) return error;
  return MPI_SUCCESS;
}

int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  constexpr const char* kFunction = "MPI_Testall";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(count < 0)) return raise(nullptr, MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  if (TERN_UNLIKELY((requests == nullptr && count != 0) || flag == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null request array or flag");
  }
  (void)g_state->worker->progress();
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    if (TERN_UNLIKELY(kind == Lookup::Invalid)) {
      return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid request %d at index %d", requests[i], i);
    }
    if (kind == Lookup::Slot && !slot_done(slot)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  if (int error = finish_all(count, requests, statuses, kFunction); TERN_UNLIKELY(error != MPI_SUCCESS)) return error;
  return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request* request) {
  constexpr const char* kFunction = "MPI_Request_free";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (request == nullptr) return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request argument");
  RequestSlot* slot = nullptr;
  const Lookup kind = look_up(*request, slot);
  if (kind == Lookup::Invalid || kind == Lookup::Null) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid request %d", *request);
  }
  if (kind == Lookup::Slot) {
    // The engine recycles its request once the operation ends.
    if (slot->engine != nullptr) g_state->worker->release(slot->engine);
    g_state->requests.put(*request);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Request_c2f(MPI_Request request) { return request; }
MPI_Request PMPI_Request_f2c(MPI_Fint request) { return request; }

#pragma weak MPI_Wait = PMPI_Wait
#pragma weak MPI_Test = PMPI_Test
#pragma weak MPI_Waitall = PMPI_Waitall
#pragma weak MPI_Testall = PMPI_Testall
#pragma weak MPI_Request_free = PMPI_Request_free
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c

}  // extern "C"
