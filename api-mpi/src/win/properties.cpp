// What a window says about itself and what can be set on it: attributes,
// group, name, info hints, error handler, shared-memory queries, dynamic
// attachment, and handle conversion.
#include <algorithm>
#include <cstring>

#include "comm/group.hpp"
#include "errors/user_errors.hpp"
#include "win/window.hpp"

using namespace tern;
using namespace tern::mpi;

namespace {

// The values MPI_Win_get_attr hands out pointers to live in the window;
// these are the ones that are not fields of their own.
struct FixedAttributes {
  int unified = MPI_WIN_UNIFIED;
};
FixedAttributes g_fixed;

bool valid_errhandler(MPI_Errhandler handler) { return errhandler_accepts(handler, ErrhandlerKind::Win); }

// MPI_Win_shared_query and its _c form (`disp_unit` an int or an MPI_Aint).
template <class Unit>
int shared_query(const char* kFunction, MPI_Win handle, int rank, MPI_Aint* size, Unit* disp_unit, void* baseptr) {
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (size == nullptr || disp_unit == nullptr || baseptr == nullptr) {
    return raise_win(win, MPI_ERR_ARG, kFunction, "null size, disp_unit or baseptr argument");
  }
  if (win->flavor != MPI_WIN_FLAVOR_SHARED) {
    return raise_win(win, MPI_ERR_RMA_FLAVOR, kFunction, "the window was not made by MPI_Win_allocate_shared");
  }
  if (rank == MPI_PROC_NULL) {
    // The first rank with memory, as the standard asks.
    rank = 0;
    while (rank + 1 < win->size && win->peers[static_cast<std::size_t>(rank)].size == 0) ++rank;
  } else if (rank < 0 || rank >= win->size) {
    return raise_win(win, MPI_ERR_RANK, kFunction, "invalid rank %d (window of %d ranks)", rank, win->size);
  }
  const WinPeer& peer = win->peers[static_cast<std::size_t>(rank)];
  *size = peer.size;
  *disp_unit = peer.disp_unit;
  *static_cast<void**>(baseptr) = peer.mapped;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Win_get_attr(MPI_Win handle, int keyval, void* attribute_val, int* flag) {
  constexpr const char* kFunction = "MPI_Win_get_attr";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (attribute_val == nullptr || flag == nullptr) {
    return raise_win(win, MPI_ERR_ARG, kFunction, "null attribute_val or flag argument");
  }
  if (is_user_keyval(keyval)) {
    void* value = nullptr;
    bool found = false;
    if (int err = attr_get(AttrObject::Win, win->attributes, keyval, &value, &found); err != MPI_SUCCESS) {
      return raise_win(win, err, kFunction, "invalid window keyval %d", keyval);
    }
    if (found) *static_cast<void**>(attribute_val) = value;
    *flag = found ? 1 : 0;
    return MPI_SUCCESS;
  }
  void* value = nullptr;
  switch (keyval) {
    case MPI_WIN_BASE: value = win->base; break;
    case MPI_WIN_SIZE: value = &win->bytes; break;
    case MPI_WIN_DISP_UNIT: value = &win->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: value = &win->flavor; break;
    case MPI_WIN_MODEL: value = &g_fixed.unified; break;
    default: return raise_win(win, MPI_ERR_KEYVAL, kFunction, "invalid window attribute key %d", keyval);
  }
  *static_cast<void**>(attribute_val) = value;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win handle, MPI_Group* group) {
  constexpr const char* kFunction = "MPI_Win_get_group";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (group == nullptr) return raise_win(win, MPI_ERR_ARG, kFunction, "null group argument");
  *group = make_group(window_comm(*win).job_ranks);
  if (*group == MPI_GROUP_NULL) return raise_win(win, MPI_ERR_NO_MEM, kFunction, "out of group handles");
  return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win handle, const char* name) {
  constexpr const char* kFunction = "MPI_Win_set_name";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (name == nullptr) return raise_win(win, MPI_ERR_ARG, kFunction, "null name argument");
  win->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win handle, char* name, int* resultlen) {
  constexpr const char* kFunction = "MPI_Win_get_name";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (name == nullptr || resultlen == nullptr) return raise_win(win, MPI_ERR_ARG, kFunction, "null argument");
  std::memcpy(name, win->name.c_str(), win->name.size() + 1);
  *resultlen = static_cast<int>(win->name.size());
  return MPI_SUCCESS;
}

int PMPI_Win_set_info(MPI_Win handle, MPI_Info info) {
  constexpr const char* kFunction = "MPI_Win_set_info";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  InfoEntries entries;
  if (info != MPI_INFO_NULL && !info_entries(info, entries)) {
    return raise_win(win, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  merge_info(win->info, entries);
  return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win handle, MPI_Info* info_used) {
  constexpr const char* kFunction = "MPI_Win_get_info";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (info_used == nullptr) return raise_win(win, MPI_ERR_ARG, kFunction, "null info_used argument");
  // The hints the program gave, and how this window reaches its targets
  // (win/mapping.cpp): "direct" (copies into memory mapped here) or "served".
  InfoEntries used = win->info;
  used.emplace_back("tern_access", win->direct ? "direct" : "served");
  *info_used = make_info(std::move(used));
  if (*info_used == MPI_INFO_NULL) return raise_win(win, MPI_ERR_NO_MEM, kFunction, "out of info objects");
  return MPI_SUCCESS;
}

int PMPI_Win_set_errhandler(MPI_Win handle, MPI_Errhandler errhandler) {
  constexpr const char* kFunction = "MPI_Win_set_errhandler";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (!valid_errhandler(errhandler)) {
    return raise_win(win, MPI_ERR_ERRHANDLER, kFunction, "invalid error handler %d", errhandler);
  }
  win->errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win handle, MPI_Errhandler* errhandler) {
  constexpr const char* kFunction = "MPI_Win_get_errhandler";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (errhandler == nullptr) return raise_win(win, MPI_ERR_ARG, kFunction, "null errhandler argument");
  *errhandler = win->errhandler;
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win handle, int errorcode) {
  constexpr const char* kFunction = "MPI_Win_call_errhandler";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  raise_win(win, errorcode, kFunction, "error %d raised by the program", errorcode);
  return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win handle, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  return shared_query("MPI_Win_shared_query", handle, rank, size, disp_unit, baseptr);
}

int PMPI_Win_shared_query_c(MPI_Win handle, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return shared_query("MPI_Win_shared_query_c", handle, rank, size, disp_unit, baseptr);
}

int PMPI_Win_attach(MPI_Win handle, void* base, MPI_Aint size) {
  constexpr const char* kFunction = "MPI_Win_attach";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    return raise_win(win, MPI_ERR_RMA_FLAVOR, kFunction, "the window was not made by MPI_Win_create_dynamic");
  }
  if (size < 0) return raise_win(win, MPI_ERR_SIZE, kFunction, "invalid size %td", size);
  if (base == nullptr && size > 0) return raise_win(win, MPI_ERR_BASE, kFunction, "null base");
  const auto start = reinterpret_cast<uintptr_t>(base);
  std::lock_guard<std::mutex> lock(win->attached_mutex);
  for (const auto& [other, length] : win->attached) {
    if (start < other + length && other < start + static_cast<uintptr_t>(size)) {
      return raise_win(win, MPI_ERR_RMA_ATTACH, kFunction, "the memory overlaps memory attached before");
    }
  }
  win->attached.emplace_back(start, static_cast<std::size_t>(size));
  return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win handle, const void* base) {
  constexpr const char* kFunction = "MPI_Win_detach";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    return raise_win(win, MPI_ERR_RMA_FLAVOR, kFunction, "the window was not made by MPI_Win_create_dynamic");
  }
  const auto start = reinterpret_cast<uintptr_t>(base);
  std::lock_guard<std::mutex> lock(win->attached_mutex);
  auto it = std::find_if(win->attached.begin(), win->attached.end(),
                         [&](const auto& range) { return range.first == start; });
  if (it == win->attached.end()) {
    return raise_win(win, MPI_ERR_RMA_ATTACH, kFunction, "no memory was attached at %p", base);
  }
  win->attached.erase(it);
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Win_c2f(MPI_Win win) { return static_cast<MPI_Fint>(win); }
MPI_Win PMPI_Win_f2c(MPI_Fint win) { return static_cast<MPI_Win>(win); }

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
#pragma weak MPI_Win_get_group = PMPI_Win_get_group
#pragma weak MPI_Win_set_name = PMPI_Win_set_name
#pragma weak MPI_Win_get_name = PMPI_Win_get_name
#pragma weak MPI_Win_set_info = PMPI_Win_set_info
#pragma weak MPI_Win_get_info = PMPI_Win_get_info
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c
#pragma weak MPI_Win_attach = PMPI_Win_attach
#pragma weak MPI_Win_detach = PMPI_Win_detach
#pragma weak MPI_Win_c2f = PMPI_Win_c2f
#pragma weak MPI_Win_f2c = PMPI_Win_f2c

}  // extern "C"
