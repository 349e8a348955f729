// User error handlers and user error classes and codes. Both tables only
// grow: a handler's slot is never reused, so an object whose handler the
// program freed still calls the right function, and codes are numbers the
// program may have stored anywhere.
#include "errors/user_errors.hpp"

#include <cstring>
#include <mutex>
#include <vector>

#include "state.hpp"

namespace tern::mpi {
namespace {

using AnyErrhandlerFn = void(int*, int*, ...);

// Above MPI_ERRORS_ABORT with room for more predefined handlers.
constexpr MPI_Errhandler kFirstUserErrhandler = 16;
// Enough for any program that frees what it makes; a bound keeps a leaking
// loop from growing the table without end.
constexpr std::size_t kMaxUserErrhandlers = 1 << 16;
constexpr std::size_t kMaxUserCodes = 1 << 16;

struct UserErrhandler {
  ErrhandlerKind kind;
  AnyErrhandlerFn* function;
  int references;  // the program's: MPI_*_create_errhandler's and each get's
};

struct UserCode {
  int error_class;  // itself for a class
  std::string text;
};

struct Tables {
  std::mutex mutex;
  std::vector<UserErrhandler> handlers;  // by handle - kFirstUserErrhandler
  std::vector<UserCode> codes;           // by code - MPI_ERR_LASTCODE - 1
  int last_used = MPI_ERR_LASTCODE;
};

Tables& tables() {
  static auto* t = new Tables;  // never destroyed: handlers may run during static destruction
  return *t;
}

UserErrhandler* find_handler(Tables& t, MPI_Errhandler handle) noexcept {
  const long index = static_cast<long>(handle) - kFirstUserErrhandler;
  if (index < 0 || static_cast<std::size_t>(index) >= t.handlers.size()) return nullptr;
  return &t.handlers[static_cast<std::size_t>(index)];
}

UserCode* find_code(Tables& t, int code) noexcept {
  const long index = static_cast<long>(code) - MPI_ERR_LASTCODE - 1;
  if (index < 0 || static_cast<std::size_t>(index) >= t.codes.size()) return nullptr;
  return &t.codes[static_cast<std::size_t>(index)];
}

bool is_predefined(MPI_Errhandler handler) noexcept {
  return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN || handler == MPI_ERRORS_ABORT;
}

int create_errhandler(const char* function, ErrhandlerKind kind, AnyErrhandlerFn* fn, MPI_Errhandler* errhandler) {
  if (g_state == nullptr) return not_initialized(function);
  if (fn == nullptr || errhandler == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null argument");
  Tables& t = tables();
  std::unique_lock<std::mutex> lock(t.mutex);
  if (t.handlers.size() >= kMaxUserErrhandlers) {
    lock.unlock();  // the world's handler may be a user one that calls in here
    return raise(nullptr, MPI_ERR_NO_MEM, function, "out of error handlers (%zu)", kMaxUserErrhandlers);
  }
  t.handlers.push_back(UserErrhandler{kind, fn, 1});
  *errhandler = kFirstUserErrhandler + static_cast<MPI_Errhandler>(t.handlers.size() - 1);
  return MPI_SUCCESS;
}

// A class (error_class < 0: the new code is one) or a code of `error_class`.
int add_code(const char* function, int error_class, int* out) {
  if (g_state == nullptr) return not_initialized(function);
  if (out == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null argument");
  Tables& t = tables();
  std::unique_lock<std::mutex> lock(t.mutex);
  if (error_class >= 0) {
    const UserCode* parent = find_code(t, error_class);
    const bool predefined_class = error_class <= MPI_ERR_LASTCODE;
    if (!predefined_class && (parent == nullptr || parent->error_class != error_class)) {
      lock.unlock();
      return raise(nullptr, MPI_ERR_ARG, function, "%d is not an error class", error_class);
    }
  }
  if (t.codes.size() >= kMaxUserCodes) {
    lock.unlock();
    return raise(nullptr, MPI_ERR_NO_MEM, function, "out of error codes (%zu)", kMaxUserCodes);
  }
  const int code = ++t.last_used;
  t.codes.push_back(UserCode{error_class < 0 ? code : error_class, std::string()});
  *out = code;
  return MPI_SUCCESS;
}

}  // namespace

bool errhandler_accepts(MPI_Errhandler handler, ErrhandlerKind kind) noexcept {
  if (is_predefined(handler)) return true;
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  const UserErrhandler* h = find_handler(t, handler);
  return h != nullptr && h->kind == kind && h->references > 0;
}

void errhandler_retain(MPI_Errhandler handler) noexcept {
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (UserErrhandler* h = find_handler(t, handler); h != nullptr) ++h->references;
}

bool errhandler_release(MPI_Errhandler handler) noexcept {
  if (is_predefined(handler)) return true;
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  UserErrhandler* h = find_handler(t, handler);
  if (h == nullptr || h->references == 0) return false;
  --h->references;
  return true;
}

bool call_user_errhandler(MPI_Errhandler handler, int object, int code) {
  AnyErrhandlerFn* function = nullptr;
  {
    Tables& t = tables();
    std::lock_guard<std::mutex> lock(t.mutex);
    const UserErrhandler* h = find_handler(t, handler);
    if (h == nullptr) return false;
    function = h->function;
  }
  // Outside the lock: the function may call MPI, this file's calls included.
  function(&object, &code);
  return true;
}

bool user_error_code(int code, int* error_class, std::string* text) {
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  const UserCode* c = find_code(t, code);
  if (c == nullptr) return false;
  if (error_class != nullptr) *error_class = c->error_class;
  if (text != nullptr) *text = c->text;
  return true;
}

int* last_used_code() noexcept { return &tables().last_used; }

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Comm_create_errhandler", ErrhandlerKind::Comm, reinterpret_cast<AnyErrhandlerFn*>(fn),
                           errhandler);
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Win_create_errhandler", ErrhandlerKind::Win, reinterpret_cast<AnyErrhandlerFn*>(fn),
                           errhandler);
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_File_create_errhandler", ErrhandlerKind::File, reinterpret_cast<AnyErrhandlerFn*>(fn),
                           errhandler);
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Session_create_errhandler", ErrhandlerKind::Session,
                           reinterpret_cast<AnyErrhandlerFn*>(fn), errhandler);
}

