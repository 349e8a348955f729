// Error classes, their texts, error handlers, and the one translation of
// engine statuses into MPI error classes.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "errors/user_errors.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

const char* class_text(int error_class) noexcept {
  switch (error_class) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduce operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid communicator topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid topology dimension";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: known error not in this list";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM: out of memory";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL: invalid key value";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported by Tern";
    case MPI_ERR_ERRHANDLER: return "MPI_ERR_ERRHANDLER: invalid error handler";
    case MPI_ERR_INFO: return "MPI_ERR_INFO: invalid info object";
    case MPI_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY: info key too long or empty";
    case MPI_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE: info value too long";
    case MPI_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY: no such key in the info object";
    case MPI_ERR_FILE: return "MPI_ERR_FILE: invalid file handle";
    case MPI_ERR_NOT_SAME: return "MPI_ERR_NOT_SAME: arguments differ between the processes of a collective call";
    case MPI_ERR_AMODE: return "MPI_ERR_AMODE: invalid access mode";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation";
    case MPI_ERR_NO_SUCH_FILE: return "MPI_ERR_NO_SUCH_FILE: no such file";
    case MPI_ERR_FILE_EXISTS: return "MPI_ERR_FILE_EXISTS: file exists";
    case MPI_ERR_BAD_FILE: return "MPI_ERR_BAD_FILE: invalid file name";
    case MPI_ERR_ACCESS: return "MPI_ERR_ACCESS: permission denied";
    case MPI_ERR_NO_SPACE: return "MPI_ERR_NO_SPACE: no space left on the device";
    case MPI_ERR_QUOTA: return "MPI_ERR_QUOTA: quota exceeded";
    case MPI_ERR_READ_ONLY: return "MPI_ERR_READ_ONLY: read-only file or file system";
    case MPI_ERR_FILE_IN_USE: return "MPI_ERR_FILE_IN_USE: file in use";
    case MPI_ERR_DUP_DATAREP: return "MPI_ERR_DUP_DATAREP: data representation already defined";
    case MPI_ERR_CONVERSION: return "MPI_ERR_CONVERSION: data conversion failed";
    case MPI_ERR_IO: return "MPI_ERR_IO: I/O error";
    case MPI_ERR_WIN: return "MPI_ERR_WIN: invalid window";
    case MPI_ERR_BASE: return "MPI_ERR_BASE: invalid base address";
    case MPI_ERR_SIZE: return "MPI_ERR_SIZE: invalid size";
    case MPI_ERR_DISP: return "MPI_ERR_DISP: invalid displacement";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE: invalid lock type";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT: invalid assertion";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC: wrong synchronization of one-sided calls";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE: target memory outside the window";
    case MPI_ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH: memory cannot be attached";
    case MPI_ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED: memory cannot be shared";
    case MPI_ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR: wrong window flavor for the call";
    case MPI_ERR_VALUE_TOO_LARGE:
      return "MPI_ERR_VALUE_TOO_LARGE: a value is too large to store in the given parameter";
    case MPI_ERR_SPAWN: return "MPI_ERR_SPAWN: processes cannot be spawned";
    case MPI_ERR_PORT: return "MPI_ERR_PORT: invalid port name";
    case MPI_ERR_SERVICE: return "MPI_ERR_SERVICE: invalid service name";
    case MPI_ERR_NAME: return "MPI_ERR_NAME: service name not published";
    case MPI_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY: out of memory in the tool interface";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialized";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialized";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX: invalid tool variable, category or item index";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM: invalid enumeration item index";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE: invalid tool handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES: no more tool handles";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS: no more performance variable sessions";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION: invalid performance variable session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER: the control variable cannot be set";
    case MPI_T_ERR_PVAR_NO_STARTSTOP:
      return "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_ATOMIC:
      return "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and reset atomically";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME: no tool variable or category has this name";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID: invalid use of the tool interface";
    case MPI_T_ERR_NOT_SUPPORTED: return "MPI_T_ERR_NOT_SUPPORTED: not supported by the tool interface";
    default: return nullptr;
  }
}

[[noreturn]] void abort_with(const char* message) {
  const bool launched = g_state != nullptr && g_state->job;
  // A PMIx launcher prints the abort message itself; a singleton has nobody to.
  if (!launched || std::strcmp(g_state->job->bootstrap().name(), "singleton") == 0) {
    std::fprintf(stderr, "%s\n", message);
    std::fflush(stderr);
  }
  if (launched) g_state->job->abort(1, message);
  std::_Exit(1);
}

