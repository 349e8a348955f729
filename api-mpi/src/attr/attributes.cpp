// The keyval table and the attribute operations behind MPI_Comm_*_attr,
// MPI_Type_*_attr (and, through the same calls, windows').
#include "attr/attributes.hpp"

#include <mutex>

#include "handle.hpp"
#include "mpi.h"

namespace tern::mpi {

// The store's view of a list (AttributeList keeps its entries private so
// that only these operations, under the table's lock, change them).
struct AttributeAccess {
  using Entry = AttributeList::Entry;
  static std::vector<Entry>& entries(AttributeList& list) noexcept { return list.entries_; }
  static const std::vector<Entry>& entries(const AttributeList& list) noexcept { return list.entries_; }
};

namespace {

using Entry = AttributeAccess::Entry;
using KeyvalHandle = GenerationalHandle<16>;

struct Keyval {
  AttrObject kind = AttrObject::Comm;
  AttrCopyFn* copy = nullptr;
  AttrDeleteFn* erase = nullptr;
  void* extra_state = nullptr;
  int refs = 0;          // the user's handle until freed, and one per attribute
  bool freed = false;    // by the user: its handle names nothing any more
  bool live = false;
  uint32_t generation = 0;
};

// Callbacks run with the lock held: it is recursive because they may call
// the attribute functions again (a delete callback that reads another
// attribute, a copy callback that sets one on the old object), and holding
// it keeps another thread from changing a list between a callback and the
// change it decides. Callbacks are called only through copies of the
// keyval's fields, since one that creates keyvals may grow the table.
struct KeyvalTable {
  std::recursive_mutex mutex;
  std::vector<Keyval> slots;  // by handle slot - kFirstUserKeyval
  std::vector<int> free_slots;
};

KeyvalTable& table() {
  static auto* t = new KeyvalTable;  // never destroyed: attributes may outlive static destruction order
  return *t;
}

Keyval* slot_of(KeyvalTable& t, int handle) noexcept {
  const int slot = KeyvalHandle::slot(handle) - kFirstUserKeyval;
  if (!is_user_keyval(handle) || slot < 0 || static_cast<std::size_t>(slot) >= t.slots.size()) return nullptr;
  Keyval& k = t.slots[static_cast<std::size_t>(slot)];
  if (!k.live || !KeyvalHandle::names(handle, slot + kFirstUserKeyval, k.generation)) return nullptr;
  return &k;
}

// A keyval the user may still name: live, not freed, of `kind`.
Keyval* user_keyval(KeyvalTable& t, AttrObject kind, int handle) noexcept {
  Keyval* k = slot_of(t, handle);
  return k != nullptr && !k->freed && k->kind == kind ? k : nullptr;
}

void release(KeyvalTable& t, int handle) noexcept {
  Keyval* k = slot_of(t, handle);
  if (k == nullptr || --k->refs > 0) return;
  k->live = false;
  k->generation = KeyvalHandle::next(k->generation);
  t.free_slots.push_back(KeyvalHandle::slot(handle) - kFirstUserKeyval);
}

// The entry of `keyval`, searched from the newest (the usual one to delete).
Entry* find_entry(std::vector<Entry>& entries, int keyval) noexcept {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->keyval == keyval) return &*it;
  }
  return nullptr;
}

// Drops `keyval`'s entry, if a callback has not already, and its reference.
void remove_entry(KeyvalTable& t, std::vector<Entry>& entries, int keyval) noexcept {
  for (auto it = entries.end(); it != entries.begin();) {
    --it;
    if (it->keyval == keyval) {
      entries.erase(it);
      release(t, keyval);
      return;
    }
  }
}

// Runs `keyval`'s delete callback on `value`.
int run_delete(KeyvalTable& t, int object, int keyval, void* value) {
  const Keyval* k = slot_of(t, keyval);
  if (k == nullptr || k->erase == nullptr) return MPI_SUCCESS;
  AttrDeleteFn* erase = k->erase;
  void* extra_state = k->extra_state;
  return erase(object, keyval, value, extra_state);
}

}  // namespace

