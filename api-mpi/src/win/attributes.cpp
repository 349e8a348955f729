// Attribute caching on windows: the store of attr/attributes.hpp with
// windows' keyvals. MPI_Win_get_attr (properties.cpp) serves the
// predefined keys and hands user keys to the store; MPI_Win_free deletes.
#include "attr/attributes.hpp"
#include "win/window.hpp"

using namespace tern;
using namespace tern::mpi;

namespace {

int keyval_error(const Window* win, const char* function, int err, int keyval) {
  if (win != nullptr && win->errhandler == MPI_ERRORS_RETURN) return err;
  if (win != nullptr && win->errhandler != MPI_ERRORS_ARE_FATAL && win->errhandler != MPI_ERRORS_ABORT) {
    return raise_win(win, err, function, "window keyval %d: error %d", keyval, err);
  }
  return raise_attr_error(nullptr, function, err, "window", keyval);
}

}  // namespace

extern "C" {

// Windows are never copied, but the standard names these callbacks too.
int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void* extra_state, void* attribute_val_in,
                         void* attribute_val_out, int* flag) {
  return MPI_COMM_NULL_COPY_FN(oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void* extra_state, void* attribute_val_in,
                   void* attribute_val_out, int* flag) {
  return MPI_COMM_DUP_FN(oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void* attribute_val, void* extra_state) {
  return MPI_COMM_NULL_DELETE_FN(win, win_keyval, attribute_val, extra_state);
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                           MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state) {
  constexpr const char* kFunction = "MPI_Win_create_keyval";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (win_keyval == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null win_keyval argument");
  const int err = keyval_create(AttrObject::Win, win_copy_attr_fn, win_delete_attr_fn, extra_state, win_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(nullptr, kFunction, err, 0);
}

int PMPI_Win_free_keyval(int* win_keyval) {
  constexpr const char* kFunction = "MPI_Win_free_keyval";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (win_keyval == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null win_keyval argument");
  const int keyval = *win_keyval;
  const int err = keyval_free(AttrObject::Win, win_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(nullptr, kFunction, err, keyval);
}

int PMPI_Win_set_attr(MPI_Win handle, int win_keyval, void* attribute_val) {
  constexpr const char* kFunction = "MPI_Win_set_attr";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  const int err = attr_set(AttrObject::Win, handle, win->attributes, win_keyval, attribute_val);
  return err == MPI_SUCCESS ? err : keyval_error(win, kFunction, err, win_keyval);
}

int PMPI_Win_delete_attr(MPI_Win handle, int win_keyval) {
  constexpr const char* kFunction = "MPI_Win_delete_attr";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  const int err = attr_delete(AttrObject::Win, handle, win->attributes, win_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(win, kFunction, err, win_keyval);
}

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr

}  // extern "C"
