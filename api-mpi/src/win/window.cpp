// Window creation and destruction: MPI_Win_create, MPI_Win_allocate,
// MPI_Win_allocate_shared, MPI_Win_create_dynamic and MPI_Win_free, with
// the window table. What a window is and how it reaches its targets:
// window.hpp.
#include "win/buffer_pool.hpp"
#include "win/window.hpp"

#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tern/runtime/log.hpp"
#include "errors/user_errors.hpp"
#include "win/agent.hpp"

using namespace tern;
using namespace tern::mpi;

namespace tern::mpi {
namespace {

HandleTable<Window, 10> g_windows;
constexpr int kMaxWindows = decltype(g_windows)::kCapacity;

struct RankWindow {  // what each rank tells the others at creation
  uint64_t base;
  int64_t size;
  int32_t disp_unit;
  int32_t reserved;
};

// Releases what a window holds (mappings, memory, agent, communicator).
void release(Window& win) {
  win.agent.reset();
  for (Window::Batch& batch : win.batches) temp_release(batch.data, kBatchBytes);
  win.batches.clear();
  for (engine::RemoteKey* key : win.keys) {
    if (key != nullptr) engine::RemoteKey::destroy(key);
  }
  win.keys.clear();
  if (win.region != nullptr) engine::MemRegion::unmap(win.region);
  win.region = nullptr;
  release_shared_memory(win);
  if (win.comm != MPI_COMM_NULL) PMPI_Comm_free(&win.comm);
}

// MPI_Win_allocate_shared's memory: one region mapped by rank 0 holding
// every rank's control block, then the ranks' parts contiguous in rank order.
int allocate_shared(const char* function, Window& win, const std::vector<RankWindow>& ranks) {
  const std::size_t controls = (sizeof(WinControl) * ranks.size() + kControlBytes - 1) / kControlBytes * kControlBytes;
  std::vector<std::size_t> offsets(ranks.size());
  std::size_t total = controls;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    offsets[r] = total;
    total += static_cast<std::size_t>(ranks[r].size);
  }
  std::vector<std::byte> key;
  int ok = 1;
  if (win.rank == 0) {
    engine::MemMapParams params;
    params.length = total;
    if (engine::MemRegion::map(params, win.region) == Status::Ok) {
      key = win.region->packed_key();
    } else {
      ok = 0;
    }
  }
  int key_length = static_cast<int>(key.size());
  if (PMPI_Bcast(&key_length, 1, MPI_INT, 0, win.comm) != MPI_SUCCESS) ok = 0;
  key.resize(static_cast<std::size_t>(key_length));
  if (key_length > 0 && PMPI_Bcast(key.data(), key_length, MPI_BYTE, 0, win.comm) != MPI_SUCCESS) ok = 0;
  engine::RemoteKey* mapping = nullptr;
  if (ok != 0 && (key_length == 0 || engine::RemoteKey::unpack(key, mapping) != Status::Ok)) ok = 0;
  int everywhere = 0;
  PMPI_Allreduce(&ok, &everywhere, 1, MPI_INT, MPI_MIN, win.comm);
  if (everywhere == 0) {
    if (mapping != nullptr) engine::RemoteKey::destroy(mapping);
    return raise_win(nullptr, MPI_ERR_NO_MEM, function, "cannot map %zu bytes of shared memory for the window", total);
  }
  win.keys.push_back(mapping);
  std::byte* local = mapping->local_base();
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    win.peers[r].control = reinterpret_cast<WinControl*>(local + r * sizeof(WinControl));
    win.peers[r].mapped = local + offsets[r];
    win.peers[r].base = reinterpret_cast<uint64_t>(local + offsets[r]);
  }
  win.base = win.peers[static_cast<std::size_t>(win.rank)].mapped;
  win.control = win.peers[static_cast<std::size_t>(win.rank)].control;
  return MPI_SUCCESS;
}

