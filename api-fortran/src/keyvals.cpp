// Keyvals made in Fortran (MPI_Comm_create_keyval, MPI_Type_ and MPI_Win_
// ones). The C library calls attribute callbacks with handles and values by
// value, where a Fortran callback takes every argument by reference and
// returns ierror; so a Fortran keyval is a C keyval whose callbacks are the
// trampolines here, its extra_state a Record that holds the Fortran
// procedures and the program's extra_state. The C library says nothing when
// a freed keyval's last attribute goes, so the attributes set (from Fortran)
// and copied through a keyval are counted here: the Record goes once the
// keyval is freed and that count is back to zero. An attribute that C code
// sets on a Fortran keyval is not counted; should the Record have gone
// before it is deleted, its delete callback is not called. MPI-1's
// MPI_KEYVAL_CREATE makes communicator keyvals the same way, with callbacks
// that take default INTEGER values, and MPI_ATTR_PUT/GET move such values.
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "fortran_support.hpp"

namespace {

using tern::fortran::CopyAttrFn;
using tern::fortran::DeleteAttrFn;
using tern::fortran::LegacyCopyFn;
using tern::fortran::LegacyDeleteFn;

enum class Object { Comm, Type, Win };

struct Record {
  CopyAttrFn* copy;
  DeleteAttrFn* erase;
  MPI_Aint extra_state;     // the program's, handed to both procedures by reference
  long attributes = 0;      // set or copied through the keyval, not yet deleted
  bool freed = false;       // MPI_*_free_keyval was called
  // An MPI_KEYVAL_CREATE keyval: these instead, values narrowed to INTEGER.
  LegacyCopyFn* legacy_copy = nullptr;
  LegacyDeleteFn* legacy_erase = nullptr;
  MPI_Fint legacy_extra_state = 0;
};

// The value an INTEGER attribute stands for in C, and back: sign-extended
// to the pointer's width, as MPI_ATTR_PUT stores it.
void* widened(MPI_Fint value) { return reinterpret_cast<void*>(static_cast<MPI_Aint>(value)); }
MPI_Fint narrowed(const void* value) { return static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(value)); }

// The records by object kind and keyval. The lock is not held while a
// Fortran procedure runs: it may set or delete attributes itself.
struct Registry {
  std::mutex mutex;
  std::map<std::pair<Object, int>, std::unique_ptr<Record>> records;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: MPI_Finalize's deletions may come after static destructors
  return *r;
}

// The record of a Fortran keyval, if it is the extra_state the C library passed.
Record* find(Object object, int keyval, const void* extra_state) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.records.find({object, keyval});
  return it != r.records.end() && it->second.get() == extra_state ? it->second.get() : nullptr;
}

// `change` attributes more (or fewer) through `keyval`, and the keyval freed
// if `free`: a freed keyval's record goes with its last attribute.
void count(Object object, int keyval, long change, bool free = false) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.records.find({object, keyval});
  if (it == r.records.end()) return;
  Record& record = *it->second;
  record.attributes += change;
  record.freed = record.freed || free;
  if (record.freed && record.attributes <= 0) r.records.erase(it);
}

template <Object object>
int copy_trampoline(int oldobject, int keyval, void* extra_state, void* attribute_val_in, void* attribute_val_out,
                    int* flag) {
  *flag = 0;
  Record* record = find(object, keyval, extra_state);
  if (record == nullptr) return MPI_SUCCESS;
  MPI_Fint copied = 0;
  MPI_Fint ierror = MPI_SUCCESS;
  void* out_value = nullptr;
  if (record->legacy_copy != nullptr) {
    const MPI_Fint in = narrowed(attribute_val_in);
    MPI_Fint out = 0;
    record->legacy_copy(&oldobject, &keyval, &record->legacy_extra_state, &in, &out, &copied, &ierror);
    out_value = widened(out);
  } else {
    const MPI_Aint in = reinterpret_cast<MPI_Aint>(attribute_val_in);
    MPI_Aint out = 0;
    record->copy(&oldobject, &keyval, &record->extra_state, &in, &out, &copied, &ierror);
    out_value = reinterpret_cast<void*>(out);
  }
  if (ierror != MPI_SUCCESS) return ierror;
  *flag = tern::fortran::from_logical(copied);
  if (*flag != 0) {
    *static_cast<void**>(attribute_val_out) = out_value;
    count(object, keyval, 1);
  }
  return MPI_SUCCESS;
}

template <Object object>
int delete_trampoline(int target, int keyval, void* attribute_val, void* extra_state) {
  Record* record = find(object, keyval, extra_state);
  if (record == nullptr) return MPI_SUCCESS;
  MPI_Fint ierror = MPI_SUCCESS;
  if (record->legacy_erase != nullptr) {
    const MPI_Fint value = narrowed(attribute_val);
    record->legacy_erase(&target, &keyval, &value, &record->legacy_extra_state, &ierror);
  } else {
    const MPI_Aint value = reinterpret_cast<MPI_Aint>(attribute_val);
    record->erase(&target, &keyval, &value, &record->extra_state, &ierror);
  }
  if (ierror == MPI_SUCCESS) count(object, keyval, -1);  // the C library drops the value only then
  return ierror;
}

