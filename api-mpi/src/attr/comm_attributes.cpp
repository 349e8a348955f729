// Communicator attributes: the predefined keys (MPI_TAG_UB ...), keyvals and
// their user attributes, MPI-1's forms of the same calls, and the predefined
// callbacks. MPI_Comm_dup copies and MPI_Comm_free deletes (comm/comm.cpp);
// MPI_Finalize deletes MPI_COMM_SELF's and MPI_COMM_WORLD's (env/env.cpp).
#include "attr/attributes.hpp"
#include "errors/user_errors.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// MPI hands out pointers to these for the predefined keys.
int attr_tag_ub = kTagUb;
int attr_host = MPI_PROC_NULL;
int attr_io = MPI_ANY_SOURCE;
int attr_wtime_is_global = 0;
int attr_universe_size = 0;
int attr_appnum = 0;

// The predefined key's value; null when `keyval` is not one.
int* predefined_value(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB: return &attr_tag_ub;
    case MPI_HOST: return &attr_host;
    case MPI_IO: return &attr_io;
    case MPI_WTIME_IS_GLOBAL: return &attr_wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      attr_universe_size = static_cast<int>(g_state->job->size());
      return &attr_universe_size;
    case MPI_APPNUM: return &attr_appnum;
    // MPI_Add_error_class/code move it (errors/user_errors.cpp).
    case MPI_LASTUSEDCODE: return last_used_code();
    default: return nullptr;
  }
}

int keyval_error(const Comm* comm, const char* function, int err, int keyval) {
  return raise_attr_error(comm, function, err, "communicator", keyval);
}

}  // namespace

int raise_attr_error(const Comm* comm, const char* function, int err, const char* kind, int keyval) {
  if (err == MPI_ERR_KEYVAL) return raise(comm, err, function, "invalid %s keyval %d", kind, keyval);
  if (err == MPI_ERR_NO_MEM) return raise(comm, err, function, "out of keyvals");
  return raise(comm, err, function, "an attribute callback returned error %d", err);
}
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
                     void* attribute_val_out, int* flag) {
  return MPI_COMM_NULL_COPY_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in, void* attribute_val_out,
               int* flag) {
  return MPI_COMM_DUP_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state) {
  return MPI_COMM_NULL_DELETE_FN(comm, keyval, attribute_val, extra_state);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                            void* extra_state) {
  constexpr const char* kFunction = "MPI_Comm_create_keyval";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (comm_keyval == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null comm_keyval argument");
  const int err = keyval_create(AttrObject::Comm, comm_copy_attr_fn, comm_delete_attr_fn, extra_state, comm_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(nullptr, kFunction, err, 0);
}

int PMPI_Comm_free_keyval(int* comm_keyval) {
  constexpr const char* kFunction = "MPI_Comm_free_keyval";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (comm_keyval == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null comm_keyval argument");
  const int keyval = *comm_keyval;
  const int err = keyval_free(AttrObject::Comm, comm_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(nullptr, kFunction, err, keyval);
}

int PMPI_Comm_set_attr(MPI_Comm handle, int comm_keyval, void* attribute_val) {
  constexpr const char* kFunction = "MPI_Comm_set_attr";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  const int err = attr_set(AttrObject::Comm, handle, comm->attributes, comm_keyval, attribute_val);
  return err == MPI_SUCCESS ? err : keyval_error(comm, kFunction, err, comm_keyval);
}

int PMPI_Comm_get_attr(MPI_Comm handle, int comm_keyval, void* attribute_val, int* flag) {
  constexpr const char* kFunction = "MPI_Comm_get_attr";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (attribute_val == nullptr || flag == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null argument");
  if (int* value = predefined_value(comm_keyval); value != nullptr) {
    *static_cast<int**>(attribute_val) = value;
    *flag = 1;
    return MPI_SUCCESS;
  }
  void* value = nullptr;
  bool found = false;
  if (int err = attr_get(AttrObject::Comm, comm->attributes, comm_keyval, &value, &found); err != MPI_SUCCESS) {
    return keyval_error(comm, kFunction, err, comm_keyval);
  }
  if (found) *static_cast<void**>(attribute_val) = value;
  *flag = found ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm handle, int comm_keyval) {
  constexpr const char* kFunction = "MPI_Comm_delete_attr";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  const int err = attr_delete(AttrObject::Comm, handle, comm->attributes, comm_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(comm, kFunction, err, comm_keyval);
}

int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                       void* extra_state) {
  return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int PMPI_Keyval_free(int* keyval) { return PMPI_Comm_free_keyval(keyval); }

int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
#pragma weak MPI_Keyval_free = PMPI_Keyval_free
#pragma weak MPI_Attr_put = PMPI_Attr_put
#pragma weak MPI_Attr_get = PMPI_Attr_get
#pragma weak MPI_Attr_delete = PMPI_Attr_delete

}  // extern "C"
