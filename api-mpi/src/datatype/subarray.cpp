// MPI_Type_create_subarray: a block of an n-dimensional array, built from
// the other constructors (a contiguous row, hvectors for the outer
// dimensions, moved to the block's start and resized to the whole array, as
// the standard defines the type's extent).
#include "state.hpp"

using namespace tern::mpi;

extern "C" {

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFunction = "MPI_Type_create_subarray";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (ndims <= 0) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid ndims %d", ndims);
  if (sizes == nullptr || subsizes == nullptr || starts == nullptr || newtype == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null array or newtype argument");
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid order %d", order);
  }
  for (int d = 0; d < ndims; ++d) {
    if (sizes[d] <= 0 || subsizes[d] <= 0 || subsizes[d] > sizes[d] || starts[d] < 0 ||
        starts[d] > sizes[d] - subsizes[d]) {
      return raise(nullptr, MPI_ERR_ARG, kFunction, "dimension %d: size %d, subsize %d, start %d do not fit", d,
                   sizes[d], subsizes[d], starts[d]);
    }
  }
  auto old = describe_type(oldtype);
  if (old == nullptr) return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d", oldtype);
  // Dimension i of the walk, fastest first.
  auto dim = [&](int i) { return order == MPI_ORDER_C ? ndims - 1 - i : i; };
  MPI_Datatype block = MPI_DATATYPE_NULL;
  if (const int error = PMPI_Type_contiguous(subsizes[dim(0)], oldtype, &block); error != MPI_SUCCESS) return error;
  MPI_Aint stride = old->extent * sizes[dim(0)];
  MPI_Aint start = old->extent * starts[dim(0)];
  for (int i = 1; i < ndims; ++i) {
    MPI_Datatype outer = MPI_DATATYPE_NULL;
    const int error = PMPI_Type_create_hvector(subsizes[dim(i)], 1, stride, block, &outer);
    PMPI_Type_free(&block);
    if (error != MPI_SUCCESS) return error;
    block = outer;
    start += stride * starts[dim(i)];
    stride *= sizes[dim(i)];
  }
  const int one = 1;
  MPI_Datatype placed = MPI_DATATYPE_NULL;
  int error = PMPI_Type_create_hindexed(1, &one, &start, block, &placed);
  PMPI_Type_free(&block);
  if (error != MPI_SUCCESS) return error;
  error = PMPI_Type_create_resized(placed, 0, stride, newtype);
  PMPI_Type_free(&placed);
  return error;
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

}  // extern "C"
