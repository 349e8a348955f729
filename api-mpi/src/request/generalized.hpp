// Generalized requests (MPI_Grequest_start, generalized.cpp): operations the
// program runs itself and completes with MPI_Grequest_complete, possibly from
// another thread. The request calls of request.cpp hand these slots here.
#pragma once

#include <atomic>
#include <mutex>

#include "state.hpp"

namespace tern::mpi {

struct GeneralizedRequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  // Set by MPI_Grequest_complete; what the waits look at.
  std::atomic<bool> complete{false};
  // MPI_Request_free came before MPI_Grequest_complete: free_fn runs, and
  // the slot goes back, at completion. Under `mutex`, as is the decision
  // which of the two calls runs free_fn.
  bool freed = false;
  std::mutex mutex;
  [[nodiscard]] bool done() const noexcept { return complete.load(std::memory_order_acquire); }
};

// Completes a done generalized request for a wait or test: query_fn fills
// `status` (MPI_STATUS_IGNORE: a status of its own), then free_fn runs.
// Returns query_fn's error, else free_fn's. The caller frees the slot.
[[nodiscard]] int generalized_finish(RequestSlot& slot, MPI_Status* status);
// MPI_Request_get_status of a done one: query_fn only; its error.
[[nodiscard]] int generalized_query(RequestSlot& slot, MPI_Status* status);
// MPI_Cancel: cancel_fn with whether MPI_Grequest_complete was called (raised).
[[nodiscard]] int generalized_cancel(RequestSlot& slot);
// MPI_Request_free: free_fn now if complete (the slot goes back), else at
// completion; *request becomes MPI_REQUEST_NULL either way (raised).
[[nodiscard]] int generalized_free(MPI_Request* request, RequestSlot& slot);

}  // namespace tern::mpi
