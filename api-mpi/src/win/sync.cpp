// Window synchronization: fence, post-start-complete-wait (PSCW), and the
// passive-target locks and flushes. Direct windows complete every
// operation as it is issued (a memory fence publishes it); served windows
// wait for their requests' local completion and for the targets' answers.
#include <atomic>
#include <vector>

#include "comm/group.hpp"
#include "win/protocol.hpp"
#include "win/window.hpp"

using namespace tern;
using namespace tern::mpi;

namespace tern::mpi {

int complete_at_targets(Window& win, int target) {
  if (win.direct) {
    // The copies are done; what the target learns of them later (a lock
    // released, a message, a barrier) must not be seen before them.
    std::atomic_thread_fence(std::memory_order_release);
    return MPI_SUCCESS;
  }
  std::vector<int> targets;
  if (target >= 0) {
    targets.push_back(target);
  } else {
    for (int r = 0; r < win.size; ++r) targets.push_back(r);
  }
  return served_flush(win, targets, kRmaFlush);
}

}  // namespace tern::mpi

namespace {

constexpr int kAllAsserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                            MPI_MODE_NOSUCCEED;

bool passive_epoch_open(const Window& win) {
  if (win.lock_all) return true;
  for (LockState state : win.locks) {
    if (state != LockState::None) return true;
  }
  return false;
}

// The window ranks of `group`'s members; false when one is not in the window.
bool group_ranks(const Window& win, MPI_Group group, std::vector<int>& ranks) {
  const std::vector<unsigned>* members = find_group(group);
  if (members == nullptr) return false;
  const Comm& comm = window_comm(win);
  ranks.clear();
  for (unsigned member : *members) {
    int found = -1;
    for (int r = 0; r < comm.size && found < 0; ++r) {
      if (comm.job_ranks[static_cast<std::size_t>(r)] == member) found = r;
    }
    if (found < 0) return false;
    ranks.push_back(found);
  }
  return true;
}

int checked(const char* function, MPI_Win handle, Window*& win, int assert_flags) {
  if (int err = find_window_checked(function, handle, win); err != MPI_SUCCESS) return err;
  if ((assert_flags & ~kAllAsserts) != 0) {
    return raise_win(win, MPI_ERR_ASSERT, function, "invalid assertion %#x", assert_flags);
  }
  return MPI_SUCCESS;
}

int checked_rank(const char* function, Window& win, int rank) {
  if (rank < 0 || rank >= win.size) {
    return raise_win(&win, MPI_ERR_RANK, function, "invalid rank %d (window of %d ranks)", rank, win.size);
  }
  return MPI_SUCCESS;
}

// Ends the passive epoch to `targets`: their operations complete, then
// their locks (those really taken) released.
int unlock_targets(Window& win, const std::vector<int>& targets, const std::vector<char>& taken) {
  if (win.direct) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (taken[i] == 0) continue;
      const int t = targets[i];
      const bool exclusive = !win.lock_all && win.locks[static_cast<std::size_t>(t)] == LockState::Exclusive;
      direct_unlock(win, t, exclusive);
    }
    return MPI_SUCCESS;
  }
  std::vector<int> release;
  std::vector<int> flush_only;
  for (std::size_t i = 0; i < targets.size(); ++i) (taken[i] != 0 ? release : flush_only).push_back(targets[i]);
  int error = MPI_SUCCESS;
  if (!release.empty()) error = served_flush(win, release, kRmaUnlock);
  if (!flush_only.empty()) {
    const int err = served_flush(win, flush_only, kRmaFlush);
    if (error == MPI_SUCCESS) error = err;
  }
  return error;
}

}  // namespace

