// User error handlers (MPI_*_create_errhandler) and user error classes and
// codes (MPI_Add_error_*): the tables behind them, which the raise paths of
// communicators (errors.cpp), windows (win/window.cpp) and files
// (io/file.cpp) consult.
#pragma once

#include <cstdint>
#include <string>

#include "mpi.h"

namespace tern::mpi {

// Which objects a handler serves: each kind's set call refuses the others'.
enum class ErrhandlerKind : uint8_t { Comm, Win, File, Session };

// Whether `handler` may be set on an object of `kind`: a predefined handler,
// or a user one of that kind the program still holds a reference to.
[[nodiscard]] bool errhandler_accepts(MPI_Errhandler handler, ErrhandlerKind kind) noexcept;
// MPI_*_get_errhandler hands out a reference the program frees.
void errhandler_retain(MPI_Errhandler handler) noexcept;
// MPI_Errhandler_free: false when `handler` names no handler the program holds.
[[nodiscard]] bool errhandler_release(MPI_Errhandler handler) noexcept;
// Runs `handler`'s function on (object, code) when it is a user handler and
// says whether it was one; predefined handlers are the caller's to apply.
bool call_user_errhandler(MPI_Errhandler handler, int object, int code);

// A user error code or class: its class and string. False for any other value.
[[nodiscard]] bool user_error_code(int code, int* error_class, std::string* text);
// The value MPI_LASTUSEDCODE's attribute points at: it follows MPI_Add_error_*.
[[nodiscard]] int* last_used_code() noexcept;

}  // namespace tern::mpi
