// MPI requests: slots that hold the engine request (or the result of an
// operation that finished at once), completed by Wait/Test and their
// all-forms.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <span>
#include <vector>

#include "coll/schedule.hpp"
#include "p2p/partitioned.hpp"
#include "request/generalized.hpp"
#include "state.hpp"

namespace tern::mpi {

namespace {

// Freed requests with packed transfers still in flight (MPI_Request_free):
// completed (unpacked, buffer freed) by later calls that reap them.
struct Orphan {
  engine::Request* engine;
  PackedTransfer packed;
  bool receive;
  std::size_t capacity;
};
std::mutex g_orphans_mutex;
std::vector<Orphan> g_orphans;

void reap_orphans(bool wait) {
  std::lock_guard<std::mutex> lock(g_orphans_mutex);
  for (std::size_t i = 0; i < g_orphans.size();) {
    Orphan& o = g_orphans[i];
    if (o.engine != nullptr) {
      if (wait) {
        progress_until([&o] { return engine_done(o.engine); });
      } else if (!engine_done(o.engine)) {
        ++i;
        continue;
      }
    }
    std::size_t received = 0;
    if (o.engine != nullptr) {
      if (o.receive && o.engine->status() != Status::Canceled) {
        received = std::min(o.engine->info().length, o.capacity);
      }
      g_state->worker->release(o.engine);
    }
    complete_transfer(o.packed, o.receive && o.engine != nullptr, received);
    g_orphans[i] = std::move(g_orphans.back());
    g_orphans.pop_back();
  }
}

void adopt_orphan(RequestSlot* slot) {
  {
    std::lock_guard<std::mutex> lock(g_orphans_mutex);
    g_orphans.push_back(Orphan{slot->engine, std::move(slot->packed), slot->kind == RequestKind::Recv, slot->capacity});
  }
  slot->packed = PackedTransfer{};
  slot->engine = nullptr;
  reap_orphans(false);
}

// What a request handle refers to.
// Inactive: a persistent request not started (complete at once, handle kept).
enum class Lookup { Null, SendDone, ProcNull, Slot, Inactive, Invalid };

inline Lookup look_up(MPI_Request handle, RequestSlot*& slot) {
  slot = nullptr;
  if (handle == MPI_REQUEST_NULL) return Lookup::Null;
  if (handle == kRequestSendDone) return Lookup::SendDone;
  if (handle == kRequestProcNull) return Lookup::ProcNull;
  slot = g_state->requests.find(handle);
  if (slot == nullptr) return Lookup::Invalid;
  return slot->persistent && !slot->active ? Lookup::Inactive : Lookup::Slot;
}

inline bool slot_done(const RequestSlot* slot) {
  if (TERN_UNLIKELY(slot->schedule != nullptr)) return slot->schedule->done();
  if (TERN_UNLIKELY(slot->partitioned != nullptr)) return slot->partitioned->done();
  if (TERN_UNLIKELY(slot->generalized != nullptr)) return slot->generalized->done();
  return (slot->engine == nullptr || engine_done(slot->engine)) &&
         (TERN_LIKELY(slot->companion == nullptr) || engine_done(slot->companion));
}

// Ends the send half of a done MPI_Isendrecv; its error class.
int finish_companion(RequestSlot* slot) {
  if (TERN_LIKELY(slot->companion == nullptr && slot->companion_temp == nullptr)) return MPI_SUCCESS;
  int error = MPI_SUCCESS;
  if (slot->companion != nullptr) {
    error = error_class_of(slot->companion->status());
    g_state->worker->release(slot->companion);
    slot->companion = nullptr;
  }
  std::free(slot->companion_temp);
  slot->companion_temp = nullptr;
  return error;
}

// Ends a done request: fills `status`, frees the slot, sets the handle to
// MPI_REQUEST_NULL; returns the operation's error class (not raised).
int finish(MPI_Request* handle, Lookup kind, RequestSlot* slot, MPI_Status* status) {
  int error = MPI_SUCCESS;
  switch (kind) {
    case Lookup::Inactive: empty_status(status); return MPI_SUCCESS;
    case Lookup::Null:
    case Lookup::SendDone:
    case Lookup::Invalid: empty_status(status); break;
    case Lookup::ProcNull: empty_status(status, MPI_PROC_NULL); break;
    case Lookup::Slot: {
      if (TERN_UNLIKELY(slot->partitioned != nullptr)) {  // p2p/partitioned.cpp
        slot->active = false;
        return slot->partitioned->complete(status);
      }
      if (TERN_UNLIKELY(slot->generalized != nullptr)) {  // request/generalized.cpp
        error = generalized_finish(*slot, status);
        g_state->requests.put(*handle);
        break;
      }
      if (TERN_UNLIKELY(slot->schedule != nullptr)) {
        error = slot->schedule->error_class();
        empty_status(status);
        if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error;
        if (slot->persistent) {
          slot->active = false;
          return error;
        }
        g_state->requests.put(*handle);
        break;
      }
      const int send_error = finish_companion(slot);
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
        if (TERN_UNLIKELY(slot->packed.temp != nullptr)) {
          const bool receive = slot->kind == RequestKind::Recv;
          const std::size_t received = receive && request->status() != Status::Canceled
                                           ? std::min(request->info().length, slot->capacity)
                                           : 0;
          complete_transfer(slot->packed, receive, received);
        }
        g_state->worker->release(request);
        slot->engine = nullptr;
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
      if (TERN_UNLIKELY(send_error != MPI_SUCCESS) && error == MPI_SUCCESS) error = send_error;
      if (slot->persistent) {
        slot->active = false;  // the handle stays, ready for MPI_Start
        return error;
      }
      g_state->requests.put(*handle);
      break;
    }
  }
  *handle = MPI_REQUEST_NULL;
  return error;
}

int raise_request(MPI_Request handle, MPI_Comm comm_handle, int error, const char* function) {
  const Comm* comm = find_comm(comm_handle);
  return raise(comm, error, function, "request %d ended with %s", handle,
               error == MPI_ERR_TRUNCATE ? "a truncated message" : "an error");
}

// The first failure among the requests of an array call (Waitall, Testall,
// Waitsome, Testsome): MPI_ERR_IN_STATUS is raised on its communicator.
class ArrayFailure {
 public:
  void note(int error, MPI_Comm comm) noexcept {
    if (TERN_UNLIKELY(error != MPI_SUCCESS) && !failed_) {
      failed_ = true;
      comm_ = comm;
    }
  }
  [[nodiscard]] int raise_if_any(const char* function) const {
    if (TERN_LIKELY(!failed_)) return MPI_SUCCESS;
    return raise(find_comm(comm_), MPI_ERR_IN_STATUS, function, "a request ended with an error (see the statuses)");
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool failed_ = false;
};

// The engine requests an array call ends, given back together: a worker
// that is thread-safe (MPI_THREAD_MULTIPLE) takes its lock once for them
// instead of once each.
class ReleaseBatch {
 public:
  ReleaseBatch() = default;
  ReleaseBatch(const ReleaseBatch&) = delete;
  ReleaseBatch& operator=(const ReleaseBatch&) = delete;
  ~ReleaseBatch() { flush(); }
  void add(engine::Request* request) {
    if (count_ == kCapacity) flush();
    requests_[count_++] = request;
  }
  void flush() {
    if (count_ == 0) return;
    g_state->worker->release(std::span<engine::Request* const>(requests_, count_));
    count_ = 0;
  }