// The common path of the four constructors. `base` is the memory of
// MPI_Win_create; the allocating flavors return theirs in `baseptr`.
int create(const char* function, int flavor, void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
           MPI_Comm comm_handle, void* baseptr, MPI_Win* out) {
  Comm* comm = nullptr;
  if (int err = find_comm_checked(function, comm_handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, function); err != MPI_SUCCESS) return err;
  if (out == nullptr) return raise(comm, MPI_ERR_ARG, function, "null win argument");
  *out = MPI_WIN_NULL;
  if (size < 0) return raise(comm, MPI_ERR_SIZE, function, "invalid size %td", size);
  if (disp_unit <= 0) return raise(comm, MPI_ERR_DISP, function, "invalid displacement unit %td", disp_unit);
  // A _c call's unit may be larger: the window keeps it, and MPI_WIN_DISP_UNIT gives it, as an int.
  if (disp_unit > INT_MAX) {
    return raise(comm, MPI_ERR_DISP, function, "displacement unit %td is beyond INT_MAX, which windows here keep",
                 disp_unit);
  }
  if (baseptr == nullptr && (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED)) {
    return raise(comm, MPI_ERR_ARG, function, "null baseptr argument");
  }
  if (flavor == MPI_WIN_FLAVOR_CREATE && base == nullptr && size > 0) {
    return raise(comm, MPI_ERR_BASE, function, "null base for a window of %td bytes", size);
  }
  auto win = std::make_unique<Window>();
  if (info != MPI_INFO_NULL && !info_entries(info, win->info)) {
    return raise(comm, MPI_ERR_INFO, function, "invalid info object %d", info);
  }
  if (PMPI_Comm_dup(comm_handle, &win->comm) != MPI_SUCCESS) {
    return raise(comm, MPI_ERR_OTHER, function, "cannot duplicate the communicator");
  }
  Comm& private_comm = *find_comm(win->comm);
  win->rank = private_comm.rank;
  win->size = private_comm.size;
  win->flavor = flavor;
  win->disp_unit = static_cast<int>(disp_unit);
  win->bytes = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
  win->peers.resize(static_cast<std::size_t>(win->size));
  win->locks.assign(static_cast<std::size_t>(win->size), LockState::None);
  win->lock_checked.assign(static_cast<std::size_t>(win->size), 0);
  win->in_access_group.assign(static_cast<std::size_t>(win->size), 0);
  win->unflushed.assign(static_cast<std::size_t>(win->size), 0);
  win->batches.resize(static_cast<std::size_t>(win->size));

  const std::vector<int>& local = node_layout(private_comm).local;
  const bool one_host = local.size() == static_cast<std::size_t>(win->size);
  win->join_limit.assign(static_cast<std::size_t>(win->size), static_cast<uint32_t>(kJoinReplyRemote));
  for (int rank : local) win->join_limit[static_cast<std::size_t>(rank)] = static_cast<uint32_t>(kJoinReplyLocal);
  int error = MPI_SUCCESS;
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    engine::MemMapParams params;
    params.length = kControlBytes + static_cast<std::size_t>(size);
    if (engine::MemRegion::map(params, win->region) != Status::Ok) {
      error = MPI_ERR_NO_MEM;
    } else {
      win->control = reinterpret_cast<WinControl*>(win->region->base());
      win->base = static_cast<std::byte*>(win->region->base()) + kControlBytes;
    }
  } else if (flavor == MPI_WIN_FLAVOR_CREATE) {
    win->base = base;
  }
  // Every rank learns every rank's window (and whether creation failed anywhere).
  RankWindow mine{reinterpret_cast<uint64_t>(win->base), static_cast<int64_t>(win->bytes), win->disp_unit, error};
  std::vector<RankWindow> ranks(static_cast<std::size_t>(win->size));
  if (PMPI_Allgather(&mine, sizeof(RankWindow), MPI_BYTE, ranks.data(), sizeof(RankWindow), MPI_BYTE, win->comm) !=
      MPI_SUCCESS) {
    release(*win);
    return raise(comm, MPI_ERR_OTHER, function, "cannot exchange the window's addresses");
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].reserved != MPI_SUCCESS) {
      release(*win);
      return raise(comm, ranks[r].reserved, function, "rank %zu could not allocate its part of the window", r);
    }
    win->peers[r].base = ranks[r].base;
    win->peers[r].size = ranks[r].size;
    win->peers[r].disp_unit = ranks[r].disp_unit;
  }

  if (flavor == MPI_WIN_FLAVOR_SHARED) {
    if (!one_host) {
      release(*win);
      return raise(comm, MPI_ERR_RMA_SHARED, function,
                   "the communicator's processes are not all on one host: they cannot share memory");
    }
    if (int err = allocate_shared(function, *win, ranks); err != MPI_SUCCESS) {
      release(*win);
      return err;
    }
    win->direct = true;
  } else if (flavor == MPI_WIN_FLAVOR_CREATE && one_host) {
    win->direct = share_created_memory(*win);
  } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE && one_host) {
    win->direct = map_peers(*win, win->region->packed_key(), {}, kControlBytes);
    if (!win->direct) {
      TERN_LOG(Debug, "mpi: a window's memory could not be mapped by every rank: its targets serve it");
    }
  }
  if (!win->direct) {
    for (engine::RemoteKey* key : win->keys) {
      if (key != nullptr) engine::RemoteKey::destroy(key);
    }
    win->keys.clear();
    for (WinPeer& peer : win->peers) peer.mapped = nullptr, peer.control = nullptr;
    win->agent = std::make_unique<Agent>(*win);
    if (int err = win->agent->start(); err != MPI_SUCCESS) {
      release(*win);
      return raise(comm, err, function, "cannot start serving the window");
    }
  }
  // No rank may reach a window before every rank has made it.
  PMPI_Barrier(win->comm);
  if (baseptr != nullptr) *static_cast<void**>(baseptr) = win->base;
  *out = g_windows.add(win);
  if (*out == MPI_WIN_NULL) {
    release(*win);
    return raise(comm, MPI_ERR_NO_MEM, function, "out of window handles (%d)", kMaxWindows - 1);
  }
  return MPI_SUCCESS;
}

}  // namespace