int keyval_create(AttrObject kind, AttrCopyFn* copy, AttrDeleteFn* erase, void* extra_state, int* keyval) {
  if (keyval == nullptr) return MPI_ERR_ARG;
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  std::size_t index = t.slots.size();
  if (!t.free_slots.empty()) {
    index = static_cast<std::size_t>(t.free_slots.back());
    t.free_slots.pop_back();
  } else if (index + kFirstUserKeyval > static_cast<std::size_t>(KeyvalHandle::kSlotMask)) {
    return MPI_ERR_NO_MEM;
  } else {
    t.slots.emplace_back();
  }
  Keyval& k = t.slots[index];
  k.kind = kind;
  k.copy = copy;
  k.erase = erase;
  k.extra_state = extra_state;
  k.refs = 1;
  k.freed = false;
  k.live = true;
  *keyval = KeyvalHandle::make(static_cast<int>(index) + kFirstUserKeyval, k.generation);
  return MPI_SUCCESS;
}

int keyval_free(AttrObject kind, int* keyval) {
  if (keyval == nullptr) return MPI_ERR_ARG;
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  Keyval* k = user_keyval(t, kind, *keyval);
  if (k == nullptr) return MPI_ERR_KEYVAL;
  k->freed = true;
  release(t, *keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int attr_set(AttrObject kind, int object, AttributeList& list, int keyval, void* value) {
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  Keyval* k = user_keyval(t, kind, keyval);
  if (k == nullptr) return MPI_ERR_KEYVAL;
  std::vector<Entry>& entries = AttributeAccess::entries(list);
  if (const Entry* old = find_entry(entries, keyval); old != nullptr) {
    if (int err = run_delete(t, object, keyval, old->value); err != MPI_SUCCESS) return err;
  }
  // Set again, the value counts as the newest (MPI_Finalize's order). The
  // new reference is taken before the old one goes, so the keyval stays.
  ++slot_of(t, keyval)->refs;
  remove_entry(t, entries, keyval);
  entries.push_back(Entry{keyval, value});
  return MPI_SUCCESS;
}

int attr_get(AttrObject kind, const AttributeList& list, int keyval, void** value, bool* found) {
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  if (user_keyval(t, kind, keyval) == nullptr) return MPI_ERR_KEYVAL;
  *found = false;
  for (const Entry& e : AttributeAccess::entries(list)) {
    if (e.keyval == keyval) {
      *value = e.value;
      *found = true;
    }
  }
  return MPI_SUCCESS;
}

int attr_delete(AttrObject kind, int object, AttributeList& list, int keyval) {
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  if (user_keyval(t, kind, keyval) == nullptr) return MPI_ERR_KEYVAL;
  std::vector<Entry>& entries = AttributeAccess::entries(list);
  const Entry* entry = find_entry(entries, keyval);
  if (entry == nullptr) return MPI_SUCCESS;
  if (int err = run_delete(t, object, keyval, entry->value); err != MPI_SUCCESS) return err;
  remove_entry(t, entries, keyval);
  return MPI_SUCCESS;
}

int attr_copy(AttrObject kind, int old_object, const AttributeList& from, AttributeList& to) {
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  // A copy callback may set attributes on the old object: walk a snapshot.
  const std::vector<Entry> snapshot = AttributeAccess::entries(from);
  std::vector<Entry>& out = AttributeAccess::entries(to);
  for (const Entry& e : snapshot) {
    const Keyval* k = slot_of(t, e.keyval);
    if (k == nullptr || k->kind != kind || k->copy == nullptr) continue;
    AttrCopyFn* copy = k->copy;
    void* extra_state = k->extra_state;
    void* value = nullptr;
    int flag = 0;
    if (int err = copy(old_object, e.keyval, extra_state, e.value, &value, &flag); err != MPI_SUCCESS) return err;
    if (flag == 0) continue;
    ++slot_of(t, e.keyval)->refs;
    out.push_back(Entry{e.keyval, value});
  }
  return MPI_SUCCESS;
}

int attr_delete_all(AttrObject kind, int object, AttributeList& list) {
  (void)kind;  // every entry was set through a keyval of the list's kind
  KeyvalTable& t = table();
  std::lock_guard<std::recursive_mutex> lock(t.mutex);
  std::vector<Entry>& entries = AttributeAccess::entries(list);
  while (!entries.empty()) {
    const Entry newest = entries.back();
    if (int err = run_delete(t, object, newest.keyval, newest.value); err != MPI_SUCCESS) return err;
    remove_entry(t, entries, newest.keyval);
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi
