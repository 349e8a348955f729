// Datatype attributes: keyvals, their attributes on predefined and derived
// types, and the predefined callbacks. MPI_Type_dup copies and MPI_Type_free
// deletes (datatype/derived.cpp).
#include "attr/attributes.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

int keyval_error(const char* function, int err, int keyval) {
  return raise_attr_error(nullptr, function, err, "datatype", keyval);
}

// The checks every call on a type's attributes begins with.
int find_type_checked(const char* function, MPI_Datatype datatype, std::shared_ptr<DerivedType>& type) {
  if (g_state == nullptr) return not_initialized(function);
  type = describe_type_mutable(datatype);
  if (type == nullptr) return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// The communicator callbacks serve: every handle is an int.
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state, void* attribute_val_in,
                          void* attribute_val_out, int* flag) {
  return MPI_COMM_NULL_COPY_FN(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state, void* attribute_val_in,
                    void* attribute_val_out, int* flag) {
  return MPI_COMM_DUP_FN(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void* attribute_val, void* extra_state) {
  return MPI_COMM_NULL_DELETE_FN(datatype, type_keyval, attribute_val, extra_state);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                            MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                            void* extra_state) {
  constexpr const char* kFunction = "MPI_Type_create_keyval";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (type_keyval == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null type_keyval argument");
  const int err =
      keyval_create(AttrObject::Datatype, type_copy_attr_fn, type_delete_attr_fn, extra_state, type_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(kFunction, err, 0);
}

int PMPI_Type_free_keyval(int* type_keyval) {
  constexpr const char* kFunction = "MPI_Type_free_keyval";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (type_keyval == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null type_keyval argument");
  const int keyval = *type_keyval;
  const int err = keyval_free(AttrObject::Datatype, type_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(kFunction, err, keyval);
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  constexpr const char* kFunction = "MPI_Type_set_attr";
  std::shared_ptr<DerivedType> type;
  if (int err = find_type_checked(kFunction, datatype, type); err != MPI_SUCCESS) return err;
  const int err = attr_set(AttrObject::Datatype, datatype, type->attributes, type_keyval, attribute_val);
  return err == MPI_SUCCESS ? err : keyval_error(kFunction, err, type_keyval);
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  constexpr const char* kFunction = "MPI_Type_get_attr";
  std::shared_ptr<DerivedType> type;
  if (int err = find_type_checked(kFunction, datatype, type); err != MPI_SUCCESS) return err;
  if (attribute_val == nullptr || flag == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null argument");
  void* value = nullptr;
  bool found = false;
  if (int err = attr_get(AttrObject::Datatype, type->attributes, type_keyval, &value, &found);
      err != MPI_SUCCESS) {
    return keyval_error(kFunction, err, type_keyval);
  }
  if (found) *static_cast<void**>(attribute_val) = value;
  *flag = found ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  constexpr const char* kFunction = "MPI_Type_delete_attr";
  std::shared_ptr<DerivedType> type;
  if (int err = find_type_checked(kFunction, datatype, type); err != MPI_SUCCESS) return err;
  const int err = attr_delete(AttrObject::Datatype, datatype, type->attributes, type_keyval);
  return err == MPI_SUCCESS ? err : keyval_error(kFunction, err, type_keyval);
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr

}  // extern "C"
