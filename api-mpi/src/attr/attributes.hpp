// Attribute caching: the process's keyvals and each object's attributes.
// One store serves communicators, datatypes and windows alike: their handles
// are all ints, so every kind's callbacks have one signature, and a keyval
// remembers which kind it was made for.
#pragma once

#include <cstdint>
#include <vector>

namespace tern::mpi {

enum class AttrObject : uint8_t { Comm, Datatype, Win };

using AttrCopyFn = int(int old_object, int keyval, void* extra_state, void* value_in, void* value_out, int* flag);
using AttrDeleteFn = int(int object, int keyval, void* value, void* extra_state);

// User keyvals start above every predefined attribute key (MPI_TAG_UB ...,
// MPI_WIN_BASE ...), so a key's value alone tells the two apart.
inline constexpr int kFirstUserKeyval = 64;
[[nodiscard]] constexpr bool is_user_keyval(int keyval) noexcept { return keyval >= kFirstUserKeyval; }

// One object's attributes, in the order they were set (MPI_Finalize deletes
// MPI_COMM_SELF's newest first). Each holds a reference to its keyval, so a
// freed keyval lives until its last attribute goes.
class AttributeList {
 public:
  AttributeList() = default;
  // A copied object starts without attributes: values reach a copy only
  // through their keyvals' copy callbacks (attr_copy), which the copying
  // call runs once the copy has a handle.
  AttributeList(const AttributeList&) noexcept {}
  AttributeList& operator=(const AttributeList&) = delete;

  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

 private:
  friend struct AttributeAccess;
  struct Entry {
    int keyval;
    void* value;
  };
  std::vector<Entry> entries_;
};

// All return an MPI error code: MPI_ERR_KEYVAL for a keyval that is not one
// of `kind`'s, or the code a callback returned. The caller raises it on its
// object's error handler.
[[nodiscard]] int keyval_create(AttrObject kind, AttrCopyFn* copy, AttrDeleteFn* erase, void* extra_state,
                                int* keyval);
// Sets *keyval to MPI_KEYVAL_INVALID.
[[nodiscard]] int keyval_free(AttrObject kind, int* keyval);
// A value replaced runs its delete callback first; if that fails, the old value stays.
[[nodiscard]] int attr_set(AttrObject kind, int object, AttributeList& list, int keyval, void* value);
[[nodiscard]] int attr_get(AttrObject kind, const AttributeList& list, int keyval, void** value, bool* found);
// Deleting a key that is not set does nothing (as MPICH and Open MPI do).
[[nodiscard]] int attr_delete(AttrObject kind, int object, AttributeList& list, int keyval);
// The copy callbacks of `from`'s attributes (set on `old_object`) fill `to`,
// the new object's empty list. On an error `to` keeps what was copied: the
// caller deletes it with attr_delete_all before dropping the object.
[[nodiscard]] int attr_copy(AttrObject kind, int old_object, const AttributeList& from, AttributeList& to);
// Every attribute, newest first; stops at the first callback that fails,
// leaving that attribute and the older ones in place.
[[nodiscard]] int attr_delete_all(AttrObject kind, int object, AttributeList& list);

struct Comm;  // state.hpp
// Raises an error of the calls above on `comm`'s handler (null: the
// world's), saying what it means; `kind` names the keyval's objects.
int raise_attr_error(const Comm* comm, const char* function, int err, const char* kind, int keyval);

}  // namespace tern::mpi
