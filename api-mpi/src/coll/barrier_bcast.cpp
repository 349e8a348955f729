// MPI_Barrier and MPI_Bcast: argument checks, then the algorithms of
// algorithms.cpp (node-aware forms in node.cpp).


#include "coll/coll.hpp"
#include "coll/inter.hpp"

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

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_bcast(*inter, buffer, count, datatype, root);
  }
  if (TERN_UNLIKELY(is_derived_handle(datatype))) {
    if (g_state == nullptr) return not_initialized("MPI_Bcast");
    return derived_bcast(buffer, count, datatype, root, handle);
  }
  constexpr const char* kFunction = "MPI_Bcast";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(kFunction, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  if (buffer == nullptr && bytes != 0) return raise(comm, MPI_ERR_BUFFER, kFunction, "null buffer");
  if (Status s = coll_bcast(*comm, buffer, bytes, root); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

#pragma weak MPI_Barrier = PMPI_Barrier
#pragma weak MPI_Bcast = PMPI_Bcast

}  // extern "C"