int PMPI_Comm_call_errhandler(MPI_Comm handle, int errorcode) {
  constexpr const char* kFunction = "MPI_Comm_call_errhandler";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  (void)raise(comm, errorcode, kFunction, "error %d raised by the program", errorcode);
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) { return errhandler; }

int PMPI_Add_error_class(int* errorclass) { return add_code("MPI_Add_error_class", -1, errorclass); }

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  return add_code("MPI_Add_error_code", errorclass, errorcode);
}

int PMPI_Add_error_string(int errorcode, const char* string) {
  constexpr const char* kFunction = "MPI_Add_error_string";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (string == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null string argument");
  const std::size_t length = std::strlen(string);
  if (length >= MPI_MAX_ERROR_STRING) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "string of %zu characters (at most %d)", length,
                 MPI_MAX_ERROR_STRING - 1);
  }
  Tables& t = tables();
  std::unique_lock<std::mutex> lock(t.mutex);
  UserCode* c = find_code(t, errorcode);
  if (c == nullptr) {
    lock.unlock();
    // The predefined codes keep their strings.
    return raise(nullptr, MPI_ERR_ARG, kFunction, "%d is not a user error code or class", errorcode);
  }
  c->text.assign(string, length);
  return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
#pragma weak MPI_Add_error_class = PMPI_Add_error_class
#pragma weak MPI_Add_error_code = PMPI_Add_error_code
#pragma weak MPI_Add_error_string = PMPI_Add_error_string

}  // extern "C"
