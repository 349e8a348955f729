// Generalized requests (MPI 4.0 section 13.2). The slot holds the program's
// callbacks; MPI_Grequest_complete marks it done and wakes the threads that
// sleep in a wait, which keep progressing the engine meanwhile
// (progress_until). query_fn runs when a wait, test or MPI_Request_get_status
// reports the request; free_fn once, when a completion call ends it or, for a
// request the program freed first, when both MPI_Request_free and
// MPI_Grequest_complete have been called.
#include "request/generalized.hpp"

#include <memory>

using namespace tern;
using namespace tern::mpi;

namespace tern::mpi {

int generalized_query(RequestSlot& slot, MPI_Status* status) {
  GeneralizedRequest& request = *slot.generalized;
  MPI_Status own;
  MPI_Status* target = status == MPI_STATUS_IGNORE ? &own : status;
  empty_status(target);
  return request.query(request.extra_state, target);
}

int generalized_finish(RequestSlot& slot, MPI_Status* status) {
  GeneralizedRequest& request = *slot.generalized;
  const int query_error = generalized_query(slot, status);
  const int free_error = request.free(request.extra_state);
  return query_error != MPI_SUCCESS ? query_error : free_error;
}

int generalized_cancel(RequestSlot& slot) {
  GeneralizedRequest& request = *slot.generalized;
  const int error = request.cancel(request.extra_state, request.done() ? 1 : 0);
  if (error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(nullptr, error, "MPI_Cancel", "the generalized request's cancel_fn returned error %d", error);
}

int generalized_free(MPI_Request* handle, RequestSlot& slot) {
  const std::shared_ptr<GeneralizedRequest> request = slot.generalized;
  const MPI_Request freed_handle = *handle;
  *handle = MPI_REQUEST_NULL;
  {
    std::lock_guard lock(request->mutex);
    if (!request->done()) {
      request->freed = true;  // MPI_Grequest_complete finishes it
      return MPI_SUCCESS;
    }
  }
  const int error = request->free(request->extra_state);
  g_state->requests.put(freed_handle);
  if (error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(nullptr, error, "MPI_Request_free", "the generalized request's free_fn returned error %d", error);
}

}  // namespace tern::mpi

extern "C" {

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  constexpr const char* kFunction = "MPI_Grequest_start";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (query_fn == nullptr || free_fn == nullptr || cancel_fn == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null %s argument",
                 query_fn == nullptr ? "query_fn" : free_fn == nullptr ? "free_fn" : "cancel_fn");
  }
  if (request == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null request argument");
  auto generalized = std::make_shared<GeneralizedRequest>();
  generalized->query = query_fn;
  generalized->free = free_fn;
  generalized->cancel = cancel_fn;
  generalized->extra_state = extra_state;
  RequestSlot* slot = nullptr;
  const MPI_Request handle = g_state->requests.get(slot);
  if (handle == MPI_REQUEST_NULL) return raise(nullptr, MPI_ERR_NO_MEM, kFunction, "out of requests");
  // The kind matters to no call: each looks at `generalized` first.
  slot->kind = RequestKind::Collective;
  slot->comm = MPI_COMM_NULL;
  slot->generalized = std::move(generalized);
  *request = handle;
  return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request handle) {
  constexpr const char* kFunction = "MPI_Grequest_complete";
  if (g_state == nullptr) return not_initialized(kFunction);
  RequestSlot* slot = g_state->requests.find(handle);
  if (slot == nullptr || slot->generalized == nullptr) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "request %d is not a generalized request", handle);
  }
  // A waiting thread may end the request (and reuse the slot) as soon as
  // `complete` is set: hold the request itself, not the slot.
  const std::shared_ptr<GeneralizedRequest> request = slot->generalized;
  bool finish_here = false;
  {
    std::lock_guard lock(request->mutex);
    if (request->done()) {
      return raise(nullptr, MPI_ERR_REQUEST, kFunction, "generalized request %d is already complete", handle);
    }
    request->complete.store(true, std::memory_order_release);
    finish_here = request->freed;
  }
  if (finish_here) {
    const int error = request->free(request->extra_state);
    g_state->requests.put(handle);
    if (error != MPI_SUCCESS) {
      return raise(nullptr, error, kFunction, "the freed generalized request's free_fn returned error %d", error);
    }
    return MPI_SUCCESS;
  }
  // Wake a thread that sleeps in a wait for it.
  (void)g_state->worker->signal();
  return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete

}  // extern "C"
