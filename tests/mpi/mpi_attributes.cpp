// Attribute caching on communicators and datatypes: keyvals, the copy
// callbacks MPI_Comm_dup/MPI_Comm_dup_with_info/MPI_Type_dup run, the delete
// callbacks that set (replacing), delete_attr, free and MPI_Finalize run,
// errors from callbacks, freed keyvals still in use, the predefined keys and
// callbacks, and MPI-1's forms. Every callback records its arguments, so the
// checks count the calls and look at what each one was given.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "check.hpp"

namespace {

using tern::mpi_test::conclude;

struct Call {
  int object;
  int keyval;
  void* extra_state;
  intptr_t value;
};

std::vector<Call> copies, deletes;
int fail_copy = 0;    // an error code the next copy callbacks return (0: none)
int fail_delete = 0;  // the same for the delete callbacks

void* as_value(intptr_t v) { return reinterpret_cast<void*>(v); }

// Copies give the duplicate the value plus one.
int copy_fn(int old_object, int keyval, void* extra_state, void* value_in, void* value_out, int* flag) {
  copies.push_back({old_object, keyval, extra_state, reinterpret_cast<intptr_t>(value_in)});
  if (fail_copy != 0) return fail_copy;
  *static_cast<void**>(value_out) = as_value(reinterpret_cast<intptr_t>(value_in) + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_fn(int object, int keyval, void* value, void* extra_state) {
  deletes.push_back({object, keyval, extra_state, reinterpret_cast<intptr_t>(value)});
  return fail_delete;
}

bool same(const Call& call, int object, int keyval, void* extra_state, intptr_t value) {
  return call.object == object && call.keyval == keyval && call.extra_state == extra_state && call.value == value;
}

intptr_t get_comm(MPI_Comm comm, int keyval, int* flag) {
  void* value = nullptr;
  CHECK(MPI_Comm_get_attr(comm, keyval, &value, flag) == MPI_SUCCESS);
  return reinterpret_cast<intptr_t>(value);
}

intptr_t get_type(MPI_Datatype type, int keyval, int* flag) {
  void* value = nullptr;
  CHECK(MPI_Type_get_attr(type, keyval, &value, flag) == MPI_SUCCESS);
  return reinterpret_cast<intptr_t>(value);
}

int error_class(int code) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(code, &cls);
  return cls;
}

void predefined_keys() {
  int flag = 0;
  int* tag_ub = nullptr;
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && tag_ub != nullptr && *tag_ub >= 32767);
  int* wtime_global = nullptr;
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtime_global, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && wtime_global != nullptr && (*wtime_global == 0 || *wtime_global == 1));
  // The predefined keys cannot be set or deleted.
  CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, as_value(5)) != MPI_SUCCESS);
  CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB) != MPI_SUCCESS);
}