Window* find_window(MPI_Win handle) { return g_windows.find(handle); }

int raise_win(const Window* win, int error_class, const char* function, const char* format, ...) {
  char detail[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  if (win == nullptr) return raise(nullptr, error_class, function, "%s", detail);
  if (win->errhandler == MPI_ERRORS_RETURN) return error_class;
  if (call_user_errhandler(win->errhandler, g_windows.handle_of(win), error_class)) return error_class;
  // The communicator path prints and aborts; a stand-in carries the window's handler there.
  static Comm fatal;
  fatal.errhandler = win->errhandler;
  return raise(&fatal, error_class, function, "%s", detail);
}

int find_window_checked(const char* function, MPI_Win handle, Window*& win) {
  if (g_state == nullptr) return not_initialized(function);
  win = find_window(handle);
  if (win == nullptr) return raise(nullptr, MPI_ERR_WIN, function, "invalid window %d", handle);
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

extern "C" {

// Each creation call in its int and large-count (_c) form, over one
// implementation.
int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, nullptr, win);
}

int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, nullptr, win);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info, comm, baseptr, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                        MPI_Win* win) {
  return create("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info, comm, baseptr, win);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                             MPI_Win* win) {
  return create("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, comm, baseptr,
                win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                               MPI_Win* win) {
  return create("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, comm, baseptr,
                win);
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1, info, comm, nullptr, win);
}

int PMPI_Win_free(MPI_Win* handle) {
  constexpr const char* kFunction = "MPI_Win_free";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (handle == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null win argument");
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, *handle, win); err != MPI_SUCCESS) return err;
  bool locked = win->lock_all;
  for (LockState state : win->locks) locked = locked || state != LockState::None;
  if (locked || win->access_epoch || win->exposure_epoch) {
    return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "the window still has an epoch open (a lock or PSCW)");
  }
  if (int err = attr_delete_all(AttrObject::Win, *handle, win->attributes); err != MPI_SUCCESS) {
    return raise_win(win, err, kFunction, "an attribute's delete callback failed (%d)", err);
  }
  int error = win->direct ? MPI_SUCCESS : served_wait_local(*win, -1);
  // Nobody may reach this rank's memory once it is gone.
  PMPI_Barrier(win->comm);
  if (win->agent != nullptr) win->agent->stop();
  release(*win);
  g_windows.remove(*handle);
  *handle = MPI_WIN_NULL;
  return error;
}

#pragma weak MPI_Win_create = PMPI_Win_create
#pragma weak MPI_Win_allocate = PMPI_Win_allocate
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
#pragma weak MPI_Win_create_c = PMPI_Win_create_c
#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c
#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
#pragma weak MPI_Win_free = PMPI_Win_free

}  // extern "C"
