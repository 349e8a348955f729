// Counts of the collective calls, shared by the int calls and their MPI 4.0
// large-count (_c) forms, which run one implementation: scalar counts are
// MPI_Count throughout, count and displacement arrays are template
// parameters (int, or MPI_Count and MPI_Aint). The paths that still take
// int counts (intercommunicators, derived datatypes through pack/unpack)
// get a _c call's counts narrowed here, or refuse them with MPI_ERR_COUNT:
// a count is never cut short.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "state.hpp"

namespace tern::mpi {

inline constexpr const char* kInterPath = "the collectives on intercommunicators";
inline constexpr const char* kDerivedPath = "the collectives' packing of derived datatypes";

// `count` instances of `size` bytes: MPI_ERR_COUNT when the bytes are more
// than any object can hold (PTRDIFF_MAX; only a _c call's count gets there),
// so the callers may multiply unchecked after.
inline int check_bytes(const Comm* comm, const char* function, MPI_Count count, std::size_t size) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(count), size, &bytes) ||
      bytes > static_cast<std::size_t>(PTRDIFF_MAX)) {
    return raise(comm, MPI_ERR_COUNT, function, "count %lld is too large: its bytes exceed the address space",
                 count);
  }
  return MPI_SUCCESS;
}

// `count` as an int for `path`, a part of the call that takes int counts.
inline int narrow_count(const Comm* comm, const char* function, MPI_Count count, const char* path, int& out) {
  if (count > INT_MAX || count < INT_MIN) {
    return raise(comm, MPI_ERR_COUNT, function,
                 "count or displacement %lld is beyond an int, and %s takes int counts only", count, path);
  }
  out = static_cast<int>(count);
  return MPI_SUCCESS;
}

// The `n` entries of `values` (counts or displacements) as ints for `path`:
// the array itself in an int call, a copy in `store` for a _c call. `n` is
// 0 where the array does not matter on this rank (the caller's pointer may
// then be anything): `out` is null.
template <class T>
int narrow_array(const Comm* comm, const char* function, const T values[], int n, const char* path,
                 std::vector<int>& store, const int*& out) {
  if constexpr (std::is_same_v<T, int>) {
    out = values;
    return MPI_SUCCESS;
  } else {
    out = nullptr;
    if (values == nullptr || n == 0) return MPI_SUCCESS;
    store.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (int err = narrow_count(comm, function, values[i], path, store[static_cast<std::size_t>(i)]);
          err != MPI_SUCCESS) {
        return err;
      }
    }
    out = store.data();
    return MPI_SUCCESS;
  }
}

// Counts and displacements of a v or w call as ints (see narrow_array).
struct IntCounts {
  std::vector<int> count_store, displ_store;
  const int* counts = nullptr;
  const int* displs = nullptr;

  template <class Count, class Displ>
  int narrow(const Comm* comm, const char* function, const Count c[], const Displ d[], int n, const char* path) {
    if (int err = narrow_array(comm, function, c, n, path, count_store, counts); err != MPI_SUCCESS) return err;
    return narrow_array(comm, function, d, n, path, displ_store, displs);
  }
};

// Two scalar counts (a send and a receive count) as ints.
inline int narrow_pair(const Comm* comm, const char* function, MPI_Count a, MPI_Count b, const char* path, int& out_a,
                       int& out_b) {
  if (int err = narrow_count(comm, function, a, path, out_a); err != MPI_SUCCESS) return err;
  return narrow_count(comm, function, b, path, out_b);
}

// An all-to-all call's `n` counts and displacements and its scalar count.
template <class Count, class Displ>
int narrow_all(const Comm& comm, const char* function, const Count counts[], const Displ displs[], int n,
               MPI_Count scalar, const char* path, IntCounts& narrow, int& scalar_out) {
  if (int err = narrow.narrow(&comm, function, counts, displs, n, path); err != MPI_SUCCESS) return err;
  return narrow_count(&comm, function, scalar, path, scalar_out);
}

// A rooted v call (Gatherv, Scatterv): the arrays count on the root only
// (MPI_ROOT on an intercommunicator, where they cover the remote group).
template <class Count, class Displ>
int narrow_rooted(const Comm& comm, const char* function, const Count counts[], const Displ displs[],
                  MPI_Count scalar, int root, IntCounts& narrow, int& scalar_out) {
  const int n = comm.inter ? (root == MPI_ROOT ? comm.remote_size : 0) : (comm.rank == root ? comm.size : 0);
  return narrow_all(comm, function, counts, displs, n, comm.inter && root == MPI_ROOT ? 0 : scalar,
                    comm.inter ? kInterPath : kDerivedPath, narrow, scalar_out);
}


}  // namespace tern::mpi