void comm_callbacks() {
  static int extra = 0;
  int keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, &extra) == MPI_SUCCESS);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int flag = -1;
  get_comm(comm, keyval, &flag);
  CHECK(flag == 0);
  copies.clear();
  deletes.clear();

  CHECK(MPI_Comm_set_attr(comm, keyval, as_value(100)) == MPI_SUCCESS);
  CHECK(get_comm(comm, keyval, &flag) == 100 && flag == 1);
  CHECK(deletes.empty());

  // A duplicate gets what the copy callback made, once, from the parent's value.
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(comm, &dup) == MPI_SUCCESS);
  CHECK(copies.size() == 1 && same(copies[0], comm, keyval, &extra, 100));
  CHECK(get_comm(dup, keyval, &flag) == 101 && flag == 1);
  CHECK(get_comm(comm, keyval, &flag) == 100 && flag == 1);
  MPI_Comm info_dup = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &info_dup) == MPI_SUCCESS);
  CHECK(copies.size() == 2 && same(copies[1], dup, keyval, &extra, 101));
  CHECK(get_comm(info_dup, keyval, &flag) == 102 && flag == 1);

  // Replacing a value deletes the old one; deleting the key deletes the new.
  CHECK(MPI_Comm_set_attr(comm, keyval, as_value(200)) == MPI_SUCCESS);
  CHECK(deletes.size() == 1 && same(deletes[0], comm, keyval, &extra, 100));
  CHECK(MPI_Comm_delete_attr(comm, keyval) == MPI_SUCCESS);
  CHECK(deletes.size() == 2 && same(deletes[1], comm, keyval, &extra, 200));
  get_comm(comm, keyval, &flag);
  CHECK(flag == 0);

  // Freeing a communicator deletes its attributes.
  const MPI_Comm dup_handle = dup, info_dup_handle = info_dup;
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL);
  CHECK(deletes.size() == 3 && same(deletes[2], dup_handle, keyval, &extra, 101));
  CHECK(MPI_Comm_free(&info_dup) == MPI_SUCCESS);
  CHECK(deletes.size() == 4 && same(deletes[3], info_dup_handle, keyval, &extra, 102));

  // A freed keyval still in use: its attribute is copied and deleted as before.
  CHECK(MPI_Comm_set_attr(comm, keyval, as_value(300)) == MPI_SUCCESS);
  const int old_keyval = keyval;
  CHECK(MPI_Comm_free_keyval(&keyval) == MPI_SUCCESS && keyval == MPI_KEYVAL_INVALID);
  CHECK(MPI_Comm_dup(comm, &dup) == MPI_SUCCESS);
  CHECK(copies.size() == 3 && same(copies[2], comm, old_keyval, &extra, 300));
  const MPI_Comm comm_handle = comm;
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
  CHECK(deletes.size() == 5 && same(deletes[4], comm_handle, old_keyval, &extra, 300));
  const MPI_Comm dup_again = dup;
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
  CHECK(deletes.size() == 6 && same(deletes[5], dup_again, old_keyval, &extra, 301));
}

void comm_predefined_callbacks() {
  int null_copy = MPI_KEYVAL_INVALID, dup_copy = MPI_KEYVAL_INVALID;
  CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &null_copy, nullptr) ==
        MPI_SUCCESS);
  CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dup_copy, nullptr) == MPI_SUCCESS);
  CHECK(null_copy != dup_copy);
  MPI_Comm comm = MPI_COMM_NULL, dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  static int payload = 7;
  CHECK(MPI_Comm_set_attr(comm, null_copy, &payload) == MPI_SUCCESS);
  CHECK(MPI_Comm_set_attr(comm, dup_copy, &payload) == MPI_SUCCESS);
  CHECK(MPI_Comm_dup(comm, &dup) == MPI_SUCCESS);
  int flag = -1;
  get_comm(dup, null_copy, &flag);
  CHECK(flag == 0);
  CHECK(get_comm(dup, dup_copy, &flag) == reinterpret_cast<intptr_t>(&payload) && flag == 1);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&comm);
  CHECK(MPI_Comm_free_keyval(&null_copy) == MPI_SUCCESS);
  CHECK(MPI_Comm_free_keyval(&dup_copy) == MPI_SUCCESS);
}

// A callback's error fails the call, which keeps what it would have changed.
void comm_callback_errors() {
  int keyval = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, nullptr);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_attr(comm, keyval, as_value(1));
  copies.clear();
  deletes.clear();

  fail_copy = MPI_ERR_OTHER;
  MPI_Comm dup = MPI_COMM_NULL;
  const int dup_rc = MPI_Comm_dup(comm, &dup);
  CHECK(dup_rc != MPI_SUCCESS && error_class(dup_rc) == MPI_ERR_OTHER);
  CHECK(copies.size() == 1);
  fail_copy = 0;

  fail_delete = MPI_ERR_OTHER;
  const int set_rc = MPI_Comm_set_attr(comm, keyval, as_value(2));
  CHECK(set_rc != MPI_SUCCESS && error_class(set_rc) == MPI_ERR_OTHER);
  int flag = 0;
  CHECK(get_comm(comm, keyval, &flag) == 1 && flag == 1);
  const int delete_rc = MPI_Comm_delete_attr(comm, keyval);
  CHECK(delete_rc != MPI_SUCCESS && error_class(delete_rc) == MPI_ERR_OTHER);
  CHECK(get_comm(comm, keyval, &flag) == 1 && flag == 1);
  const int free_rc = MPI_Comm_free(&comm);
  CHECK(free_rc != MPI_SUCCESS && error_class(free_rc) == MPI_ERR_OTHER);
  CHECK(deletes.size() == 3);
  fail_delete = 0;
  // Still there: the communicator works and frees.
  int size = 0;
  CHECK(MPI_Comm_size(comm, &size) == MPI_SUCCESS && size > 0);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS && comm == MPI_COMM_NULL);