 private:
  static constexpr std::size_t kCapacity = 64;
  engine::Request* requests_[kCapacity];
  std::size_t count_ = 0;
};

// Ends requests[i], done, with its status in statuses[i] (its MPI_ERROR set
// too, as the array calls report).
[[gnu::always_inline]] inline void finish_at(MPI_Request requests[], MPI_Status statuses[], int i,
                                             Lookup kind, RequestSlot* slot, ArrayFailure& failure,
                                             ReleaseBatch& releases) {
  // Without statuses, the common kinds end here in a few steps: sends done
  // at once, and engine requests with no packed data and no persistence
  // (finish() does the same through its general path).
  if (statuses == MPI_STATUSES_IGNORE) {
    if (kind == Lookup::SendDone) {
      requests[i] = MPI_REQUEST_NULL;
      return;
    }
    if (kind == Lookup::Slot && slot->engine != nullptr && !slot->persistent && slot->packed.temp == nullptr &&
        slot->companion == nullptr) {
      engine::Request* request = slot->engine;
      failure.note(error_class_of(request->status()), slot->comm);
      releases.add(request);
      slot->engine = nullptr;
      g_state->requests.put(requests[i]);
      requests[i] = MPI_REQUEST_NULL;
      return;
    }
  }
  const MPI_Comm comm = slot != nullptr ? slot->comm : MPI_COMM_NULL;
  MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
  const int error = finish(&requests[i], kind, slot, status);
  failure.note(error, comm);
  if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error;
}

// Finishes `count` done requests.
int finish_all(int count, MPI_Request requests[], MPI_Status statuses[], const char* function) {
  ArrayFailure failure;
  ReleaseBatch releases;
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    finish_at(requests, statuses, i, kind, slot, failure, releases);
  }
  return failure.raise_if_any(function);
}

// Active: a request Waitany/Testany/... may complete (not null, not an
// inactive persistent request).
inline bool is_active(Lookup kind) { return kind == Lookup::SendDone || kind == Lookup::ProcNull || kind == Lookup::Slot; }
inline bool is_done(Lookup kind, const RequestSlot* slot) { return kind != Lookup::Slot || slot_done(slot); }

// Checks an array argument of the any/some calls; counts the active requests.
int check_array(const char* function, int count, const MPI_Request requests[], int& active) {
  active = 0;
  if (TERN_UNLIKELY(count < 0)) return raise(nullptr, MPI_ERR_COUNT, function, "invalid count %d", count);
  if (TERN_UNLIKELY(requests == nullptr && count != 0)) {
    return raise(nullptr, MPI_ERR_REQUEST, function, "null request array");
  }
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    if (TERN_UNLIKELY(kind == Lookup::Invalid)) {
      return raise(nullptr, MPI_ERR_REQUEST, function, "invalid request %d at index %d", requests[i], i);
    }
    active += is_active(kind) ? 1 : 0;
  }
  return MPI_SUCCESS;
}

// Finishes the done active requests among `count`, their indices into
// `indices`; MPI_ERR_IN_STATUS when one ended with an error.
int finish_some(const char* function, int count, MPI_Request requests[], int* outcount, int indices[],
                MPI_Status statuses[]) {
  int done = 0;
  ArrayFailure failure;
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    if (!is_active(kind) || !is_done(kind, slot)) continue;
    const MPI_Comm comm = slot != nullptr ? slot->comm : MPI_COMM_NULL;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[done];
    const int error = finish(&requests[i], kind, slot, status);
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error;
    failure.note(error, comm);
    indices[done++] = i;
  }
  *outcount = done;
  return failure.raise_if_any(function);
}

