// Types for parts of an n-dimensional array: MPI_Type_create_subarray (one
// block) and MPI_Type_create_darray (a process's share of a block or
// cyclic distribution). Both are built from the other constructors: per
// dimension, fastest first, the runs of indices kept (hindexed over the
// faster dimensions' type), resized to the whole dimension, so the result
// spans the whole array as the standard defines the extent; the result then
// records the call that made it (MPI_Type_get_contents).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "state.hpp"

namespace tern::mpi {
namespace {

struct IndexRun {  // `length` consecutive indices from `start`
  MPI_Count start;
  MPI_Count length;
};

// The array type keeping runs[d] of dimension d (sizes[d] indices) of `oldtype`.
// Sizes: int, or MPI_Count in the large-count forms; built from the
// large-count constructors, which take either.
template <typename Size>
int build_array_type(int ndims, const Size sizes[], const std::vector<std::vector<IndexRun>>& runs, int order,
                     MPI_Datatype oldtype, MPI_Aint old_extent, MPI_Datatype* newtype) {
  MPI_Datatype inner = oldtype;
  MPI_Aint stride = old_extent;
  for (int i = 0; i < ndims; ++i) {
    const int d = order == MPI_ORDER_C ? ndims - 1 - i : i;
    std::vector<MPI_Count> lengths;
    std::vector<MPI_Count> displacements;
    for (const IndexRun& run : runs[d]) {
      lengths.push_back(run.length);
      displacements.push_back(stride * run.start);
    }
    MPI_Datatype kept = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
    int error = PMPI_Type_create_hindexed_c(static_cast<MPI_Count>(lengths.size()), lengths.data(),
                                            displacements.data(), inner, &kept);
    if (inner != oldtype) PMPI_Type_free(&inner);
    if (error != MPI_SUCCESS) return error;
    error = PMPI_Type_create_resized_c(kept, 0, stride * static_cast<MPI_Aint>(sizes[d]), &whole);
    PMPI_Type_free(&kept);
    if (error != MPI_SUCCESS) return error;
    inner = whole;
    stride *= sizes[d];
  }
  *newtype = inner;
  return MPI_SUCCESS;
}

// The runs of dimension `d`'s indices process coordinate `coord` of
// `procs` keeps; false (with `why`) for a distribution that cannot be.
bool distributed_runs(MPI_Count size, int distrib, int darg, int procs, int coord, std::vector<IndexRun>& runs,
                      const char*& why) {
  runs.clear();
  if (distrib == MPI_DISTRIBUTE_NONE) {
    if (procs != 1) {
      why = "MPI_DISTRIBUTE_NONE over more than one process";
      return false;
    }
    runs.push_back(IndexRun{0, size});
    return true;
  }
  if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC) {
    why = "unknown distribution";
    return false;
  }
  const bool block = distrib == MPI_DISTRIBUTE_BLOCK;
  MPI_Count width = darg;
  if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
    width = block ? (size + procs - 1) / procs : 1;
  } else if (darg <= 0 || (block && static_cast<MPI_Count>(darg) * procs < size)) {
    why = block ? "block size too small to cover the dimension" : "cyclic block size not positive";
    return false;
  }
  // A block distribution is a cyclic one whose blocks go round only once.
  const MPI_Count cycle = width * procs;
  for (MPI_Count start = coord * width; start < size; start += cycle) {
    runs.push_back(IndexRun{start, std::min(width, size - start)});
    if (block) break;
  }
  return true;
}



template <typename Size>
int subarray(const char* kFunction, int ndims, const Size sizes[], const Size subsizes[], const Size starts[],
             int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (g_state == nullptr) return not_initialized(kFunction);
  if (ndims <= 0) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid ndims %d", ndims);
  if (sizes == nullptr || subsizes == nullptr || starts == nullptr || newtype == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null array or newtype argument");
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid order %d", order);
  }
  std::vector<std::vector<IndexRun>> runs(static_cast<std::size_t>(ndims));
  for (int d = 0; d < ndims; ++d) {
    if (sizes[d] <= 0 || subsizes[d] <= 0 || subsizes[d] > sizes[d] || starts[d] < 0 ||
        starts[d] > sizes[d] - subsizes[d]) {
      return raise(nullptr, MPI_ERR_ARG, kFunction, "dimension %d: size %lld, subsize %lld, start %lld do not fit",
                   d, static_cast<MPI_Count>(sizes[d]), static_cast<MPI_Count>(subsizes[d]),
                   static_cast<MPI_Count>(starts[d]));
    }
    runs[d].push_back(IndexRun{starts[d], subsizes[d]});
  }
  auto old = describe_type(oldtype);
  if (old == nullptr) return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d", oldtype);
  if (int err = build_array_type(ndims, sizes, runs, order, oldtype, old->extent, newtype); err != MPI_SUCCESS) {
    return err;
  }
  // The standard's contents: the sizes among the integers, or the large counts of the _c form.
  TypeContents contents{MPI_COMBINER_SUBARRAY, {ndims}, {}, {old}, {}};
  for (const Size* array : {sizes, subsizes, starts}) {
    if constexpr (std::is_same_v<Size, int>) {
      contents.ints.insert(contents.ints.end(), array, array + ndims);
    } else {
      contents.large_counts.insert(contents.large_counts.end(), array, array + ndims);
    }
  }
  contents.ints.push_back(order);
  record_contents(*newtype, std::move(contents));
  return MPI_SUCCESS;
}

template <typename Size>
int darray(const char* kFunction, int size, int rank, int ndims, const Size gsizes[], const int distribs[],
           const int dargs[], const int psizes[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (g_state == nullptr) return not_initialized(kFunction);
  if (size <= 0 || rank < 0 || rank >= size) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid rank %d of size %d", rank, size);
  }
  if (ndims <= 0) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid ndims %d", ndims);
  if (gsizes == nullptr || distribs == nullptr || dargs == nullptr || psizes == nullptr || newtype == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null array or newtype argument");
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid order %d", order);
  }
  long long grid = 1;
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] <= 0 || psizes[d] <= 0) {
      return raise(nullptr, MPI_ERR_ARG, kFunction, "dimension %d: gsize %lld, psize %d", d,
                   static_cast<MPI_Count>(gsizes[d]), psizes[d]);
    }
    grid *= psizes[d];
  }
  if (grid != size) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "the process grid has %lld processes, not size %d", grid, size);
  }
  // The process grid is row-major whatever the array's order.
  std::vector<std::vector<IndexRun>> runs(static_cast<std::size_t>(ndims));
  int rest = rank;
  for (int d = ndims - 1; d >= 0; --d) {
    const int coord = rest % psizes[d];
    rest /= psizes[d];
    const char* why = nullptr;
    if (!distributed_runs(gsizes[d], distribs[d], dargs[d], psizes[d], coord, runs[d], why)) {
      return raise(nullptr, MPI_ERR_ARG, kFunction, "dimension %d: %s", d, why);
    }
  }
  auto old = describe_type(oldtype);
  if (old == nullptr) return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d", oldtype);
  if (int err = build_array_type(ndims, gsizes, runs, order, oldtype, old->extent, newtype); err != MPI_SUCCESS) {
    return err;
  }
  TypeContents contents{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {old}, {}};
  if constexpr (std::is_same_v<Size, int>) {
    contents.ints.insert(contents.ints.end(), gsizes, gsizes + ndims);
  } else {
    contents.large_counts.insert(contents.large_counts.end(), gsizes, gsizes + ndims);
  }
  for (const int* array : {distribs, dargs, psizes}) contents.ints.insert(contents.ints.end(), array, array + ndims);
  contents.ints.push_back(order);
  record_contents(*newtype, std::move(contents));
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray", ndims, sizes, subsizes, starts, order, oldtype, newtype);
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                                const MPI_Count starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray_c", ndims, sizes, subsizes, starts, order, oldtype, newtype);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                            const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  return darray("MPI_Type_create_darray", size, rank, ndims, gsizes, distribs, dargs, psizes, order, oldtype,
                newtype);
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[], const int distribs[],
                              const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  return darray("MPI_Type_create_darray_c", size, rank, ndims, gsizes, distribs, dargs, psizes, order, oldtype,
                newtype);
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c

}  // extern "C"