#ifdef TERN_MPI
  // What a failed free leaves is the implementation's choice: Tern keeps
  // the attribute, so the second free deletes it again (MPICH drops it).
  CHECK(deletes.size() == 4 && deletes[3].value == 1);
#endif
  MPI_Comm_free_keyval(&keyval);
}

void type_attributes() {
  static int extra = 0;
  int keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Type_create_keyval(copy_fn, delete_fn, &keyval, &extra) == MPI_SUCCESS);
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(3, MPI_INT, &type);
  copies.clear();
  deletes.clear();
  int flag = -1;
  get_type(type, keyval, &flag);
  CHECK(flag == 0);
  CHECK(MPI_Type_set_attr(type, keyval, as_value(40)) == MPI_SUCCESS);
  CHECK(get_type(type, keyval, &flag) == 40 && flag == 1);

  MPI_Datatype dup = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_dup(type, &dup) == MPI_SUCCESS);
  CHECK(copies.size() == 1 && same(copies[0], type, keyval, &extra, 40));
  CHECK(get_type(dup, keyval, &flag) == 41 && flag == 1);
  const MPI_Datatype dup_handle = dup;
  CHECK(MPI_Type_free(&dup) == MPI_SUCCESS);
  CHECK(deletes.size() == 1 && same(deletes[0], dup_handle, keyval, &extra, 41));

  // Predefined types carry attributes too.
  CHECK(MPI_Type_set_attr(MPI_DOUBLE, keyval, as_value(50)) == MPI_SUCCESS);
  CHECK(get_type(MPI_DOUBLE, keyval, &flag) == 50 && flag == 1);
  CHECK(MPI_Type_delete_attr(MPI_DOUBLE, keyval) == MPI_SUCCESS);
  CHECK(deletes.size() == 2 && same(deletes[1], MPI_DOUBLE, keyval, &extra, 50));

  // A failing copy fails MPI_Type_dup.
  fail_copy = MPI_ERR_OTHER;
  const int dup_rc = MPI_Type_dup(type, &dup);
  CHECK(dup_rc != MPI_SUCCESS && error_class(dup_rc) == MPI_ERR_OTHER);
  fail_copy = 0;
#ifdef TERN_MPI
  // A failing delete fails MPI_Type_free too, keeping the type (MPICH
  // ignores the error and frees it).
  fail_delete = MPI_ERR_OTHER;
  const int free_rc = MPI_Type_free(&type);
  CHECK(free_rc != MPI_SUCCESS && error_class(free_rc) == MPI_ERR_OTHER && type != MPI_DATATYPE_NULL);
  fail_delete = 0;
#endif
  const MPI_Datatype type_handle = type;
  deletes.clear();
  CHECK(MPI_Type_free(&type) == MPI_SUCCESS);
  CHECK(deletes.size() == 1 && same(deletes[0], type_handle, keyval, &extra, 40));
  CHECK(MPI_Type_free_keyval(&keyval) == MPI_SUCCESS && keyval == MPI_KEYVAL_INVALID);

  int dup_keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &dup_keyval, nullptr) == MPI_SUCCESS);
  int null_keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &null_keyval, nullptr) ==
        MPI_SUCCESS);
  MPI_Type_contiguous(2, MPI_CHAR, &type);
  MPI_Type_set_attr(type, dup_keyval, as_value(9));
  MPI_Type_set_attr(type, null_keyval, as_value(10));
  CHECK(MPI_Type_dup(type, &dup) == MPI_SUCCESS);
  CHECK(get_type(dup, dup_keyval, &flag) == 9 && flag == 1);
  get_type(dup, null_keyval, &flag);
  CHECK(flag == 0);
  MPI_Type_free(&dup);
  MPI_Type_free(&type);
  MPI_Type_free_keyval(&dup_keyval);
  MPI_Type_free_keyval(&null_keyval);
}