// The first done active request, -1 when none.
int first_done(int count, const MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    if (is_active(kind) && is_done(kind, slot)) return i;
  }
  return -1;
}

// Finishes requests[index] for Waitany/Testany.
int finish_one(const char* function, MPI_Request requests[], int index, MPI_Status* status) {
  RequestSlot* slot = nullptr;
  const Lookup kind = look_up(requests[index], slot);
  const MPI_Request handle = requests[index];
  const MPI_Comm comm = slot != nullptr ? slot->comm : MPI_COMM_NULL;
  const int error = finish(&requests[index], kind, slot, status);
  if (TERN_UNLIKELY(error != MPI_SUCCESS)) return raise_request(handle, comm, error, function);
  return MPI_SUCCESS;
}

}  // namespace

void finalize_packed_requests() { reap_orphans(true); }

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
  if (kind == Lookup::Slot && (slot->engine != nullptr || slot->companion != nullptr || slot->schedule != nullptr ||
                               slot->partitioned != nullptr || slot->generalized != nullptr)) {
    progress_until([slot] { return slot_done(slot); });
  }
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
    progress_for_test();
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
  // One pass that waits for each request and ends it: requests complete
  // roughly in order, and a second pass over the array cost a lookup per
  // request again (a window of small receives spends most of its time here).
  ArrayFailure failure;
  ReleaseBatch releases;
  for (int i = 0; i < count; ++i) {
    RequestSlot* slot = nullptr;
    const Lookup kind = look_up(requests[i], slot);
    if (kind == Lookup::Slot && !slot_done(slot)) progress_until([slot] { return slot_done(slot); });
    finish_at(requests, statuses, i, kind, slot, failure, releases);
  }
  return failure.raise_if_any(kFunction);
}