extern "C" {

int PMPI_Win_fence(int assert_flags, MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_fence";
  Window* win = nullptr;
  if (int err = checked(kFunction, handle, win, assert_flags); err != MPI_SUCCESS) return err;
  if (win->access_epoch || win->exposure_epoch || passive_epoch_open(*win)) {
    return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "a PSCW or lock epoch is open on the window");
  }
  int error = MPI_SUCCESS;
  if ((assert_flags & MPI_MODE_NOPRECEDE) == 0 || !win->direct) error = complete_at_targets(*win, -1);
  // Every rank's operations are complete at their targets before anyone goes on.
  if (PMPI_Barrier(win->comm) != MPI_SUCCESS && error == MPI_SUCCESS) error = MPI_ERR_OTHER;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  win->fence_epoch = (assert_flags & MPI_MODE_NOSUCCEED) == 0;
  if (error != MPI_SUCCESS) return raise_win(win, error, kFunction, "operations of the epoch failed");
  return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert_flags, MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_start";
  Window* win = nullptr;
  if (int err = checked(kFunction, handle, win, assert_flags); err != MPI_SUCCESS) return err;
  if (win->access_epoch || passive_epoch_open(*win)) {
    return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "an access epoch is already open on the window");
  }
  std::vector<int> ranks;
  if (!group_ranks(*win, group, ranks)) {
    return raise_win(win, MPI_ERR_GROUP, kFunction, "invalid group %d, or a member outside the window", group);
  }
  if ((assert_flags & MPI_MODE_NOCHECK) == 0) {
    for (int target : ranks) {
      if (PMPI_Recv(nullptr, 0, MPI_BYTE, target, kTagPost, win->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        return raise_win(win, MPI_ERR_OTHER, kFunction, "rank %d's post did not arrive", target);
      }
    }
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  win->fence_epoch = false;
  win->access_group = ranks;
  for (int target : ranks) win->in_access_group[static_cast<std::size_t>(target)] = 1;
  win->access_epoch = true;
  return MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_complete";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (!win->access_epoch) return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "no MPI_Win_start epoch is open");
  int error = MPI_SUCCESS;
  if (win->direct) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  } else {
    error = served_flush(*win, win->access_group, kRmaFlush);
  }
  for (int target : win->access_group) {
    if (PMPI_Send(nullptr, 0, MPI_BYTE, target, kTagComplete, win->comm) != MPI_SUCCESS && error == MPI_SUCCESS) {
      error = MPI_ERR_OTHER;
    }
    win->in_access_group[static_cast<std::size_t>(target)] = 0;
  }
  win->access_group.clear();
  win->access_epoch = false;
  if (error != MPI_SUCCESS) return raise_win(win, error, kFunction, "operations of the epoch failed");
  return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert_flags, MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_post";
  Window* win = nullptr;
  if (int err = checked(kFunction, handle, win, assert_flags); err != MPI_SUCCESS) return err;
  if (win->exposure_epoch) return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "an exposure epoch is already open");
  std::vector<int> ranks;
  if (!group_ranks(*win, group, ranks)) {
    return raise_win(win, MPI_ERR_GROUP, kFunction, "invalid group %d, or a member outside the window", group);
  }
  win->exposure_requests.assign(ranks.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    PMPI_Irecv(nullptr, 0, MPI_BYTE, ranks[i], kTagComplete, win->comm, &win->exposure_requests[i]);
  }
  // The window's memory is ready before any origin may start.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if ((assert_flags & MPI_MODE_NOCHECK) == 0) {
    for (int origin : ranks) {
      if (PMPI_Send(nullptr, 0, MPI_BYTE, origin, kTagPost, win->comm) != MPI_SUCCESS) {
        return raise_win(win, MPI_ERR_OTHER, kFunction, "cannot tell rank %d", origin);
      }
    }
  }
  win->exposure_group = ranks;
  win->exposure_epoch = true;
  return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_wait";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (!win->exposure_epoch) return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "no MPI_Win_post epoch is open");
  const int error = PMPI_Waitall(static_cast<int>(win->exposure_requests.size()), win->exposure_requests.data(),
                                 MPI_STATUSES_IGNORE);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  win->exposure_requests.clear();
  win->exposure_group.clear();
  win->exposure_epoch = false;
  if (error != MPI_SUCCESS) return raise_win(win, error, kFunction, "an origin's completion failed");
  return MPI_SUCCESS;
}

int PMPI_Win_test(MPI_Win handle, int* flag) {
  constexpr const char* kFunction = "MPI_Win_test";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (flag == nullptr) return raise_win(win, MPI_ERR_ARG, kFunction, "null flag argument");
  if (!win->exposure_epoch) return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "no MPI_Win_post epoch is open");
  const int error = PMPI_Testall(static_cast<int>(win->exposure_requests.size()), win->exposure_requests.data(),
                                 flag, MPI_STATUSES_IGNORE);
  if (error != MPI_SUCCESS) return raise_win(win, error, kFunction, "an origin's completion failed");
  if (*flag != 0) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    win->exposure_requests.clear();
    win->exposure_group.clear();
    win->exposure_epoch = false;
  }
  return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_lock";
  Window* win = nullptr;
  if (int err = checked(kFunction, handle, win, assert_flags); err != MPI_SUCCESS) return err;
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
    return raise_win(win, MPI_ERR_LOCKTYPE, kFunction, "invalid lock type %d", lock_type);
  }
  if (int err = checked_rank(kFunction, *win, rank); err != MPI_SUCCESS) return err;
  const auto target = static_cast<std::size_t>(rank);
  if (win->lock_all || win->locks[target] != LockState::None || win->access_epoch) {
    return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "an epoch to rank %d is already open", rank);
  }
  const bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
  const bool take = (assert_flags & MPI_MODE_NOCHECK) == 0;
  if (take) {
    if (win->direct) {
      direct_lock(*win, rank, exclusive);
    } else if (int err = served_lock(*win, {rank}, exclusive); err != MPI_SUCCESS) {
      return raise_win(win, err, kFunction, "cannot lock rank %d", rank);
    }
  }
  win->fence_epoch = false;
  win->lock_checked[target] = take ? 1 : 0;
  win->locks[target] = exclusive ? LockState::Exclusive : LockState::Shared;
  return MPI_SUCCESS;
}