// Every kind's C callback types are the same function type (handles are ints).
using CreateKeyval = int(MPI_Comm_copy_attr_function*, MPI_Comm_delete_attr_function*, int*, void*);

template <Object object>
void create_keyval(CreateKeyval* create, std::unique_ptr<Record> record, MPI_Fint* keyval, MPI_Fint* ierror) {
  const int rc = create(&copy_trampoline<object>, &delete_trampoline<object>, keyval, record.get());
  if (rc == MPI_SUCCESS) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().records[{object, *keyval}] = std::move(record);
  }
  tern::fortran::set_error(ierror, rc);
}

template <Object object>
void free_keyval(int (*free)(int*), MPI_Fint* keyval, MPI_Fint* ierror) {
  const int freed = *keyval;
  const int rc = free(keyval);
  if (rc == MPI_SUCCESS) count(object, freed, 0, true);
  tern::fortran::set_error(ierror, rc);
}

// Fortran's attribute value is an integer given by reference; C's is the
// pointer itself.
template <Object object>
void set_attr(int (*set)(int, int, void*), const MPI_Fint* target, const MPI_Fint* keyval,
              const MPI_Aint* attribute_val, MPI_Fint* ierror) {
  const int rc = set(*target, *keyval, reinterpret_cast<void*>(*attribute_val));
  if (rc == MPI_SUCCESS) count(object, *keyval, 1);
  tern::fortran::set_error(ierror, rc);
}

}  // namespace