int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  constexpr const char* kFunction = "MPI_Testall";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(count < 0)) return raise(nullptr, MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  if (TERN_UNLIKELY((requests == nullptr && count != 0) || flag == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null request array or flag");
  }
  progress_for_test();
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
  if (TERN_UNLIKELY(kind == Lookup::Slot && slot->partitioned != nullptr)) {
    // Its partitions may never be made ready: it cannot end by itself.
    return raise(find_comm(slot->comm), MPI_ERR_REQUEST, kFunction,
                 "partitioned request %d is active: complete it before freeing it", *request);
  }
  if (TERN_UNLIKELY(kind == Lookup::Slot && slot->generalized != nullptr)) return generalized_free(request, *slot);
  if (kind == Lookup::Slot || kind == Lookup::Inactive) {
    if (TERN_UNLIKELY(slot->companion != nullptr || slot->companion_temp != nullptr)) {
      // The send half of MPI_Isendrecv ends in the background too.
      std::lock_guard<std::mutex> lock(g_orphans_mutex);
      g_orphans.push_back(Orphan{slot->companion, PackedTransfer{slot->companion_temp, nullptr, nullptr, 0}, false, 0});
      slot->companion = nullptr;
      slot->companion_temp = nullptr;
    }
    if (TERN_UNLIKELY(slot->packed.temp != nullptr)) {
      // A packed transfer's buffer must outlive the operation (and a
      // receive still unpacks): let it finish in the background.
      adopt_orphan(slot);
    } else if (slot->engine != nullptr) {
      // The engine recycles its request once the operation ends.
      g_state->worker->release(slot->engine);
    }
    g_state->requests.put(*request);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Waitany";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(index == nullptr)) return raise(nullptr, MPI_ERR_ARG, kFunction, "null index argument");
  int active = 0;
  if (int error = check_array(kFunction, count, requests, active); TERN_UNLIKELY(error != MPI_SUCCESS)) return error;
  if (active == 0) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int found = -1;
  progress_until([&] { return (found = first_done(count, requests)) >= 0; });
  *index = found;
  return finish_one(kFunction, requests, found, status);
}

int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Testany";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(index == nullptr || flag == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null index or flag argument");
  }
  int active = 0;
  if (int error = check_array(kFunction, count, requests, active); TERN_UNLIKELY(error != MPI_SUCCESS)) return error;
  if (active == 0) {
    *flag = 1;
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int found = first_done(count, requests);
  if (found < 0) {
    progress_for_test();
    found = first_done(count, requests);
  }
  if (found < 0) {
    *flag = 0;
    *index = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *flag = 1;
  *index = found;
  return finish_one(kFunction, requests, found, status);
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  constexpr const char* kFunction = "MPI_Waitsome";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(outcount == nullptr || (indices == nullptr && incount > 0))) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null outcount or indices argument");
  }
  int active = 0;
  if (int error = check_array(kFunction, incount, requests, active); TERN_UNLIKELY(error != MPI_SUCCESS)) {
    return error;
  }
  if (active == 0) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  progress_until([&] { return first_done(incount, requests) >= 0; });
  return finish_some(kFunction, incount, requests, outcount, indices, statuses);
}

int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  constexpr const char* kFunction = "MPI_Testsome";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(outcount == nullptr || (indices == nullptr && incount > 0))) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null outcount or indices argument");
  }
  int active = 0;
  if (int error = check_array(kFunction, incount, requests, active); TERN_UNLIKELY(error != MPI_SUCCESS)) {
    return error;
  }
  if (active == 0) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (first_done(incount, requests) < 0) progress_for_test();
  return finish_some(kFunction, incount, requests, outcount, indices, statuses);
}

