// MPI_Barrier and MPI_Bcast(_c): argument checks, then the algorithms of
// algorithms.cpp (node-aware forms in node.cpp).


#include "coll/coll.hpp"
#include "coll/inter.hpp"

namespace tern::mpi {
namespace {

// MPI_Bcast and MPI_Bcast_c.
int bcast(const char* kFunction, void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int narrow = 0;
    if (int err = narrow_count(inter, kFunction, count, kInterPath, narrow); err != MPI_SUCCESS) return err;
    return inter_bcast(*inter, kFunction, buffer, narrow, datatype, root);
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  if (TERN_UNLIKELY(is_derived_handle(datatype))) {
    int narrow = 0;
    if (int err = narrow_count(find_comm(handle), kFunction, count, kDerivedPath, narrow); err != MPI_SUCCESS) {
      return err;
    }
    return derived_bcast(kFunction, buffer, narrow, datatype, root, handle);
  }
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  if (buffer == nullptr && bytes != 0) return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  if (Status s = coll_bcast(*comm, buffer, bytes, root); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Barrier(MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) return inter_barrier(*inter);
  constexpr const char* kFunction = "MPI_Barrier";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (Status s = coll_barrier(*comm); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast("MPI_Bcast", buffer, count, datatype, root, comm);
}

int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm);
}

#pragma weak MPI_Barrier = PMPI_Barrier
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Bcast_c = PMPI_Bcast_c

}  // extern "C"