// A keyval of one kind is no keyval for the other.
void wrong_kind() {
  int type_keyval = MPI_KEYVAL_INVALID, comm_keyval = MPI_KEYVAL_INVALID;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &type_keyval, nullptr);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_keyval, nullptr);
  const int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, type_keyval, as_value(1));
  CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_KEYVAL);
  int flag = 0;
  void* value = nullptr;
  const int get_rc = MPI_Type_get_attr(MPI_INT, comm_keyval, &value, &flag);
  CHECK(get_rc != MPI_SUCCESS && error_class(get_rc) == MPI_ERR_KEYVAL);
  int freed = comm_keyval;
  MPI_Comm_free_keyval(&freed);
#ifdef TERN_MPI
  // Using a freed keyval is erroneous; Tern's keyvals carry a generation,
  // so it is caught (MPICH may reuse the keyval object).
  const int stale_rc = MPI_Comm_set_attr(MPI_COMM_WORLD, comm_keyval, as_value(1));
  CHECK(stale_rc != MPI_SUCCESS && error_class(stale_rc) == MPI_ERR_KEYVAL);
#endif
  MPI_Type_free_keyval(&type_keyval);
}

void mpi1_forms() {
  int keyval = MPI_KEYVAL_INVALID, null_keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &keyval, nullptr) == MPI_SUCCESS);
  CHECK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &null_keyval, nullptr) == MPI_SUCCESS);
  MPI_Comm comm = MPI_COMM_NULL, dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  CHECK(MPI_Attr_put(comm, keyval, as_value(77)) == MPI_SUCCESS);
  CHECK(MPI_Attr_put(comm, null_keyval, as_value(78)) == MPI_SUCCESS);
  void* value = nullptr;
  int flag = 0;
  CHECK(MPI_Attr_get(comm, keyval, &value, &flag) == MPI_SUCCESS && flag == 1 && value == as_value(77));
  MPI_Comm_dup(comm, &dup);
  CHECK(MPI_Attr_get(dup, keyval, &value, &flag) == MPI_SUCCESS && flag == 1 && value == as_value(77));
  CHECK(MPI_Attr_get(dup, null_keyval, &value, &flag) == MPI_SUCCESS && flag == 0);
  CHECK(MPI_Attr_delete(comm, keyval) == MPI_SUCCESS);
  CHECK(MPI_Attr_get(comm, keyval, &value, &flag) == MPI_SUCCESS && flag == 0);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&comm);
  CHECK(MPI_Keyval_free(&keyval) == MPI_SUCCESS && keyval == MPI_KEYVAL_INVALID);
  MPI_Keyval_free(&null_keyval);
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first, while
// MPI still works; the order is checked after it returns.
std::vector<intptr_t> finalize_order;
int finalize_misuse = 0;

int finalize_delete(MPI_Comm comm, int, void* value, void*) {
  int finalized = 1, rank = -1;
  MPI_Finalized(&finalized);
  if (comm != MPI_COMM_SELF || finalized != 0 || MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) {
    ++finalize_misuse;
  }
  finalize_order.push_back(reinterpret_cast<intptr_t>(value));
  return MPI_SUCCESS;
}

void arm_finalize() {
  int first = MPI_KEYVAL_INVALID, second = MPI_KEYVAL_INVALID, third = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &first, nullptr);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &second, nullptr);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &third, nullptr);
  // Set in the order 2, 1, 3 of the keyvals' creation: the deletion follows
  // the setting.
  MPI_Comm_set_attr(MPI_COMM_SELF, second, as_value(1));
  MPI_Comm_set_attr(MPI_COMM_SELF, first, as_value(2));
  MPI_Comm_set_attr(MPI_COMM_SELF, third, as_value(3));
  // Freed keyvals keep their attributes until then.
  MPI_Comm_free_keyval(&third);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  predefined_keys();
  comm_callbacks();
  comm_predefined_callbacks();
  comm_callback_errors();
  type_attributes();
  wrong_kind();
  mpi1_forms();
  arm_finalize();
  const int code = conclude("mpi_attributes");
  MPI_Finalize();
  const bool ordered = finalize_order == std::vector<intptr_t>{3, 2, 1};
  if (!ordered || finalize_misuse != 0) {
    std::fprintf(stderr, "mpi_attributes: MPI_Finalize deleted %zu attributes (%s order, %d misuses)\n",
                 finalize_order.size(), ordered ? "right" : "wrong", finalize_misuse);
    return 1;
  }
  return code;
}
