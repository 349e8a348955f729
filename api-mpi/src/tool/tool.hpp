// The MPI tool information interface (MPI_T): what its calls share. The
// interface lives beside MPI proper: it may be used before MPI_Init and after
// MPI_Finalize, its calls return their error classes (no error handler is
// involved), and every call runs under one lock, so that tools may call it
// from any thread.
#pragma once

#include <cstdint>
#include <mutex>

#include "mpi.h"

namespace tern::engine {
class Worker;
}

namespace tern::mpi::tool {

// One MPI_T call: holds the interface's lock for its duration and knows
// whether the interface is initialized.
class Call {
 public:
  explicit Call(const char* function);
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // MPI_SUCCESS between MPI_T_init_thread and the matching MPI_T_finalize,
  // MPI_T_ERR_NOT_INITIALIZED (logged) otherwise.
  [[nodiscard]] int check_initialized();
  // Returns `error_class` after logging, at debug level, the call and why
  // (tools see only the class; TERN_LOG_LEVEL=debug tells a person more).
  int fail(int error_class, const char* format, ...) __attribute__((format(printf, 3, 4)));

 private:
  std::lock_guard<std::mutex> lock_;
  const char* function_;
};

// The standard's rule for string outputs: `*length` in is the room in
// `buffer` (0: buffer may be null and is left alone); the text is cut to
// fit, always terminated. `*length` out: the text's length with its null
// when nothing was written, else the bytes written with the null. A null
// `length` returns nothing. MPI_T_ERR_INVALID for a negative room or a null
// buffer with room.
[[nodiscard]] int copy_string(Call& call, const char* what, const char* text, char* buffer, int* length);

// A new handle value (sessions, cvar and pvar handles share the sequence,
// so a handle of one kind is never taken for another); 0 when exhausted.
[[nodiscard]] int next_handle();

// The performance variables' categories (categories.cpp groups them).
[[nodiscard]] int pvar_count();
[[nodiscard]] const char* pvar_category(int pvar_index);

// Called under the lock when the last MPI_T_finalize ends the interface:
// every handle and session becomes invalid.
void drop_cvar_handles();
void drop_pvar_sessions();

// MPI_Finalize hands over the worker's final counts before the worker goes,
// so that performance variables keep them afterwards.
void retire_worker(engine::Worker& worker);

}  // namespace tern::mpi::tool