int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Request_get_status";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(flag == nullptr)) return raise(nullptr, MPI_ERR_ARG, kFunction, "null flag argument");
  RequestSlot* slot = nullptr;
  const Lookup kind = look_up(request, slot);
  if (TERN_UNLIKELY(kind == Lookup::Invalid)) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid request %d", request);
  }
  *flag = 1;
  if (kind != Lookup::Slot) {
    empty_status(status, kind == Lookup::ProcNull ? MPI_PROC_NULL : MPI_ANY_SOURCE);
    return MPI_SUCCESS;
  }
  if (!slot_done(slot)) {
    progress_for_test();
    if (!slot_done(slot)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  // The status of the done request, which stays as it is.
  int error = slot->error;
  if (slot->partitioned != nullptr) {
    error = slot->partitioned->peek(status);
  } else if (slot->generalized != nullptr) {
    error = generalized_query(*slot, status);
  } else if (slot->schedule != nullptr) {
    error = slot->schedule->error_class();
    empty_status(status);
  } else if (slot->engine != nullptr) {
    const engine::Request* engine_request = slot->engine;
    if (slot->kind == RequestKind::Recv) {
      error = fill_recv_status(status, engine_request->info(), slot->capacity, engine_request->status());
    } else {
      error = error_class_of(engine_request->status());
      empty_status(status);
      if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error;
    }
  } else if (status != MPI_STATUS_IGNORE) {
    if (slot->kind == RequestKind::Recv) {
      *status = slot->status;
    } else {
      empty_status(status);
    }
  }
  if (TERN_UNLIKELY(error != MPI_SUCCESS)) return raise_request(request, slot->comm, error, kFunction);
  return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request* request) {
  constexpr const char* kFunction = "MPI_Cancel";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(request == nullptr)) return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request argument");
  RequestSlot* slot = nullptr;
  const Lookup kind = look_up(*request, slot);
  if (TERN_UNLIKELY(kind == Lookup::Invalid || kind == Lookup::Null || kind == Lookup::Inactive)) {
    return raise(nullptr, MPI_ERR_REQUEST, kFunction, "invalid or inactive request %d", *request);
  }
  if (TERN_UNLIKELY(kind == Lookup::Slot && slot->generalized != nullptr)) return generalized_cancel(*slot);
  // Receives not yet matched end canceled. So do sends no receive has
  // matched yet: one still queued at once, one that waits for its receiver
  // (rendezvous, synchronous) once the receiver has dropped it (the engine
  // asks it; MPI_Wait returns either way). A matched receive or send, and a
  // send that needs nothing more from its receiver (eager, all out; a
  // buffered send, complete at once), complete normally, and
  // MPI_Test_cancelled then says false.
  if (kind == Lookup::Slot && (slot->kind == RequestKind::Recv || slot->kind == RequestKind::Send) &&
      slot->engine != nullptr && !engine_done(slot->engine)) {
    (void)g_state->worker->cancel(slot->engine);
  }
  return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  constexpr const char* kFunction = "MPI_Test_cancelled";
  if (TERN_UNLIKELY(status == nullptr || flag == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null status or flag argument");
  }
  *flag = status->tern_cancelled != 0;
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Request_c2f(MPI_Request request) { return request; }
MPI_Request PMPI_Request_f2c(MPI_Fint request) { return request; }

#pragma weak MPI_Wait = PMPI_Wait
#pragma weak MPI_Test = PMPI_Test
#pragma weak MPI_Waitall = PMPI_Waitall
#pragma weak MPI_Testall = PMPI_Testall
#pragma weak MPI_Request_free = PMPI_Request_free
#pragma weak MPI_Waitany = PMPI_Waitany
#pragma weak MPI_Testany = PMPI_Testany
#pragma weak MPI_Waitsome = PMPI_Waitsome
#pragma weak MPI_Testsome = PMPI_Testsome
#pragma weak MPI_Request_get_status = PMPI_Request_get_status
#pragma weak MPI_Cancel = PMPI_Cancel
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c

}  // extern "C"