int PMPI_Win_unlock(int rank, MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_unlock";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (int err = checked_rank(kFunction, *win, rank); err != MPI_SUCCESS) return err;
  const auto target = static_cast<std::size_t>(rank);
  if (win->locks[target] == LockState::None) {
    return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "rank %d is not locked", rank);
  }
  const int error = unlock_targets(*win, {rank}, {win->lock_checked[target]});
  win->locks[target] = LockState::None;
  win->lock_checked[target] = 0;
  if (error != MPI_SUCCESS) return raise_win(win, error, kFunction, "operations of the epoch to rank %d failed", rank);
  return MPI_SUCCESS;
}

int PMPI_Win_lock_all(int assert_flags, MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_lock_all";
  Window* win = nullptr;
  if (int err = checked(kFunction, handle, win, assert_flags); err != MPI_SUCCESS) return err;
  if (passive_epoch_open(*win) || win->access_epoch) {
    return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "an access epoch is already open on the window");
  }
  std::vector<int> all(static_cast<std::size_t>(win->size));
  for (int r = 0; r < win->size; ++r) all[static_cast<std::size_t>(r)] = r;
  win->lock_all_nocheck = (assert_flags & MPI_MODE_NOCHECK) != 0;
  if (!win->lock_all_nocheck) {
    if (win->direct) {
      for (int r : all) direct_lock(*win, r, false);
    } else if (int err = served_lock(*win, all, false); err != MPI_SUCCESS) {
      return raise_win(win, err, kFunction, "cannot lock the window");
    }
  }
  win->fence_epoch = false;
  win->lock_all = true;
  return MPI_SUCCESS;
}

int PMPI_Win_unlock_all(MPI_Win handle) {
  constexpr const char* kFunction = "MPI_Win_unlock_all";
  Window* win = nullptr;
  if (int err = find_window_checked(kFunction, handle, win); err != MPI_SUCCESS) return err;
  if (!win->lock_all) return raise_win(win, MPI_ERR_RMA_SYNC, kFunction, "no MPI_Win_lock_all epoch is open");
  std::vector<int> all(static_cast<std::size_t>(win->size));
  for (int r = 0; r < win->size; ++r) all[static_cast<std::size_t>(r)] = r;
  const int error = unlock_targets(*win, all, std::vector<char>(all.size(), win->lock_all_nocheck ? 0 : 1));
  win->lock_all = false;
  win->lock_all_nocheck = false;
  if (error != MPI_SUCCESS) return raise_win(win, error, kFunction, "operations of the epoch failed");
  return MPI_SUCCESS;
}

namespace {

// `rank` < 0: every target.
int flush(const char* function, MPI_Win handle, int rank, bool all, bool local) {
  Window* win = nullptr;
  if (int err = find_window_checked(function, handle, win); err != MPI_SUCCESS) return err;
  if (!all) {
    if (int err = checked_rank(function, *win, rank); err != MPI_SUCCESS) return err;
    if (!in_passive_epoch(*win, rank)) {
      return raise_win(win, MPI_ERR_RMA_SYNC, function, "no passive-target epoch to rank %d is open", rank);
    }
  } else if (!passive_epoch_open(*win)) {
    return raise_win(win, MPI_ERR_RMA_SYNC, function, "no passive-target epoch is open");
  }
  if (all) rank = -1;
  int error = MPI_SUCCESS;
  if (local) {
    if (!win->direct) error = served_wait_local(*win, rank);
  } else {
    error = complete_at_targets(*win, rank);
  }
  if (error != MPI_SUCCESS) return raise_win(win, error, function, "operations of the epoch failed");
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Win_flush(int rank, MPI_Win win) { return flush("MPI_Win_flush", win, rank, false, false); }
int PMPI_Win_flush_all(MPI_Win win) { return flush("MPI_Win_flush_all", win, -1, true, false); }
int PMPI_Win_flush_local(int rank, MPI_Win win) { return flush("MPI_Win_flush_local", win, rank, false, true); }
int PMPI_Win_flush_local_all(MPI_Win win) { return flush("MPI_Win_flush_local_all", win, -1, true, true); }

int PMPI_Win_sync(MPI_Win handle) {
  Window* win = nullptr;
  if (int err = find_window_checked("MPI_Win_sync", handle, win); err != MPI_SUCCESS) return err;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
#pragma weak MPI_Win_start = PMPI_Win_start
#pragma weak MPI_Win_complete = PMPI_Win_complete
#pragma weak MPI_Win_post = PMPI_Win_post
#pragma weak MPI_Win_wait = PMPI_Win_wait
#pragma weak MPI_Win_test = PMPI_Win_test
#pragma weak MPI_Win_lock = PMPI_Win_lock
#pragma weak MPI_Win_unlock = PMPI_Win_unlock
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
#pragma weak MPI_Win_flush = PMPI_Win_flush
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
#pragma weak MPI_Win_sync = PMPI_Win_sync

}  // extern "C"