// The handle user handlers receive: the table holds Comm objects, not their
// handles, and only an error on the way to a user handler needs the search.
MPI_Comm handle_of(const Comm* comm) {
  StateGuard guard(*g_state);
  for (int slot = 1; slot < kMaxComms; ++slot) {
    if (g_state->comms[slot].get() == comm) return CommHandle::make(slot, g_state->comm_generations[slot]);
  }
  return MPI_COMM_NULL;
}

}  // namespace

int error_class_of_failure(Status status) noexcept {
  switch (status) {
    case Status::Ok:
    case Status::Canceled: return MPI_SUCCESS;
    case Status::Truncated: return MPI_ERR_TRUNCATE;
    case Status::MessageTooLong: return MPI_ERR_COUNT;
    case Status::NoMemory: return MPI_ERR_NO_MEM;
    case Status::InvalidParam: return MPI_ERR_ARG;
    case Status::Unsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
    case Status::InProgress: return MPI_ERR_PENDING;
    case Status::Unreachable:
    case Status::IoError:
    case Status::TimedOut:
    case Status::NotFound:
    case Status::WouldBlock:
    case Status::Busy: return MPI_ERR_OTHER;
  }
  return MPI_ERR_INTERN;
}

int raise(const Comm* comm, int error_class, const char* function, const char* format, ...) {
  if (comm == nullptr && g_state != nullptr) comm = find_comm(MPI_COMM_WORLD);
  const MPI_Errhandler handler = comm != nullptr ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (call_user_errhandler(handler, handle_of(comm), error_class)) return error_class;

  char detail[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  char message[512];
  const unsigned rank = g_state != nullptr && g_state->job ? g_state->job->rank() : 0;
  std::snprintf(message, sizeof(message), "%s: %s on rank %u", function, detail, rank);
  abort_with(message);
}

int not_initialized(const char* function) {
  const bool after = g_finalized.load(std::memory_order_acquire);
  // No communicator (so no handler but MPI_ERRORS_ARE_FATAL) exists before
  // MPI_Init or after MPI_Finalize: the error ends the process.
  std::fflush(stdout);
  std::fprintf(stderr, "%s: called %s\n", function, after ? "after MPI_Finalize" : "before MPI_Init");
  std::fflush(stderr);
  std::_Exit(1);
}

int unsupported(const Comm* comm, const char* function, const char* what) {
  std::fprintf(stderr, "%s: %s is not supported by Tern yet\n", function, what);
  return raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, function, "%s is not supported by Tern yet", what);
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (std::string user_text; user_error_code(errorcode, nullptr, &user_text)) {
    if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", user_text.c_str());
    *resultlen = static_cast<int>(std::strlen(string));
    return MPI_SUCCESS;
  }
  const char* text = class_text(errorcode);
  if (text == nullptr) text = "unknown error code";
  if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
  *resultlen = static_cast<int>(std::strlen(string));
  return class_text(errorcode) == nullptr ? MPI_ERR_ARG : MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (errorclass != nullptr && user_error_code(errorcode, errorclass, nullptr)) return MPI_SUCCESS;
  if (errorclass == nullptr || class_text(errorcode) == nullptr) return MPI_ERR_ARG;
  *errorclass = errorcode;
  return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm handle, MPI_Errhandler errhandler) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_set_errhandler");
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, "MPI_Comm_set_errhandler", "invalid communicator %d", handle);
  if (!errhandler_accepts(errhandler, ErrhandlerKind::Comm)) {
    return raise(comm, MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler", "invalid error handler %d", errhandler);
  }
  comm->errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm handle, MPI_Errhandler* errhandler) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_get_errhandler");
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, "MPI_Comm_get_errhandler", "invalid communicator %d", handle);
  if (errhandler == nullptr) return raise(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler", "null errhandler argument");
  *errhandler = comm->errhandler;
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

// Predefined handlers are never freed; freeing one just forgets the handle.
// A user one loses the caller's reference (user_errors.cpp).
int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  if (errhandler == nullptr) return MPI_ERR_ARG;
  if (!errhandler_release(*errhandler)) {
    return raise(nullptr, MPI_ERR_ERRHANDLER, "MPI_Errhandler_free", "invalid error handler %d", *errhandler);
  }
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
#pragma weak MPI_Error_class = PMPI_Error_class
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free

}  // extern "C"