extern "C" {

void pmpi_comm_create_keyval_(CopyAttrFn* comm_copy_attr_fn, DeleteAttrFn* comm_delete_attr_fn,
                              MPI_Fint* comm_keyval, const MPI_Aint* extra_state, MPI_Fint* ierror) {
  create_keyval<Object::Comm>(&PMPI_Comm_create_keyval,
                              std::make_unique<Record>(Record{comm_copy_attr_fn, comm_delete_attr_fn, *extra_state}),
                              comm_keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(comm_create_keyval)

void pmpi_type_create_keyval_(CopyAttrFn* type_copy_attr_fn, DeleteAttrFn* type_delete_attr_fn,
                              MPI_Fint* type_keyval, const MPI_Aint* extra_state, MPI_Fint* ierror) {
  create_keyval<Object::Type>(&PMPI_Type_create_keyval,
                              std::make_unique<Record>(Record{type_copy_attr_fn, type_delete_attr_fn, *extra_state}),
                              type_keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(type_create_keyval)

void pmpi_win_create_keyval_(CopyAttrFn* win_copy_attr_fn, DeleteAttrFn* win_delete_attr_fn, MPI_Fint* win_keyval,
                             const MPI_Aint* extra_state, MPI_Fint* ierror) {
  create_keyval<Object::Win>(&PMPI_Win_create_keyval,
                              std::make_unique<Record>(Record{win_copy_attr_fn, win_delete_attr_fn, *extra_state}),
                              win_keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(win_create_keyval)

void pmpi_comm_free_keyval_(MPI_Fint* comm_keyval, MPI_Fint* ierror) {
  free_keyval<Object::Comm>(&PMPI_Comm_free_keyval, comm_keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(comm_free_keyval)

void pmpi_type_free_keyval_(MPI_Fint* type_keyval, MPI_Fint* ierror) {
  free_keyval<Object::Type>(&PMPI_Type_free_keyval, type_keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(type_free_keyval)

void pmpi_win_free_keyval_(MPI_Fint* win_keyval, MPI_Fint* ierror) {
  free_keyval<Object::Win>(&PMPI_Win_free_keyval, win_keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(win_free_keyval)

void pmpi_comm_set_attr_(const MPI_Fint* comm, const MPI_Fint* comm_keyval, const MPI_Aint* attribute_val,
                         MPI_Fint* ierror) {
  set_attr<Object::Comm>(&PMPI_Comm_set_attr, comm, comm_keyval, attribute_val, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(comm_set_attr)

void pmpi_type_set_attr_(const MPI_Fint* datatype, const MPI_Fint* type_keyval, const MPI_Aint* attribute_val,
                         MPI_Fint* ierror) {
  set_attr<Object::Type>(&PMPI_Type_set_attr, datatype, type_keyval, attribute_val, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(type_set_attr)

void pmpi_win_set_attr_(const MPI_Fint* win, const MPI_Fint* win_keyval, const MPI_Aint* attribute_val,
                        MPI_Fint* ierror) {
  set_attr<Object::Win>(&PMPI_Win_set_attr, win, win_keyval, attribute_val, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(win_set_attr)

// special.cpp: MPI_COMM_GET_ATTR, whose predefined keys MPI_ATTR_GET shares.
void pmpi_comm_get_attr_(const MPI_Fint* comm, const MPI_Fint* comm_keyval, MPI_Aint* attribute_val, MPI_Fint* flag,
                         MPI_Fint* ierror);

// MPI-1's communicator keyvals and attributes (mpif.h and `use mpi` only).
void pmpi_keyval_create_(LegacyCopyFn* copy_fn, LegacyDeleteFn* delete_fn, MPI_Fint* keyval,
                         const MPI_Fint* extra_state, MPI_Fint* ierror) {
  auto record = std::make_unique<Record>(Record{nullptr, nullptr, 0});
  record->legacy_copy = copy_fn;
  record->legacy_erase = delete_fn;
  record->legacy_extra_state = *extra_state;
  create_keyval<Object::Comm>(&PMPI_Comm_create_keyval, std::move(record), keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(keyval_create)

void pmpi_keyval_free_(MPI_Fint* keyval, MPI_Fint* ierror) {
  free_keyval<Object::Comm>(&PMPI_Comm_free_keyval, keyval, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(keyval_free)

void pmpi_attr_put_(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Fint* attribute_val, MPI_Fint* ierror) {
  const MPI_Aint value = static_cast<MPI_Aint>(*attribute_val);
  set_attr<Object::Comm>(&PMPI_Comm_set_attr, comm, keyval, &value, ierror);
}
TERN_FORTRAN_WEAK_ALIAS(attr_put)

// Predefined keys give their value as MPI_COMM_GET_ATTR does; a user
// keyval's value is the INTEGER that was put.
void pmpi_attr_get_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Fint* attribute_val, MPI_Fint* flag,
                    MPI_Fint* ierror) {
  MPI_Aint value = 0;
  pmpi_comm_get_attr_(comm, keyval, &value, flag, ierror);
  if (tern::fortran::from_logical(*flag) != 0) *attribute_val = static_cast<MPI_Fint>(value);
}
TERN_FORTRAN_WEAK_ALIAS(attr_get)

// The predefined MPI-1 callbacks: MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN.
void mpi_null_copy_fn_(const MPI_Fint*, const MPI_Fint*, MPI_Fint*, const MPI_Fint*, MPI_Fint*, MPI_Fint* flag,
                       MPI_Fint* ierror) {
  *flag = tern::fortran::to_logical(0);
  *ierror = MPI_SUCCESS;
}

void mpi_dup_fn_(const MPI_Fint*, const MPI_Fint*, MPI_Fint*, const MPI_Fint* attribute_val_in,
                 MPI_Fint* attribute_val_out, MPI_Fint* flag, MPI_Fint* ierror) {
  *attribute_val_out = *attribute_val_in;
  *flag = tern::fortran::to_logical(1);
  *ierror = MPI_SUCCESS;
}

void mpi_null_delete_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Fint*, MPI_Fint*, MPI_Fint* ierror) {
  *ierror = MPI_SUCCESS;
}

// The predefined Fortran callbacks (MPI_COMM_DUP_FN, ...): the program
// passes them to MPI_*_create_keyval, and the trampolines call them as any
// other Fortran procedure. One definition serves the three kinds.
void mpi_comm_null_copy_fn_(const MPI_Fint*, const MPI_Fint*, MPI_Aint*, const MPI_Aint*, MPI_Aint*, MPI_Fint* flag,
                            MPI_Fint* ierror) {
  *flag = tern::fortran::to_logical(0);
  *ierror = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(const MPI_Fint*, const MPI_Fint*, MPI_Aint*, const MPI_Aint* attribute_val_in,
                      MPI_Aint* attribute_val_out, MPI_Fint* flag, MPI_Fint* ierror) {
  *attribute_val_out = *attribute_val_in;
  *flag = tern::fortran::to_logical(1);
  *ierror = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Aint*, MPI_Aint*, MPI_Fint* ierror) {
  *ierror = MPI_SUCCESS;
}

decltype(mpi_comm_null_copy_fn_) mpi_type_null_copy_fn_ __attribute__((alias("mpi_comm_null_copy_fn_")));
decltype(mpi_comm_null_copy_fn_) mpi_win_null_copy_fn_ __attribute__((alias("mpi_comm_null_copy_fn_")));
decltype(mpi_comm_dup_fn_) mpi_type_dup_fn_ __attribute__((alias("mpi_comm_dup_fn_")));
decltype(mpi_comm_dup_fn_) mpi_win_dup_fn_ __attribute__((alias("mpi_comm_dup_fn_")));
decltype(mpi_comm_null_delete_fn_) mpi_type_null_delete_fn_ __attribute__((alias("mpi_comm_null_delete_fn_")));
decltype(mpi_comm_null_delete_fn_) mpi_win_null_delete_fn_ __attribute__((alias("mpi_comm_null_delete_fn_")));

}  // extern "C"
